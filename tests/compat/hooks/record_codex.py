"""Record `forge-tools hook` inside the real Codex CLI binary, offline (issue 32 "Done when" 1).

Run by hand, never by the test suite: `nice -n 10 python tests/compat/hooks/record_codex.py`
(CODEX_BIN names the binary; default /work/agents/node_modules/.bin/codex). Re-executes itself under
`unshare -n`; per spelling of a denied `rm` (and one allowed call) one `codex exec --json
--dangerously-bypass-hook-trust go` run in a scratch project against the loopback Responses API
stand-in of tests/compat/codex/record.py, with the user's `~/.codex/rules/default.rules` forbidding
`rm`, `approval_policy = "never"`, `sandbox_mode = "danger-full-access"` and the hook installed by
`forge-tools hook install --runtime codex --scope user`. `--dangerously-bypass-hook-trust` stands in
for the `/hooks` review (Codex skips an unreviewed hook). Writes `codex-<version>.json`: per call,
whether its effect was observed, what the model was given back, and the hook's audit line.
`--failures`: only the allowed call, once per way the hook's command is made to fail (`failures.py`),
merged into the record as `failures`. `--sandbox`: the hook installed with `--sandbox`, one allowed
call writing into `work/` and into `.codex/`; merged into the record as `sandbox`.
`--asks`: under `approval_policy = "on-request"` and `sandbox_mode = "workspace-write"`, a call the
model asks to run outside Codex's sandbox (`sandbox_permissions: "require_escalated"`: Codex's own
approval) and a plain allowed one, without the hook and with it: the hook gives no decision, so Codex's
own answer stands (`codex exec` has nobody to ask: it rejects the escalation and nothing is made);
merged into the record as `asks`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "codex"))
sys.path.append(str(HERE))  # failures.py
CODEX = Path(os.environ.get("CODEX_BIN", "/work/agents/node_modules/.bin/codex"))
NS_FLAG = "FT_HOOK_CODEX_RECORDER_IN_NS"
FORGE = Path(sys.executable).with_name("forge-tools")
SPELLINGS = ["rm victim.txt", "/bin/rm victim.txt", "env rm victim.txt", "bash -c 'rm victim.txt'",
             "eval rm victim.txt", "echo victim.txt | xargs rm"]
ALLOWED = "touch victim-kept.txt"
SANDBOXED = "touch work/kept.txt; touch .codex/probe"
#: `--asks`: a call Codex itself asks about (not a known-safe command, under `approval_policy =
#: "untrusted"`), by the file it makes
ASKED = {"touch asked.txt": "asked.txt"}


def main() -> int:
    from failures import in_own_network  # type: ignore[import-not-found]

    code = in_own_network(str(Path(__file__).resolve()), NS_FLAG)
    if code is not None:
        return code
    from record import _StandIn  # type: ignore[import-not-found]

    version = subprocess.run([str(CODEX), "--version"], capture_output=True, text=True).stdout.split()[-1]
    stand_in = _StandIn()
    if "--failures" in sys.argv:
        from failures import FAILURES, merge_record, shown  # type: ignore[import-not-found]

        found = {name: {**_one(stand_in, ALLOWED, how), "hook_command": shown(how, "codex")}
                 for name, how in FAILURES.items()}
        merge_record(HERE / f"codex-{version}.json", "failures", found)
        return 0
    if "--asks" in sys.argv:
        from failures import merge_record  # type: ignore[import-not-found]

        runs: dict[str, Any] = {"config": 'approval_policy = "on-request"\n'
                                          'sandbox_mode = "workspace-write"\n',
                                "rules": 'prefix_rule(pattern=["rm"], decision="forbidden")'}
        for label, hook in (("without_hook", False), ("with_hook", True)):
            runs[label] = [{**_one(stand_in, command, approval="on-request", hook=hook,
                                   access="workspace-write", escalate=command in ASKED),
                            "asked": command in ASKED} for command in [*ASKED, ALLOWED]]
            print(label, runs[label])
        merge_record(HERE / f"codex-{version}.json", "asks", runs)
        return 0
    if "--sandbox" in sys.argv:
        from failures import merge_record  # type: ignore[import-not-found]

        call = _one(stand_in, SANDBOXED, sandbox=True)
        print(call)
        merge_record(HERE / f"codex-{version}.json", "sandbox", call)
        return 0
    calls = [_one(stand_in, command) for command in [*SPELLINGS, ALLOWED]]
    out = HERE / f"codex-{version}.json"
    out.write_text(json.dumps({"agent": "codex", "version": version, "how": (
        "codex exec --json --dangerously-bypass-hook-trust go, approval_policy never, danger-full-access, "
        "unshare -n, the Responses API stand-in; the hook installed by forge-tools hook install --runtime "
        "codex --scope user"), "rules": 'prefix_rule(pattern=["rm"], decision="forbidden")',
        "calls": calls}, indent=2) + "\n")
    print(f"wrote {out}")
    return 0


def _one(stand_in: Any, command: str, how: str | None = None, sandbox: bool = False,
         approval: str = "never", hook: bool = True, access: str = "danger-full-access",
         escalate: bool = False) -> dict[str, Any]:
    """One `codex exec` run making the call `command`, with the hook installed (`how`: its command made
    to fail that way, `failures.py`; `hook` False: without it) under `approval_policy = approval` and
    `sandbox_mode = access`; `escalate`: the model asks to run it outside Codex's sandbox."""
    with tempfile.TemporaryDirectory(prefix="ft-hook-codex-") as tmp:
        base = Path(tmp)
        project, home = base / "project", base / "home"
        for d in (project, home / ".codex" / "rules", base / "tmp"):
            d.mkdir(parents=True, exist_ok=True)
        subprocess.run(["git", "init", "-q", str(project)], check=True)
        (home / ".codex" / "rules" / "default.rules").write_text(
            'prefix_rule(pattern=["rm"], decision="forbidden")\n')
        (home / ".codex" / "config.toml").write_text(
            f'model = "gpt-5"\nmodel_provider = "standin"\napproval_policy = "{approval}"\n'
            f'sandbox_mode = "{access}"\n'
            f'[model_providers.standin]\nname = "standin"\nbase_url = "{stand_in.url}"\n'
            'wire_api = "responses"\nenv_key = "FT_STANDIN_KEY"\nrequest_max_retries = 0\n'
            'stream_max_retries = 0\n')
        (project / "victim.txt").write_text("keep me\n")
        env = {"PATH": os.environ["PATH"], "HOME": str(home), "CODEX_HOME": str(home / ".codex"),
               "TMPDIR": str(base / "tmp"), "LANG": "C.UTF-8", "RUST_BACKTRACE": "0",
               "FORGE_DATA_DIR": str(base / "data")}
        if hook:
            subprocess.run([str(FORGE), "hook", "install", "--runtime", "codex", "--scope", "user",
                            *(["--sandbox"] if sandbox else [])], cwd=project, env=env, check=True,
                           capture_output=True)
        for folder in (project / "work", project / ".codex"):
            folder.mkdir(exist_ok=True)
        if how is not None:
            from failures import failing  # type: ignore[import-not-found]

            hooks = home / ".codex" / "hooks.json"
            data = json.loads(hooks.read_text())
            entry = data["hooks"]["PreToolUse"][0]["hooks"][0]
            entry["command"] = failing(how, entry["command"])
            hooks.write_text(json.dumps(data, indent=2) + "\n")
        escalation = {"sandbox_permissions": "require_escalated", "justification": "make the file"}
        # tests/compat/codex/record.py's stand-in
        stand_in.calls, stand_in.outputs = [{"cmd": command, **(escalation if escalate else {})}], {}
        proc = subprocess.run([str(CODEX), "exec", "--json", "--dangerously-bypass-hook-trust", "go"],
                              capture_output=True, text=True, env=dict(env, FT_STANDIN_KEY="placeholder"),
                              timeout=180, cwd=project)
        ran = ((project / ASKED[command]).exists() if command in ASKED
               else (project / "victim-kept.txt").exists() if command == ALLOWED
               else (project / "work" / "kept.txt").exists() if command == SANDBOXED
               else not (project / "victim.txt").exists())
        audit = base / "data" / "hook-audit.jsonl"
        lines = [json.loads(x) for x in audit.read_text().splitlines()] if audit.exists() else []
        output = next(iter(stand_in.outputs.values()), None)
        said = {"command": command, "ran": ran, "rc": proc.returncode,
                "config_written": (project / ".codex" / "probe").exists(),
                "output": output.replace(str(base), "$SCRATCH")[:400] if output else None,
                "audit": [{"tool": a.get("tool"), "subject": a.get("subject"), "action": a.get("action"),
                           **{k: a[k] for k in ("error", "sandbox", "agent_allows") if k in a}}
                          for a in lines]}
        print(command, "ran" if ran else "did not run", [a.get("action") for a in lines], file=sys.stderr)
        if proc.returncode and os.environ.get("FT_RECORDER_DEBUG"):
            print(proc.stderr[-3000:], proc.stdout[-3000:], file=sys.stderr)
    return said


if __name__ == "__main__":
    sys.exit(main())
