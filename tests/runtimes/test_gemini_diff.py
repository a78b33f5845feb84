"""`forge-tools diff` for Gemini CLI 0.61 on real git repositories: the rules the workspace settings
make and the policy rules added or removed (a `.gemini/policies` rule listed as not loaded), the
`--expect` calls whose Gemini answer flips (decided by the gemini runtime), the old checkout read with
the working tree's folder trust, and no Gemini rows for a project without Gemini files."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

OLD = {"tools": {"allowed": ["run_shell_command(npm test)"]}}
NEW = {"tools": {"allowed": ["run_shell_command(git status)"], "exclude": ["web_fetch"]}}
WORKSPACE_POLICY = '''[[rule]]
toolName = "run_shell_command"
commandPrefix = "rm"
decision = "deny"
priority = 100
'''
EXPECT = ('- {runtime: gemini, call: {tool: run_shell_command, args: {command: "npm test"}}, expect: allow}\n'
          '- {call: {tool: web_fetch, args: {prompt: "https://example.com"}}, expect: ask}\n'
          '- {call: {tool: read_file, args: {file_path: "README.md"}}, expect: allow}\n')


def _git(root: Path, *args: str) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, env=env)


@pytest.fixture
def gemini_repo(project: Path, gemini_home: Path) -> Path:
    """A committed `.gemini/settings.json` (OLD), then changed in the working tree (NEW) beside a new
    workspace policy file, and expectations about three Gemini calls."""
    (project / ".gemini").mkdir()
    settings = project / ".gemini" / "settings.json"
    settings.write_text(json.dumps(OLD, indent=2))
    _git(project, "init", "-q")
    _git(project, "add", ".gemini")
    _git(project, "commit", "-qm", "base")
    settings.write_text(json.dumps(NEW, indent=2))
    (project / ".gemini" / "policies").mkdir()
    (project / ".gemini" / "policies" / "ws.toml").write_text(WORKSPACE_POLICY)
    (project / "expect.yaml").write_text(EXPECT)
    return project


def _diff(cli: Any) -> dict[str, Any]:
    code, out, err = cli("diff", "--base", "HEAD", "--expect", "expect.yaml", "--format", "json")
    assert code in (0, 1), err
    return json.loads(out)  # type: ignore[no-any-return]


def _gemini_rules(data: dict[str, Any]) -> dict[tuple[str, str, str], dict[str, Any]]:
    return {(r["scope"], r["change"], r["rule"]): r for r in data["rules"]
            if r["scope"].startswith("gemini:")}


def test_diff_lists_workspace_settings_rules_and_policy_rules_added_and_removed(  # type: ignore[no-untyped-def]
        cli, gemini_repo: Path) -> None:
    rules = _gemini_rules(_diff(cli))
    removed = rules[("gemini:workspace", "removed",
                     "tools.allowed 'run_shell_command(npm test)': allow at 4.3 (Settings (Tools Allowed))")]
    assert removed["old_location"] == ".gemini/settings.json:4:7" and removed["old_action"] == "allow"
    added = rules[("gemini:workspace", "added",
                   "tools.allowed 'run_shell_command(git status)': allow at 4.3 (Settings (Tools Allowed))")]
    assert added["new_location"] == ".gemini/settings.json:4:7"
    exclude = next(r for k, r in rules.items() if k[1] == "added" and "tools.exclude 'web_fetch'" in k[2])
    assert exclude["new_action"] == "deny" and "4.4" in exclude["rule"]
    # the narrowing deny of every other shell call comes from the same entry, unchanged: no row
    assert not any("Narrowing" in k[2] for k in rules), rules
    policy = next(r for k, r in rules.items() if k[0] == "gemini:workspace" and "commandPrefix" in k[2])
    assert policy["change"] == "added" and policy["new_location"] == ".gemini/policies/ws.toml:1:1"
    assert "not loaded: workspace policies are disabled" in policy["rule"]
    assert len(rules) == 4, rules


def test_diff_names_the_expected_gemini_calls_whose_answer_flips(cli, gemini_repo: Path) -> None:  # type: ignore[no-untyped-def]
    calls = {c["call"]: c for c in _diff(cli)["calls"] if c["agent"] == "Gemini CLI"}
    npm = calls['run_shell_command {"command": "npm test"}']
    assert (npm["old"], npm["new"]) == ("allow", "deny")
    assert npm["explanation"].startswith("gemini 0.61.0: deny by") and "Narrowing" in npm["explanation"]
    fetch = calls['web_fetch {"prompt": "https://example.com"}']
    assert (fetch["old"], fetch["new"]) == ("ask", "deny") and "tools.exclude" in fetch["explanation"]
    assert len(calls) == 2, calls  # read_file is allowed by the defaults on both sides


def test_diff_text_shows_gemini_rows(cli, gemini_repo: Path) -> None:  # type: ignore[no-untyped-def]
    _code, out, _ = cli("diff", "--base", "HEAD", "--expect", "expect.yaml")
    assert "agent Gemini CLI" in out and "call run_shell_command" in out and "allow -> deny" in out
    assert "gemini:workspace: removed tools.allowed 'run_shell_command(npm test)'" in out


def test_the_old_checkout_is_read_with_the_working_trees_folder_trust(  # type: ignore[no-untyped-def]
        cli, gemini_repo: Path, gemini_home: Path) -> None:
    (gemini_home / ".gemini" / "trustedFolders.json").unlink()  # the working tree is now untrusted too
    data = _diff(cli)
    rules = _gemini_rules(data)
    # neither side's settings are read: no settings rows and no flipped answer, only the policy file
    assert [k[2] for k in rules] == [next(k[2] for k in rules if "commandPrefix" in k[2])], rules
    assert not [c for c in data["calls"] if c["agent"] == "Gemini CLI"]


def test_a_project_without_gemini_files_has_no_gemini_rows(cli, project: Path) -> None:  # type: ignore[no-untyped-def]
    (project / "opencode.json").write_text(json.dumps({"permission": {"bash": "ask"}}))
    _git(project, "init", "-q")
    _git(project, "add", "opencode.json")
    _git(project, "commit", "-qm", "base")
    (project / "opencode.json").write_text(json.dumps({"permission": {"bash": "deny"}}))
    (project / "expect.yaml").write_text(EXPECT)
    data = _diff(cli)
    assert data["rules"] and not _gemini_rules(data)
    assert not [c for c in data["calls"] if c["agent"] == "Gemini CLI"]
