"""Replays of tests/compat/hooks/ (recorded by tests/compat/hooks/record*.py from the real Claude Code,
Codex CLI, Gemini CLI and opencode binaries, offline): with `forge-tools hook` installed no spelling of a
denied `rm` ran, the allowed call did, and today's hook gives the same answer to every call the recorded
one decided; for Gemini CLI also each failure of the hook ended in a deny, and `--sandbox`'s rewrite ran
inside the sandbox."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

RECORDS = sorted((Path(__file__).parent / "hooks").glob("claude-*.json"))


@pytest.fixture(params=RECORDS, ids=[p.stem for p in RECORDS])
def record(request: pytest.FixtureRequest) -> dict:  # type: ignore[type-arg]
    return json.loads(request.param.read_text())  # type: ignore[no-any-return]


def test_with_the_hook_no_denied_spelling_ran_and_the_allowed_call_did(  # type: ignore[type-arg]
        record: dict) -> None:
    calls = record["with_hook"]["calls"]
    denied, allowed = calls[:-1], calls[-1]
    assert not [c["command"] for c in denied if c["ran"]]
    assert allowed["ran"]
    actions = {a["subject"]: a["action"] for a in record["with_hook"]["audit"]}
    for call in denied:
        if actions[call["command"]] == "deny":  # the hook's reason, with the rule's file:line
            assert "hook error: forge-tools:" in call["tool_result"]
            assert "settings.json:" in call["tool_result"]
        else:  # the hook's ask, which `claude -p` cannot put to anyone: refused
            assert actions[call["command"]] == "ask" and "has been denied" in call["tool_result"]


def test_without_the_hook_claude_s_own_reading_ran_a_spelling(record: dict) -> None:  # type: ignore[type-arg]
    ran = [c["command"] for c in record["without_hook"]["calls"][:-1] if c["ran"]]
    assert ran == ["eval rm victim11.txt"]  # what the hook is there for (Claude Code 2.1.332)


def test_today_s_hook_answers_every_recorded_call_as_the_recorded_one(  # type: ignore[type-arg]
        record: dict, project: Path) -> None:
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text(json.dumps({"permissions": record["settings"]}))
    audit = record["with_hook"]["audit"]
    assert len(audit) == len(record["with_hook"]["calls"])
    for line in audit:
        payload = {"cwd": str(project), "hook_event_name": "PreToolUse", "tool_name": line["tool"],
                   "tool_input": {"command": line["subject"], "description": "step"}}
        out = subprocess.run([sys.executable, "-m", "forge_tools", "hook", "--runtime", "claude"],
                             input=json.dumps(payload), capture_output=True, text=True, env=dict(os.environ),
                             timeout=60).stdout
        action = json.loads(out)["hookSpecificOutput"]["permissionDecision"] if out else "none"
        assert action == line["action"], line


CODEX_RECORDS = sorted((Path(__file__).parent / "hooks").glob("codex-*.json"))


@pytest.mark.parametrize("path", CODEX_RECORDS, ids=[p.stem for p in CODEX_RECORDS])
def test_codex_with_the_hook_no_denied_spelling_ran_and_today_s_hook_agrees(
        path: Path, project: Path, isolated_env: dict[str, Path]) -> None:
    record = json.loads(path.read_text())
    *denied, allowed = record["calls"]
    assert allowed["ran"] and not [c["command"] for c in denied if c["ran"]]
    for call in denied:
        assert call["output"].startswith("Command blocked by PreToolUse hook: forge-tools:")
        assert "default.rules:1:1" in call["output"]
    rules = isolated_env["home"] / ".codex" / "rules"
    rules.mkdir(parents=True)
    (rules / "default.rules").write_text(record["rules"] + "\n")
    for call in record["calls"]:
        (line,) = call["audit"]
        payload = {"cwd": str(project), "hook_event_name": "PreToolUse", "tool_name": line["tool"],
                   "tool_input": {"command": line["subject"]}}
        out = subprocess.run([sys.executable, "-m", "forge_tools", "hook", "--runtime", "codex"],
                             input=json.dumps(payload), capture_output=True, text=True, timeout=60).stdout
        action = json.loads(out)["hookSpecificOutput"]["permissionDecision"] if out else "none"
        assert action == line["action"], line


OPENCODE_RECORDS = sorted((Path(__file__).parent / "hooks").glob("opencode-*.json"))


@pytest.mark.parametrize("path", OPENCODE_RECORDS, ids=[p.stem for p in OPENCODE_RECORDS])
def test_opencode_with_the_shim_no_denied_spelling_ran_and_today_s_hook_agrees(path: Path,
                                                                               project: Path) -> None:
    record = json.loads(path.read_text())
    *denied, allowed = record["calls"]
    assert allowed["ran"] and not [c["command"] for c in denied if c["ran"]]
    for call in denied:  # the shim's throw is what the model got back
        assert call["output"].startswith("forge-tools: bash 'rm victim.txt': deny by rule bash 'rm *'")
    (project / "opencode.json").write_text(json.dumps({"permission": record["permission"]}))
    for call in record["calls"]:
        (line,) = call["audit"]
        payload = {"tool": line["tool"], "args": {"command": line["subject"]}, "cwd": str(project)}
        out = subprocess.run([sys.executable, "-m", "forge_tools", "hook", "--runtime", "opencode"],
                             input=json.dumps(payload), capture_output=True, text=True, timeout=60).stdout
        decision = json.loads(out)["decision"]
        assert decision == {"none": "allow"}.get(line["action"], line["action"]), line


GEMINI_RECORDS = sorted((Path(__file__).parent / "hooks").glob("gemini-*.json"))
HOOK_PROGRAM = f"{sys.executable} -m forge_tools hook --runtime gemini"


@pytest.fixture(params=GEMINI_RECORDS, ids=[p.stem for p in GEMINI_RECORDS])
def gemini_record(request: pytest.FixtureRequest) -> dict:  # type: ignore[type-arg]
    return json.loads(request.param.read_text())  # type: ignore[no-any-return]


def gemini_hook(command: str, project: Path, shell_command: str | None = None) -> str:
    payload = {"session_id": "s", "cwd": str(project), "hook_event_name": "BeforeTool",
               "tool_name": "run_shell_command", "tool_input": {"command": command, "description": "step"}}
    argv = ["sh", "-c", shell_command] if shell_command else HOOK_PROGRAM.split()
    # as recorded: the folder trusted (else Gemini reads neither the project's rules nor its hook)
    env = dict(os.environ, GEMINI_CLI_TRUST_WORKSPACE="true")
    return subprocess.run(argv, input=json.dumps(payload), capture_output=True, text=True, env=env,
                          timeout=60).stdout


def test_gemini_with_the_hook_no_denied_spelling_ran_and_the_allowed_call_did(  # type: ignore[type-arg]
        gemini_record: dict) -> None:
    *denied, allowed = gemini_record["with_hook"]
    assert allowed["ran"] and allowed["audit"][0]["action"] == "none"
    assert not [c["command"] for c in denied if c["ran"]]
    for call in denied:  # refused by the hook itself, with the rule's file:line, before Gemini's rules
        assert [a["action"] for a in call["audit"]] == ["deny"], call
        assert "Tool execution blocked: forge-tools: bash 'rm" in call["result"]
        assert "deny by rule bash 'rm *' at $SCRATCH/project/.gemini/settings.json:4:7" in call["result"]


def test_gemini_without_the_hook_ran_spellings_of_the_denied_command(gemini_record: dict) -> None:  # type: ignore[type-arg]
    *denied, allowed = gemini_record["without_hook"]
    assert allowed["ran"]
    # what the hook is there for: Gemini CLI 0.61.0 under `--approval-mode yolo` ran spellings of a
    # command its `tools.exclude` names (no hook ran: nothing is in the audit log)
    assert [c["command"] for c in denied if c["ran"]]
    assert not [a for c in gemini_record["without_hook"] for a in c["audit"]]


def test_gemini_today_s_hook_answers_every_recorded_call_as_the_recorded_one(  # type: ignore[type-arg]
        gemini_record: dict, project: Path) -> None:
    (project / ".gemini").mkdir()
    (project / ".gemini" / "settings.json").write_text(json.dumps(gemini_record["settings"]))
    for call in gemini_record["with_hook"]:
        (line,) = call["audit"]
        out = gemini_hook(line["subject"], project)
        assert (json.loads(out)["decision"] if out else "none") == line["action"], line


FAILURE_RECORDS = sorted(p for p in (Path(__file__).parent / "hooks").glob("*-*.json")
                         if "failures" in json.loads(p.read_text()))
RESULT_KEY = {"claude": "tool_result", "codex": "output", "gemini": "result", "opencode": "output"}


def _payload(agent: str, project: Path, command: str) -> dict[str, object]:
    if agent == "opencode":
        return {"tool": "bash", "args": {"command": command}, "cwd": str(project)}
    event = "BeforeTool" if agent == "gemini" else "PreToolUse"
    tool = "run_shell_command" if agent == "gemini" else "Bash"
    return {"cwd": str(project), "hook_event_name": event, "tool_name": tool,
            "tool_input": {"command": command}}


def _denied(agent: str, out: str) -> bool:
    answer = json.loads(out)
    if agent in ("claude", "codex"):
        return bool(answer["hookSpecificOutput"]["permissionDecision"] == "deny")
    return bool(answer["decision"] == "deny")


@pytest.mark.parametrize("path", FAILURE_RECORDS, ids=[p.stem for p in FAILURE_RECORDS])
def test_every_failure_of_the_hook_ended_in_a_deny_inside_the_agent(path: Path, project: Path) -> None:
    """A forced internal error, garbage on the hook's stdin, a truncated payload and a passed deadline:
    inside the real binary the allowed call did not run, the model was told the hook refused it, and
    today's hook failing the same way prints that agent's deny."""
    record = json.loads(path.read_text())
    agent = record["agent"]
    assert set(record["failures"]) == {"forced internal error", "garbage on stdin", "truncated payload",
                                       "deadline passed"}
    program = f"{sys.executable} -m forge_tools hook --runtime {agent}"
    for name, call in record["failures"].items():
        assert not call["ran"], name
        assert "forge-tools hook refused the call" in call[RESULT_KEY[agent]], name
        assert [a["action"] for a in call["audit"]] == ["deny"], name
        shell = call["hook_command"].replace(f"forge-tools hook --runtime {agent}", program)
        out = subprocess.run(["sh", "-c", shell], input=json.dumps(_payload(agent, project, call["command"])),
                             capture_output=True, text=True, timeout=60,
                             env=dict(os.environ, GEMINI_CLI_TRUST_WORKSPACE="true")).stdout
        assert _denied(agent, out), (name, out)


SANDBOX_RECORDS = sorted(p for p in (Path(__file__).parent / "hooks").glob("*-*.json")
                         if "sandbox" in json.loads(p.read_text()))
#: the agent's own line saying a hook rewrote the call, where it says one
REWRITE_SAID = {"gemini": "modified by a hook before execution"}


@pytest.mark.parametrize("path", SANDBOX_RECORDS, ids=[p.stem for p in SANDBOX_RECORDS])
def test_the_sandboxed_rewrite_ran_inside_the_sandbox_in_the_agent(path: Path) -> None:
    """`hook --sandbox` inside the real binary: the allowed call ran rewritten, inside `run`'s sandbox: its
    write into `work/` happened, the one into the agent's config folder failed (read-only there)."""
    record = json.loads(path.read_text())
    call = record["sandbox"]
    assert call["ran"] and not call["config_written"]
    said = call[RESULT_KEY[record["agent"]]]
    assert "Read-only file system" in said
    assert REWRITE_SAID.get(record["agent"], "") in said
    (line,) = call["audit"]
    assert line["action"] == "none" and line["sandbox"] == "rewritten"
    # with an allow only where the agent itself runs the call without asking (Gemini's asks, in yolo)
    assert line["agent_allows"] is (record["agent"] in ("claude", "codex"))


ASK_RECORDS = sorted(p for p in (Path(__file__).parent / "hooks").glob("*-*.json")
                     if "asks" in json.loads(p.read_text()))
#: how each agent's non-interactive mode shows its own ask (nobody there to approve it: refused), and
#: where the record keeps it
ASK_SAID = {"claude": ("tool_result", ("needs approval", "requested permissions")),
            "codex": ("output", ("you cannot ask for escalated permissions",)),
            "gemini": ("result", ("Tool execution denied by policy",)),
            "opencode": ("asked_line", ("permission requested: external_directory",))}


def _rules_as_recorded(agent: str, asks: dict, project: Path, home: Path) -> dict[str, str]:  # type: ignore[type-arg]
    """The rules of the `asks` recording, where the agent read them; the environment to add."""
    if agent == "claude":
        (project / ".claude").mkdir()
        (project / ".claude" / "settings.json").write_text(json.dumps({"permissions": asks["settings"]}))
    elif agent == "codex":
        (home / ".codex" / "rules").mkdir(parents=True)
        (home / ".codex" / "rules" / "default.rules").write_text(asks["rules"] + "\n")
        (home / ".codex" / "config.toml").write_text(asks["config"])
    elif agent == "gemini":
        (home / ".gemini" / "policies").mkdir(parents=True)
        (home / ".gemini" / "policies" / "user.toml").write_text(asks["policy"])
        (project / ".gemini").mkdir()
        (project / ".gemini" / "settings.json").write_text(json.dumps(asks["settings"]))
        return {"GEMINI_CLI_TRUST_WORKSPACE": "true"}
    else:
        (project / "opencode.json").write_text(json.dumps({"permission": asks["permission"]}))
    return {}


def _action(agent: str, out: str) -> str:
    """The hook's answer as the audit log words it (`none`: no decision; the opencode shim's allow)."""
    if not out:
        return "none"
    answer = json.loads(out)
    if agent in ("claude", "codex"):
        return str(answer["hookSpecificOutput"]["permissionDecision"])
    return {"allow": "none"}.get(answer["decision"], answer["decision"]) if agent == "opencode" \
        else str(answer["decision"])


@pytest.mark.parametrize("path", ASK_RECORDS, ids=[p.stem for p in ASK_RECORDS])
def test_the_agent_s_own_asks_still_ask_with_the_hook_installed(path: Path, project: Path,
                                                                isolated_env: dict[str, Path]) -> None:
    """Inside the real binary, with forge-tools' hook installed: a call the agent's own rules or modes
    put to the person is still put to them (its non-interactive mode, with nobody to ask, refuses it:
    the call's effect did not happen), as it was without the hook, because the hook gave no decision
    (never an allow) where the gate allows; the allowed call ran. Today's hook answers each call alike."""
    record = json.loads(path.read_text())
    agent, asks = record["agent"], record["asks"]
    key, phrases = ASK_SAID[agent]
    for label in ("without_hook", "with_hook"):
        asked = [c for c in asks[label] if c["asked"]]
        assert asked and all(not c["ran"] for c in asked), label
        for call in asked:
            assert any(p in (call[key] or "") for p in phrases), (label, call)
        assert all(c["ran"] for c in asks[label] if not c["asked"]), label
    hooked = asks["with_hook"]
    assert all(len(c["audit"]) == 1 for c in hooked)  # the hook ran for every call
    # where the gate allows the hook gave no decision (the agent asked by its own rules): an ask of
    # the agent's own kept, not made an allow; Claude's ask rule is the hook's `ask` too
    assert any(c["audit"][0]["action"] == "none" for c in hooked if c["asked"])
    assert {c["audit"][0]["action"] for c in hooked} <= {"none", "ask"}
    env = dict(os.environ, **_rules_as_recorded(agent, asks, project, isolated_env["home"]))
    for call in hooked:
        (line,) = call["audit"]
        out = subprocess.run([sys.executable, "-m", "forge_tools", "hook", "--runtime", agent],
                             input=json.dumps(_payload(agent, project, line["subject"])), capture_output=True,
                             text=True, env=env, timeout=60).stdout
        assert _action(agent, out) == line["action"], (line, out)


ASK_REWRITE_RECORDS = sorted(p for p in (Path(__file__).parent / "hooks").glob("claude-*.json")
                             if "ask_rewrite" in json.loads(p.read_text()))


@pytest.mark.parametrize("path", ASK_REWRITE_RECORDS, ids=[p.stem for p in ASK_REWRITE_RECORDS])
def test_claude_asks_about_the_sandboxed_line_and_runs_it_inside_once_approved(path: Path) -> None:
    """`hook --sandbox` and an ask (Claude Code 2.1.332): `updatedInput` beside `permissionDecision:
    "ask"` is taken; the person (the recorded approver) is asked about the bwrap line, and approved,
    that line runs: the write into `work/` made, the one into `.claude/` refused (read-only)."""
    call = json.loads(path.read_text())["ask_rewrite"]
    (asked,) = call["asked_about"]
    assert asked.split()[0].endswith("/bwrap") and asked.endswith(f"-- /bin/bash -c '{call['command']}'")
    assert call["ran"] and not call["config_written"]
    assert "Read-only file system" in call["tool_result"]
    (line,) = call["audit"]
    assert line["action"] == "ask" and line["sandbox"] == "rewritten"
