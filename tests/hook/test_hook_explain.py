"""`explain`, `explain --runtime all` and `check --expect` say when a forge-tools hook is installed for the
answering agent, and what it decides before the agent's own rules (issue 32 item 5): the runtimes read
the hook entries (`runtimes/hooks.py`) and ask the hook's own decision (`runtimes/hook_gate.py`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest


@pytest.fixture
def claude_repo(project: Path) -> Path:
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text(json.dumps(
        {"permissions": {"allow": ["Bash"], "deny": ["Bash(rm:*)"]}}, indent=2))
    return project


def explain_json(cli, *args: str) -> dict:  # type: ignore[no-untyped-def]
    code, out, err = cli("explain", *args, "--format", "json")
    assert code == 0, err
    return json.loads(out)  # type: ignore[no-any-return]


def test_explain_says_nothing_of_a_hook_until_one_is_installed(cli, claude_repo: Path) -> None:  # type: ignore[no-untyped-def]
    data = explain_json(cli, "bash", "--call", '{"command": "nice rm -rf build"}')
    assert data["hook"] is None
    _, out, _ = cli("explain", "bash", "--call", '{"command": "nice rm -rf build"}')
    assert "hook:" not in out


def test_explain_says_the_hook_denies_before_claudes_rules(cli, claude_repo: Path) -> None:  # type: ignore[no-untyped-def]
    assert cli("hook", "install", "--runtime", "claude")[0] == 0
    data = explain_json(cli, "bash", "--call", '{"command": "bash -c \'rm -rf build\'"}')
    hook = data["hook"]
    assert hook["runs"] is True and hook["action"] == "deny"
    assert hook["line"].startswith("a forge-tools hook denies this before Claude Code's rules: ")
    assert "rule bash 'rm *' at " in hook["reason"] and "settings.json:" in hook["reason"]
    code, out, _ = cli("explain", "Bash", "--call", '{"command": "bash -c \'rm -rf build\'"}')
    assert code == 0
    (line,) = [x for x in out.splitlines() if x.startswith("hook: ")]
    assert "denies this before Claude Code's rules" in line and "(hook at .claude/settings.json:" in line
    allowed = explain_json(cli, "bash", "--call", '{"command": "git status"}')["hook"]
    assert allowed["action"] is None and "gives no decision here" in allowed["line"]


def test_a_hook_whose_program_is_gone_is_said_not_to_run(cli, claude_repo: Path) -> None:  # type: ignore[no-untyped-def]
    settings = claude_repo / ".claude" / "settings.json"
    data = json.loads(settings.read_text())
    hook = {"type": "command", "command": "/nonexistent/forge-tools hook --runtime claude",
            "onFailure": "block"}
    data["hooks"] = {"PreToolUse": [{"matcher": "*", "hooks": [hook]}]}
    settings.write_text(json.dumps(data, indent=2))
    hook = explain_json(cli, "bash", "--call", '{"command": "rm x"}')["hook"]
    assert hook["runs"] is False and hook["action"] is None
    assert "does not run: its program /nonexistent/forge-tools does not exist" in hook["line"]


def test_runtime_all_and_check_expect_say_it_per_agent(cli, claude_repo: Path) -> None:  # type: ignore[no-untyped-def]
    (claude_repo / "opencode.json").write_text(json.dumps({"permission": {"bash": {"*": "allow",
                                                                                   "rm *": "deny"}}}))
    assert cli("hook", "install", "--runtime", "opencode")[0] == 0
    code, out, err = cli("explain", "bash", "--call", '{"command": "env rm x"}', "--runtime", "all")
    assert code == 0, err
    notes = [x for x in out.splitlines() if "hook: " in x]
    # opencode's own reading lets `env rm x` through (FT116); its hook does not
    assert any(x.startswith("note: opencode: hook: a forge-tools hook denies this before opencode's rules")
               for x in notes), out
    assert not any("Claude Code: hook:" in x for x in notes)  # none installed for Claude Code
    (claude_repo / "expect.yaml").write_text(
        "- {call: {tool: bash, args: {command: env rm x}}, expect: deny, runtime: all}\n"
        "- {call: {tool: bash, args: {command: env rm x}}, expect: allow, runtime: opencode, agent: build}\n")
    code, out, _ = cli("check", "--expect", "expect.yaml", "--select", "FT2", "--format", "json")
    results = json.loads(out)["expectations"]["results"]
    assert "hook: a forge-tools hook denies this before opencode's rules" in results[0]["explanation"]
    # opencode's own answer is still its own (allow); the line beside it says the hook refuses it
    assert results[1]["passed"] is True
    assert "hook: a forge-tools hook denies this before opencode's rules" in results[1]["explanation"]
