"""Record `forge-tools hook` inside the real Claude Code binary, offline (issue 32 "Done when" 1).

Run by hand, never by the test suite: `nice -n 10 python tests/compat/hooks/record.py` (CLAUDE_BIN
names the binary; default /work/agents/node_modules/.bin/claude). The script re-executes itself under
`unshare -n` (a private network namespace with loopback only), makes a scratch HOME and project,
installs the hook with `forge-tools hook install --runtime claude`, and runs `claude -p` against the
loopback Messages API stand-in (tests/compat/claude/standin.py) scripted to make one Bash call per
spelling of a denied `rm` (FT116's and more), each aimed at its own victim file, then one allowed
call, once without the hook and once with it. The project's own rules are `allow: ["Bash"]` and
`deny: ["Bash(rm:*)"]`. It writes `claude-<version>.json`: per run and call, the command, whether its
effect was observed (the victim gone, the allowed file made) and the tool result Claude reported; the
hook's audit lines (tool, command, action). 2.1.332 itself ran `eval rm victim11.txt`; with the hook
nothing denied ran.

`--failures`: only the allowed call, once per way the hook entry's command is made to fail
(`failures.py`: a forced internal error, garbage on its stdin, a truncated payload, its deadline
passed), each of which must leave it unrun; merged into the record as `failures`.
`--sandbox`: the hook installed with `--sandbox`, one allowed call writing into `work/` and into
`.claude/`; merged into the record as `sandbox`.
`--asks`: the project's rules changed to `ASK_SETTINGS` (an allow of one command, an ask of `mkdir`, no
rule for `touch asked.txt`, which Claude's default mode asks about), the asked calls and the allowed
one, once without the hook and once with it: the hook gives no decision (or its own `ask`), so Claude
still puts each asked call to the user (`claude -p` has nobody to ask: refused, nothing made); merged
into the record as `asks`.
`--ask-rewrite`: the hook installed with `--sandbox` and `ask: ["Bash(touch:*)"]`, the asks answered by
`approver.py` (`--permission-prompt-tool`, a person saying yes): what the person was asked about, and
whether the approved call ran inside the sandbox (its write into `work/` made, the one into `.claude/`
not); merged into the record as `ask_rewrite`.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "claude"))
sys.path.append(str(HERE))  # failures.py
CLAUDE = Path(os.environ.get("CLAUDE_BIN", "/work/agents/node_modules/.bin/claude"))
NS_FLAG = "FT_HOOK_RECORDER_IN_NS"
FORGE = Path(sys.executable).with_name("forge-tools")
SPELLINGS = ["rm {v}", "/bin/rm {v}", "command rm {v}", "env rm {v}", "bash -c 'rm {v}'", "\\rm {v}",
             "time rm {v}", "sh -c 'rm {v}'", "echo {v} | xargs rm", "nice rm {v}", "nohup rm {v}",
             "eval rm {v}", "x=rm; $x {v}"]
ALLOWED = "touch allowed.txt"
SANDBOXED = "touch work/kept.txt; touch .claude/probe"
#: `--asks`: one call no rule names (Claude's default mode asks), one an ask rule names, one allowed
ASK_SETTINGS = {"allow": ["Bash(touch allowed.txt)"], "ask": ["Bash(mkdir:*)"], "deny": ["Bash(rm:*)"]}
ASKED = {"touch asked.txt": "asked.txt", "mkdir asked_dir": "asked_dir", ALLOWED: "allowed.txt"}


def main() -> int:
    from failures import in_own_network  # type: ignore[import-not-found]

    code = in_own_network(str(Path(__file__).resolve()), NS_FLAG)
    if code is not None:
        return code
    from standin import StandIn  # type: ignore[import-not-found]

    version = subprocess.run([str(CLAUDE), "--version"], capture_output=True, text=True).stdout.split()[0]
    scratch = Path(tempfile.mkdtemp(prefix="forge-hook-rec-"))
    home, project = scratch / "home", scratch / "project"
    (home / ".claude").mkdir(parents=True)
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text(json.dumps(
        {"permissions": {"allow": ["Bash"], "deny": ["Bash(rm:*)"]}}, indent=2))
    (home / ".claude" / ".claude.json").write_text(json.dumps(
        {"projects": {str(project): {"hasTrustDialogAccepted": True, "allowedTools": []}}}))
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home),
           "CLAUDE_CONFIG_DIR": str(home / ".claude"), "TMPDIR": str(scratch),
           "FORGE_DATA_DIR": str(scratch / "data"), "LANG": "C.UTF-8", "DISABLE_AUTOUPDATER": "1",
           "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1"}
    standin = StandIn().start()
    if "--failures" in sys.argv:
        return _failures(project, env, standin, scratch, version)
    if "--sandbox" in sys.argv:
        return _sandbox(project, env, standin, scratch, version)
    if "--asks" in sys.argv:
        return _asks(project, env, standin, scratch, version)
    if "--ask-rewrite" in sys.argv:
        return _ask_rewrite(project, env, standin, scratch, version)
    runs = {}
    for label in ("without_hook", "with_hook"):
        if label == "with_hook":
            subprocess.run([str(FORGE), "hook", "install", "--runtime", "claude"], cwd=project, env=env,
                           check=True)
        runs[label] = _run(project, env, standin, scratch)
    standin.stop()
    record = {"agent": "claude", "version": version,
              "how": "claude -p go, unshare -n, the Messages API stand-in; the hook installed by "
                     "`forge-tools hook install --runtime claude` for with_hook",
              "settings": {"allow": ["Bash"], "deny": ["Bash(rm:*)"]}, **runs}
    record = json.loads(json.dumps(record).replace(str(scratch), "$SCRATCH"))
    out = HERE / f"claude-{version}.json"
    out.write_text(json.dumps(record, indent=2) + "\n")
    for label in runs:
        print(f"{label}: " + ", ".join(f"{c['command']!r} ran={c['ran']}" for c in runs[label]["calls"]))
    print(f"wrote {out}")
    shutil.rmtree(scratch, ignore_errors=True)
    return 0


def _failures(project: Path, env: dict[str, str], standin: object, scratch: Path, version: str) -> int:
    from failures import FAILURES, failing, shown  # type: ignore[import-not-found]

    subprocess.run([str(FORGE), "hook", "install", "--runtime", "claude"], cwd=project, env=env, check=True)
    settings = project / ".claude" / "settings.json"
    installed = json.loads(settings.read_text())
    hook = installed["hooks"]["PreToolUse"][0]["hooks"][0]["command"]
    found = {}
    for name, how in FAILURES.items():
        data = json.loads(json.dumps(installed))
        data["hooks"]["PreToolUse"][0]["hooks"][0]["command"] = failing(how, hook)
        settings.write_text(json.dumps(data, indent=2))
        run = _run(project, env, standin, scratch, [ALLOWED])
        found[name] = {**run["calls"][0], "hook_command": shown(how, "claude"), "audit": run["audit"]}
        print(name, found[name]["ran"], found[name]["tool_result"])
    return _keep(standin, scratch, version, "failures", found)



def _keep(standin: object, scratch: Path, version: str, part: str, observed: object) -> int:
    """Stop the model stand-in, merge what was observed into the version's record as `part` (the
    scratch folder's path written as `$SCRATCH`), and remove the scratch folder."""
    from failures import merge_record  # type: ignore[import-not-found]

    standin.stop()  # type: ignore[attr-defined]
    merge_record(HERE / f"claude-{version}.json", part,
                 json.loads(json.dumps(observed).replace(str(scratch), "$SCRATCH")))
    shutil.rmtree(scratch, ignore_errors=True)
    return 0


def _sandbox(project: Path, env: dict[str, str], standin: object, scratch: Path, version: str) -> int:
    """`hook install --sandbox`: an allowed call writing into `work/` and into `.claude/` runs rewritten
    inside `run`'s sandbox (the first write happens, the second fails: read-only)."""
    subprocess.run([str(FORGE), "hook", "install", "--runtime", "claude", "--sandbox"], cwd=project, env=env,
                   check=True)
    (project / "work").mkdir()
    run = _run(project, env, standin, scratch, [SANDBOXED])
    call = {**run["calls"][0], "ran": (project / "work" / "kept.txt").exists(),
            "config_written": (project / ".claude" / "probe").exists(), "audit": run["audit"]}
    print(call)
    return _keep(standin, scratch, version, "sandbox", call)


def _asks(project: Path, env: dict[str, str], standin: object, scratch: Path, version: str) -> int:
    """The agent's own asks with the hook installed: each asked call is still refused by `claude -p`
    (nobody to ask), as without the hook, and its effect does not happen; the allowed call runs."""
    (project / ".claude" / "settings.json").write_text(json.dumps({"permissions": ASK_SETTINGS}, indent=2))
    runs: dict[str, object] = {"settings": ASK_SETTINGS}
    for label in ("without_hook", "with_hook"):
        if label == "with_hook":
            subprocess.run([str(FORGE), "hook", "install", "--runtime", "claude"], cwd=project, env=env,
                           check=True)
        for made in ASKED.values():
            shutil.rmtree(project / made, ignore_errors=True)
            (project / made).unlink(missing_ok=True)
        run: dict[str, Any] = _run(project, env, standin, scratch, list(ASKED))
        runs[label] = [{**call, "ran": (project / ASKED[call["command"]]).exists(),
                        "asked": call["command"] != ALLOWED,
                        "audit": [a for a in run["audit"] if a["subject"] == call["command"]]}
                       for call in run["calls"]]
        print(label, runs[label])
    return _keep(standin, scratch, version, "asks", runs)


def _ask_rewrite(project: Path, env: dict[str, str], standin: object, scratch: Path, version: str) -> int:
    """`--sandbox` and an ask of the gate: Claude asks about the sandboxed line (`updatedInput` beside
    `permissionDecision: "ask"`), and the approved call runs inside the sandbox."""
    from standin import Script  # type: ignore[import-not-found]

    rules = {"ask": ["Bash(touch:*)"], "deny": ["Bash(rm:*)"]}
    (project / ".claude" / "settings.json").write_text(json.dumps({"permissions": rules}, indent=2))
    subprocess.run([str(FORGE), "hook", "install", "--runtime", "claude", "--sandbox"], cwd=project, env=env,
                   check=True)
    asked = scratch / "asked.jsonl"
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": {"approver": {
        "command": sys.executable, "args": [str(HERE / "approver.py"), str(asked)]}}}))
    state = Path(env["CLAUDE_CONFIG_DIR"]) / ".claude.json"
    data = json.loads(state.read_text())
    data["projects"][str(project)]["enabledMcpjsonServers"] = ["approver"]
    state.write_text(json.dumps(data))
    (project / "work").mkdir()
    audit = scratch / "data" / "hook-audit.jsonl"
    audit.unlink(missing_ok=True)
    # held back until the approver's MCP server is connected
    script = Script([{"tool": "Bash", "input": {"command": SANDBOXED, "description": "step"}}],
                    first_delay=3.0)
    standin.use(script)  # type: ignore[attr-defined]
    run_env = dict(env, ANTHROPIC_BASE_URL=f"http://127.0.0.1:{standin.port}",  # type: ignore[attr-defined]
                   ANTHROPIC_API_KEY="sk-ant-placeholder-not-a-key")
    proc = subprocess.run([str(CLAUDE), "-p", "go", "--output-format", "stream-json", "--verbose",
                           "--permission-prompt-tool", "mcp__approver__approve"], cwd=project, env=run_env,
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=300)
    prompts = [json.loads(x) for x in asked.read_text().splitlines()] if asked.exists() else []
    results = list(script.tool_results)
    lines = [json.loads(x) for x in audit.read_text().splitlines()] if audit.exists() else []
    call = {"command": SANDBOXED, "settings": rules, "exit_code": proc.returncode,
            "asked_about": [p["input"].get("command") for p in prompts],
            "ran": (project / "work" / "kept.txt").exists(),
            "config_written": (project / ".claude" / "probe").exists(),
            "tool_result": json.dumps(results[0].get("content")) if results and isinstance(results[0], dict)
            else None,
            "audit": [{"tool": a.get("tool"), "subject": a.get("subject"), "action": a.get("action"),
                       **{k: a[k] for k in ("sandbox",) if k in a}} for a in lines]}
    print(call)
    return _keep(standin, scratch, version, "ask_rewrite", call)


def _run(project: Path, env: dict[str, str], standin: object, scratch: Path,
         only: list[str] | None = None) -> dict[str, object]:
    """One `claude -p` run of every spelling and the allowed call (`only`: just these commands, none of
    them a spelling); what ran, and the hook's log."""
    from standin import Script  # type: ignore[import-not-found]

    commands = only or [s.format(v=f"victim{i}.txt") for i, s in enumerate(SPELLINGS)] + [ALLOWED]
    for i in range(len(SPELLINGS)):
        (project / f"victim{i}.txt").write_text("keep me\n")
    (project / "allowed.txt").unlink(missing_ok=True)
    audit = scratch / "data" / "hook-audit.jsonl"
    audit.unlink(missing_ok=True)
    script = Script([{"tool": "Bash", "input": {"command": c, "description": "step"}} for c in commands])
    standin.use(script)  # type: ignore[attr-defined]
    run_env = dict(env, ANTHROPIC_BASE_URL=f"http://127.0.0.1:{standin.port}",  # type: ignore[attr-defined]
                   ANTHROPIC_API_KEY="sk-ant-placeholder-not-a-key")
    proc = subprocess.run([str(CLAUDE), "-p", "go", "--output-format", "stream-json", "--verbose"],
                          cwd=project, env=run_env, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=300)
    if proc.returncode:
        print(proc.stderr[-2000:], proc.stdout[-2000:])
    results = list(script.tool_results)
    calls = []
    for i, command in enumerate(commands):
        result = results[i] if i < len(results) else None
        ran = ((project / "allowed.txt").exists() if command == ALLOWED
               else not (project / f"victim{i}.txt").exists())
        calls.append({"command": command, "ran": ran,
                      "tool_result": json.dumps(result.get("content")) if isinstance(result, dict) else None})
    lines = [json.loads(x) for x in audit.read_text().splitlines()] if audit.exists() else []
    return {"exit_code": proc.returncode, "calls": calls,
            "audit": [{"tool": a.get("tool"), "subject": a.get("subject"), "action": a.get("action"),
                       **{k: a[k] for k in ("error", "sandbox", "agent_allows") if k in a}} for a in lines]}


if __name__ == "__main__":
    sys.exit(main())
