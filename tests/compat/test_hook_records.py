"""Replays of tests/compat/hooks/ (recorded by tests/compat/hooks/record.py from the real Claude Code
binary, offline): with `forge-tools hook` installed no spelling of a denied `rm` ran, the allowed call
did, and today's hook gives the same answer to every call the recorded one decided."""

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
