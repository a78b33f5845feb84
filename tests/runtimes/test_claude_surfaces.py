"""The Claude Code runtime through forge-tools' surfaces: which runtime answers, `explain --call`,
`check --expect`, the library's `call_answers`, the settings reader's errors, and the gate beside
Claude's answer. (Claude's answers themselves are checked against its binary in
tests/compat/test_claude_runtime.py.)"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import forge_tools
from forge_tools.runtimes import runtime_for
from forge_tools.runtimes.claude.settings import read_settings

SETTINGS = {"permissions": {"allow": ["Bash(git *)", "Read(src/**)", "Bash(npm run test:*)"],
                            "deny": ["Bash(git push *)", "Read(./.env)", "WebFetch"]}}


@pytest.fixture
def claude_project(project: Path, isolated_env: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> Path:
    home = isolated_env["home"]
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    monkeypatch.setenv("FORGE_TOOLS_CLAUDE_MANAGED_DIR", str(home / "no-managed"))
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text(json.dumps(SETTINGS, indent=2))
    _trust(home, project, True)
    return project


def _trust(home: Path, project: Path, trusted: bool) -> None:
    (home / ".claude").mkdir(exist_ok=True)
    (home / ".claude.json").write_text(json.dumps(
        {"projects": {str(project): {"hasTrustDialogAccepted": trusted}}}))


def test_claude_files_alone_choose_claude_and_an_opencode_file_beside_them_chooses_opencode(
        claude_project: Path) -> None:
    loaded = forge_tools.load_project(claude_project)
    assert runtime_for(loaded).runtime.name == "claude"
    (claude_project / "opencode.json").write_text(json.dumps({"permission": {"bash": "ask"}}))
    loaded = forge_tools.load_project(claude_project)
    assert runtime_for(loaded).runtime.name == "opencode"  # the files choose, never a tool's name


def test_every_rule_is_located_and_the_untrusted_workspace_drops_project_allows(
        claude_project: Path, isolated_env: dict[str, Path]) -> None:
    settings = read_settings(claude_project)
    allow = next(r for r in settings.rules if r.text == "Bash(git *)")
    assert (allow.origin.line, allow.origin.column) == (4, 7)
    assert allow.loaded
    _trust(isolated_env["home"], claude_project, False)
    settings = read_settings(claude_project)
    allow = next(r for r in settings.rules if r.text == "Bash(git *)")
    deny = next(r for r in settings.rules if r.text == "Bash(git push *)")
    assert not allow.loaded and "trusted" in (allow.why_not or "")
    assert deny.loaded
    assert any("not been trusted" in n for n in settings.notes)


def test_a_settings_file_that_is_not_json_is_reported_with_its_position(claude_project: Path) -> None:
    (claude_project / ".claude" / "settings.local.json").write_text('{"permissions": {"allow": [1,]}}')
    settings = read_settings(claude_project)
    local = next(f for f in settings.files if f.scope == "local")
    assert local.tree is None and local.error is not None
    origin, message = next(p for p in settings.problems if p[0].path and "local" in p[0].path)
    assert origin.line == 1 and origin.column is not None
    assert "Claude Code skips" in message


def test_a_rule_claude_rejects_is_a_problem_at_the_rule(claude_project: Path) -> None:
    (claude_project / ".claude" / "settings.local.json").write_text(
        '{"permissions": {\n  "allow": ["bash(ls)", "WebFetch(https://x.org)"]}}')
    settings = read_settings(claude_project)
    rejected = [r for r in settings.rules if not r.loaded and r.why_not and "rejects" in r.why_not]
    assert {r.text for r in rejected} == {"bash(ls)", "WebFetch(https://x.org)"}
    assert all(r.origin.line == 2 for r in rejected)


def test_explain_call_gives_claudes_answer_with_the_rule_and_the_gate_beside(
        claude_project: Path, cli) -> None:  # type: ignore[no-untyped-def]
    code, out, _ = cli("explain", "Bash", "--call", '{"command": "git status && git push origin main"}',
                       "--format", "json")
    assert code == 0
    data = json.loads(out)
    call = data["call"]
    assert data["runtime"]["name"] == "claude"
    assert call["runtime"]["action"] == "deny"
    assert call["runtime"]["reason_type"] == "subcommandResults"
    assert call["runtime"]["deciding_rule"]["origin"]["line"] == 9
    assert call["gate"]["action"] == "deny"
    code, out, _ = cli("explain", "Bash", "--call", '{"command": "ls -la"}')
    assert "ALLOW" in out and "read-only" in out
    assert "forge-tools run would ask first" in out  # the gate has no read-only set: it asks


def test_explain_reproduces_the_option_before_subcommand_weakness(claude_project: Path, cli) -> None:  # type: ignore[no-untyped-def]
    _code, out, _ = cli("explain", "Bash", "--call", '{"command": "git -C . push origin main"}',
                       "--format", "json")
    data = json.loads(out)
    assert data["call"]["runtime"]["action"] == "allow"  # as the binary: `Bash(git *)` allows it


def test_a_bare_deny_hides_the_tool(claude_project: Path, cli) -> None:  # type: ignore[no-untyped-def]
    code, out, _ = cli("explain", "WebFetch", "--call", '{"url": "https://x.org", "prompt": "p"}')
    assert code == 0
    assert "Offered to the model: NO" in out and "DENY" in out


def test_a_claude_tool_name_in_an_opencode_project_is_opencodes_bash(project: Path, cli,  # type: ignore[no-untyped-def]
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    (project / "opencode.json").write_text(json.dumps({"permission": {"bash": {"rm *": "deny"}}}))
    code, out, err = cli("explain", "Bash", "--call", '{"command": "rm -rf x"}')
    assert code == 0, err
    assert out.startswith("Answering: opencode 1.18.33 (config: opencode's files only)")
    assert "translated: Bash is bash in opencode's words" in out and "Call: DENY" in out


def test_check_expect_asserts_claudes_answer(claude_project: Path, cli) -> None:  # type: ignore[no-untyped-def]
    (claude_project / "expect.yaml").write_text(
        '- {call: {tool: Bash, args: {command: "timeout 5 git push origin main"}}, expect: deny}\n'
        '- {call: {tool: Read, args: {file_path: "config/.env"}}, expect: deny, runtime: claude}\n'
        '- {call: {tool: Bash, args: {command: "npm run test:unit"}}, expect: allow}\n'
        '- {call: {tool: Bsh, args: {command: "x"}}, expect: deny}\n')
    code, out, _ = cli("check", "--expect", "expect.yaml", "--select", "FT2", "--format", "json")
    data = json.loads(out)
    results = data["expectations"]["results"]
    assert [o["passed"] for o in results] == [True, True, False, False], results
    assert "got ask" in results[2]["explanation"]  # `:*` is a prefix with a word boundary
    assert "Claude Code 2.1.332 has no tool 'Bsh'" in out
    assert code == 1


def test_the_library_answers_for_claude(claude_project: Path) -> None:
    both = forge_tools.call_answers(claude_project, "Read", {"file_path": str(claude_project / "a/.env")})
    assert both.chosen.runtime.name == "claude"
    assert both.runtime.action == "deny"
    assert both.runtime.deciding_rule is not None and both.runtime.deciding_rule.pattern == "./.env"
    both = forge_tools.call_answers(claude_project, "Bash", {"command": "rm -rf build"}, runtime="claude")
    assert both.runtime.action == "ask"


def test_check_reports_claude_findings_at_their_rules(claude_project: Path, cli, isolated_env) -> None:  # type: ignore[no-untyped-def]
    settings = {"permissions": {
        "allow": ["Bash(git *)", "Bash(git status)", "Write(src/**)", "Bash(touch a:* b)"],
        "deny": ["Bash(git push *)", "Bash(git)", "Webfetch", "Bash(git * push:*)"],
        "ask": ["bash(ls)"]}}
    (claude_project / ".claude" / "settings.json").write_text(json.dumps(settings, indent=1))
    code, out, _ = cli("check", "--select", "FT3", "--format", "json")
    found = [(f["code"], f["location"]["line"]) for f in json.loads(out)["findings"]]
    lines = {text: i + 1 for i, text in enumerate(
        (claude_project / ".claude" / "settings.json").read_text().splitlines())}

    def line_of(rule: str) -> int:
        return next(n for text, n in lines.items() if json.dumps(rule) in text)

    assert ("FT301", line_of("bash(ls)")) in found
    assert ("FT302", line_of("Bash(touch a:* b)")) in found
    assert ("FT302", line_of("Bash(git * push:*)")) in found
    assert ("FT303", line_of("Write(src/**)")) in found
    assert ("FT305", line_of("Webfetch")) in found
    assert ("FT306", line_of("Bash(git status)")) not in found  # `Bash(git)` is exact: `git` alone
    forms = next(f for f in json.loads(out)["findings"] if f["code"] == "FT307")
    assert "git -C . push x" in forms["data"]["forms"]  # allowed by Bash(git *), as the binary does
    assert forms["location"]["line"] == line_of("Bash(git push *)")
    assert code == 1  # FT301 is an error
    _trust(isolated_env["home"], claude_project, False)
    _code, out, _ = cli("check", "--select", "FT304", "--format", "json")
    assert {f["location"]["line"] for f in json.loads(out)["findings"]} == {
        line_of(r) for r in ("Bash(git *)", "Bash(git status)", "Write(src/**)", "Bash(touch a:* b)")}


def test_an_allow_inside_a_deny_never_decides(claude_project: Path, cli) -> None:  # type: ignore[no-untyped-def]
    (claude_project / ".claude" / "settings.local.json").write_text(json.dumps(
        {"permissions": {"deny": ["Bash(npm *)"], "allow": ["Bash(npm run test:*)", "Bash(npm ci)"]}}))
    _code, out, _ = cli("check", "--select", "FT306", "--format", "json")
    messages = [f["message"] for f in json.loads(out)["findings"]]
    assert any("'Bash(npm run test:*)'" in m for m in messages)
    assert any("'Bash(npm ci)'" in m for m in messages)


def test_rules_layers_and_agents_answer_for_claude(claude_project: Path, cli) -> None:  # type: ignore[no-untyped-def]
    _code, out, _ = cli("rules", "--format", "json")
    data = json.loads(out)
    assert data["runtime"]["name"] == "claude"
    deny = next(r for r in data["rules"] if r["rule"] == "WebFetch")
    assert (deny["behavior"], deny["origin"]["line"], deny["loaded"]) == ("deny", 11, True)
    _code, out, _ = cli("layers", "--format", "json")
    tools = {t["tool"]: t for t in json.loads(out)["tools"]}
    assert not tools["WebFetch"]["offered"] and tools["WebFetch"]["hidden_by"]["rule"] == "WebFetch"
    assert tools["Bash"]["offered"] and "Grep" not in tools
    (claude_project / "opencode.json").write_text(json.dumps({"permission": {"bash": "ask"}}))
    _code, out, _ = cli("agents", "--format", "json")
    runtimes = {r["name"]: r for r in json.loads(out)["runtimes"]}
    assert runtimes["opencode"]["default"] and not runtimes["claude"]["default"]
    assert runtimes["claude"]["files"] == [str(claude_project / ".claude" / "settings.json")]
    assert json.loads(out)["agents"]  # opencode's agents are still listed
    _code, out, _ = cli("rules", "--format", "json")
    assert "agent" in json.loads(out)  # opencode's rules with both configs present
    _code, out, _ = cli("rules", "--runtime", "claude")
    assert "Claude Code 2.1.332" in out and "settings.json:11:" in out


def test_diff_shows_claude_rule_and_answer_changes(claude_project: Path, cli) -> None:  # type: ignore[no-untyped-def]
    import os
    import shutil
    import subprocess

    shutil.rmtree(claude_project / ".git")
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}

    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=claude_project, check=True, capture_output=True, env=env)

    git("init", "-q")
    git("add", ".claude/settings.json")
    git("commit", "-qm", "base")
    changed = {"permissions": {"allow": ["Bash(git *)", "Bash(git push *)"], "deny": ["Read(./.env)"]}}
    (claude_project / ".claude" / "settings.json").write_text(json.dumps(changed, indent=2))
    (claude_project / "expect.yaml").write_text(
        '- {call: {tool: Bash, args: {command: "git push origin main"}}, expect: deny}\n')
    _code, out, _ = cli("diff", "--base", "HEAD", "--expect", "expect.yaml", "--format", "json")
    data = json.loads(out)
    rules = {(r["scope"], r["change"], r["rule"]) for r in data["rules"]}
    assert ("claude:project", "removed", "Bash(git push *)") in rules
    assert ("claude:project", "added", "Bash(git push *)") in rules  # now an allow
    assert ("claude:project", "removed", "WebFetch") in rules
    # both sides' locations relative to their own root (the old side's temporary checkout is gone)
    claude = [r for r in data["rules"] if r["scope"] == "claude:project"]
    assert all((r["old_location"] or r["new_location"]).startswith(".claude/settings.json:") for r in claude)
    call = next(c for c in data["calls"] if c["agent"] == "Claude Code")
    assert (call["old"], call["new"]) == ("deny", "allow")


def test_a_forge_tools_call_in_a_claude_project_is_claudes(  # type: ignore[no-untyped-def]
        claude_project: Path, cli) -> None:
    """Issue 28: the project's files choose the answering agent, whatever the spelling or the agent."""
    (claude_project / "expect.yaml").write_text(
        '- {agent: build, call: {tool: bash, args: {command: "git push origin main"}}, expect: deny}\n'
        '- {call: {tool: Bash, args: {command: "git push origin main"}}, expect: deny}\n'
        '- {call: {tool: run_shell_command, args: {command: "git push origin main"}}, expect: deny}\n')
    _code, out, _ = cli("check", "--expect", "expect.yaml", "--format", "json")
    results = json.loads(out)["expectations"]["results"]
    assert [r["passed"] for r in results] == [True, True, True], results
    assert all("claude 2.1.332" in r["explanation"] for r in results)


def test_explain_of_any_spelling_in_a_claude_project_is_claudes(  # type: ignore[no-untyped-def]
        claude_project: Path, cli) -> None:
    for tool in ("bash", "Bash", "exec_command", "run_shell_command"):
        code, out, _ = cli("explain", tool, "--call", '{"command": "git push origin main"}', "--format",
                           "json")
        assert code == 0
        data = json.loads(out)
        assert data["runtime"]["name"] == "claude" and data["call"]["action"] == "deny", tool
        code, out, _ = cli("explain", tool, "--call", '{"command": "git push origin main"}')
        assert out.startswith("Answering: Claude Code 2.1.332 (config: Claude Code files only"), out


def test_a_bare_bash_deny_offers_grep_and_glob_in_layers_and_explain_alike(  # type: ignore[no-untyped-def]
        claude_project: Path, cli) -> None:
    """Claude Code 2.1.332 offers Grep and Glob when a bare deny removes Bash, and decides them like
    Read (recorded, bare-bash-deny-grep-glob): the matrix cell and the call's answer agree."""
    (claude_project / ".claude" / "settings.json").write_text(
        json.dumps({"permissions": {"deny": ["Bash", "Read(./.env)"]}}))
    code, out, err = cli("layers", "--matrix", "--runtimes", "--no-mcp", "--format", "json")
    assert code == 0, err
    matrix = json.loads(out)["runtimes"][0]["matrix"]
    assert matrix["grep"] == "allow" and matrix["glob"] == "allow" and matrix["bash"] == "hidden"
    code, out, err = cli("explain", "Grep", "--call", '{"pattern": "x"}', "--runtime", "claude")
    assert code == 0, err
    assert "Call decision: ALLOW" in out and "does not offer" not in out, out
    code, out, err = cli("explain", "Grep", "--call", json.dumps({"pattern": "x", "path": ".env"}),
                         "--runtime", "claude")
    assert "Call decision: DENY" in out and "Read(./.env)" in out, out
    code, out, err = cli("explain", "Glob", "--call", '{"pattern": "*", "path": "/etc"}',
                         "--runtime", "claude")
    assert "Call decision: ASK" in out, out
