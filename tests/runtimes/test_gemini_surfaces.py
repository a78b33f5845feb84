"""Gemini CLI 0.61 through forge-tools' surfaces: which runtime answers, `agents --runtimes`,
`explain --call` with Gemini's tool names and `--runtime all`, the vocabulary column, the settings
reader's layers and locations. (Gemini's answers themselves are checked against its library in
tests/compat/test_gemini_runtime.py.)"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import forge_tools
from forge_tools.runtimes import runtime_for
from forge_tools.runtimes.gemini.runtime import gemini_call
from forge_tools.runtimes.gemini.settings import read_settings

TEAM = '''[[rule]]
toolName = "run_shell_command"
commandPrefix = "git push"
decision = "deny"
priority = 200
'''


@pytest.fixture
def gemini_project(project: Path, gemini_home: Path) -> Path:
    (project / ".gemini").mkdir()
    (project / ".gemini" / "settings.json").write_text(json.dumps(
        {"tools": {"allowed": ["run_shell_command(npm test)"], "exclude": ["web_fetch"]}}, indent=2))
    (gemini_home / ".gemini" / "policies" / "team.toml").write_text(TEAM)
    return project


def test_gemini_files_alone_choose_gemini_and_an_opencode_file_beside_them_chooses_opencode(
        gemini_project: Path) -> None:
    loaded = forge_tools.load_project(gemini_project)
    chosen = runtime_for(loaded)
    assert chosen.runtime.name == "gemini" and "Gemini CLI files only" in chosen.chosen_by
    (gemini_project / "opencode.json").write_text(json.dumps({"permission": {"bash": "ask"}}))
    loaded = forge_tools.load_project(gemini_project)
    assert runtime_for(loaded).runtime.name == "opencode"


def test_settings_entries_are_located_and_compiled_to_user_tier_priorities(gemini_project: Path) -> None:
    settings = read_settings(gemini_project)
    allowed = next(r for r in settings.rules if r.source == "Settings (Tools Allowed)")
    assert allowed.priority == pytest.approx(4.3) and allowed.origin is not None
    assert (allowed.origin.line, allowed.origin.column) == (4, 7)
    narrowing = next(r for r in settings.rules if "Narrowing" in r.source)
    assert narrowing.decision == "deny" and narrowing.priority == pytest.approx(4.29)
    toml = next(r for r in settings.rules if r.source == "User: team.toml")
    assert toml.priority == pytest.approx(4.2) and toml.origin is not None and toml.origin.line == 1


def test_an_untrusted_folder_drops_the_workspace_settings(gemini_project: Path,
                                                          isolated_env: dict[str, Path]) -> None:
    (isolated_env["home"] / ".gemini" / "trustedFolders.json").unlink()
    settings = read_settings(gemini_project)
    workspace = next(f for f in settings.files if f.layer == "workspace")
    assert not settings.trusted and not workspace.loaded and "not trusted" in (workspace.why_not or "")
    assert not any(r.source.startswith("Settings (Tools Allowed)") for r in settings.rules)


def test_calls_are_put_in_geminis_words() -> None:
    assert gemini_call("bash", {"command": "ls"}) == ("run_shell_command", {"command": "ls"})
    assert gemini_call("Read", {"file_path": "a"}) == ("read_file", {"file_path": "a"})
    assert gemini_call("read_file", {"file_path": "a"}) == ("read_file", {"file_path": "a"})
    assert gemini_call("mcp__gh__create_issue", {})[0] == "mcp_gh_create_issue"


def test_agents_lists_gemini_and_its_files(cli, gemini_project: Path) -> None:
    code, out, err = cli("agents", "--runtimes")
    assert code == 0, err
    assert "Gemini CLI 0.61.0" in out and ".gemini/settings.json" in out and "team.toml" in out


def test_explain_takes_a_gemini_tool_and_names_the_deciding_rule(cli, gemini_project: Path) -> None:
    code, out, err = cli("explain", "run_shell_command", "--call", '{"command": "git status"}',
                         "--format", "json")
    assert code == 0, err
    data = json.loads(out)
    answer = data["call"]["runtime"]
    assert answer["runtime"] == "gemini" and answer["action"] == "deny"
    assert "Narrowing Enforcement" in answer["reason"]


def test_explain_all_runtimes_answers_for_gemini(cli, gemini_project: Path) -> None:
    (gemini_project / "opencode.json").write_text(json.dumps({"permission": {"bash": {"*": "allow"}}}))
    code, out, err = cli("explain", "bash", "--call", '{"command": "npm test"}', "--runtime", "all")
    assert code == 0, err
    assert "Gemini CLI allow" in out and "[as run_shell_command]" in out
    assert "settings.json:4:7" in out


def test_rules_lists_the_policy_rules_by_priority_and_what_is_not_loaded(cli, gemini_project: Path) -> None:
    (gemini_project / ".gemini" / "policies").mkdir()
    (gemini_project / ".gemini" / "policies" / "ws.toml").write_text(TEAM)
    code, out, err = cli("rules")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].startswith("Answering: Gemini CLI 0.61.0 (config: Gemini CLI files only")
    assert lines[1].startswith("Gemini CLI 0.61.0") and "folder trusted" in lines[1]
    order = [line.split()[0] for line in lines[4:8]]
    assert order == ["4.4", "4.3", "4.29", "4.2"]
    assert "ws.toml: workspace policies are disabled" in out
    data = json.loads(cli("rules", "--format", "json")[1])
    assert data["runtime"]["name"] == "gemini" and data["not_loaded"][0]["path"].endswith("ws.toml")


def test_layers_names_the_rule_that_hides_a_tool(cli, gemini_project: Path) -> None:
    code, out, err = cli("layers")
    assert code == 0, err
    row = next(line for line in out.splitlines() if line.startswith("web_fetch"))
    assert "HIDDEN by tools.exclude 'web_fetch'" in row and "settings.json:7:7" in row
    (gemini_project / "opencode.json").write_text(json.dumps({"permission": {"bash": "allow"}}))
    code, out, err = cli("layers", "--matrix", "--runtimes", "--no-mcp")
    assert code == 0, err
    header, webfetch = out.splitlines()[1], next(x for x in out.splitlines() if x.startswith("webfetch"))
    assert header.rstrip().endswith("Gemini CLI 0.61.0") and webfetch.rstrip().endswith("hidden")


def test_library_call_answers_in_geminis_words(gemini_project: Path) -> None:
    both = forge_tools.call_answers(gemini_project, "run_shell_command", {"command": "npm test"})
    assert both.chosen.runtime.name == "gemini" and both.runtime.action == "allow"
    assert both.gate.checks and both.gate.checks[0].permission == "bash"
    across = forge_tools.answers_by_runtime(gemini_project, "bash", {"command": "git status"},
                                            runtimes=["gemini"])
    assert [e.action for e in across.entries] == ["deny"]
    assert "Narrowing Enforcement" in across.entries[0].answer.reason


def test_the_settings_approval_mode_is_used_in_a_trusted_folder(gemini_project: Path,
                                                                gemini_home: Path) -> None:
    (gemini_project / ".gemini" / "settings.json").write_text(
        json.dumps({"general": {"defaultApprovalMode": "auto_edit"}}))
    assert read_settings(gemini_project).mode == "autoEdit"
    assert read_settings(gemini_project, mode="default").mode == "default"
    (gemini_home / ".gemini" / "settings.json").write_text(
        json.dumps({"general": {"defaultApprovalMode": "plan"}}))
    (gemini_home / ".gemini" / "trustedFolders.json").unlink()
    assert read_settings(gemini_project).mode == "default"  # untrusted: overridden to default
    (gemini_home / ".gemini" / "settings.json").write_text(
        json.dumps({"general": {"defaultApprovalMode": "sometimes"}}))
    assert "invalid approval mode" in (read_settings(gemini_project).start_error or "")
