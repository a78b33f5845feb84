"""`forge-tools diff` for Codex CLI: a real git repository whose `.codex/` rules and config change
between commits; the old side is a temporary checkout, read with the new side's trust."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

BASE = """prefix_rule(pattern=["git", "push"], decision="forbidden")
prefix_rule(pattern=["git", "status"])
"""
CHANGED = """prefix_rule(pattern=["git", "status"])
prefix_rule(pattern=["npm", "test"])
"""


def _git(root: Path, *args: str) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, env=env)


@pytest.fixture
def repo(project: Path, isolated_env: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv("CODEX_HOME", raising=False)
    (project / ".codex" / "rules").mkdir(parents=True)
    (project / ".codex" / "rules" / "default.rules").write_text(BASE)
    (project / ".codex" / "config.toml").write_text('approval_policy = "on-request"\n')
    home = isolated_env["home"]
    (home / ".codex").mkdir()
    (home / ".codex" / "config.toml").write_text(f'[projects."{project}"]\ntrust_level = "trusted"\n')
    _git(project, "init", "-q")
    _git(project, "add", ".codex")
    _git(project, "commit", "-qm", "base")
    return project


def _diff(cli, expect: str | None = None) -> dict:  # type: ignore[no-untyped-def]
    args = ["diff", "--base", "HEAD", "--format", "json"]
    if expect is not None:
        args += ["--expect", expect]
    _code, out, _err = cli(*args)
    return json.loads(out)


def test_a_codex_rule_added_and_removed_and_a_config_value(repo: Path, cli) -> None:  # type: ignore[no-untyped-def]
    (repo / ".codex" / "rules" / "default.rules").write_text(CHANGED)
    (repo / ".codex" / "config.toml").write_text('approval_policy = "never"\n')
    data = _diff(cli)
    rows = {(r["scope"], r["change"], r["rule"]): r for r in data["rules"] if r["scope"].startswith("codex")}
    assert set(rows) == {
        ("codex:project", "removed", 'forbidden prefix_rule ["git", "push"]'),
        ("codex:project", "added", 'allow prefix_rule ["npm", "test"]'),
        ("codex:project", "removed", 'approval_policy = "on-request"'),
        ("codex:project", "added", 'approval_policy = "never"'),
    }
    added = rows[("codex:project", "added", 'allow prefix_rule ["npm", "test"]')]
    assert added["new_location"] == ".codex/rules/default.rules:2:1", added
    removed = rows[("codex:project", "removed", 'forbidden prefix_rule ["git", "push"]')]
    assert removed["old_location"] == ".codex/rules/default.rules:1:1", removed  # not the temp checkout
    assert data["changed"] is True


def test_an_expectation_whose_codex_answer_flips(repo: Path, cli) -> None:  # type: ignore[no-untyped-def]
    (repo / ".codex" / "rules" / "default.rules").write_text(CHANGED)
    (repo / "expect.yaml").write_text(
        '- {call: {tool: exec_command, args: {cmd: "git push origin main"}}, expect: deny}\n'
        '- {runtime: codex, call: {tool: bash, args: {command: "git status"}}, expect: allow}\n')
    data = _diff(cli, "expect.yaml")
    calls = [c for c in data["calls"] if c["agent"] == "Codex CLI"]
    assert len(calls) == 1, calls  # `git status` is allowed on both sides
    assert calls[0]["call"] == 'exec_command {"cmd": "git push origin main"}'  # in Codex's words
    assert calls[0]["old"] == "deny" and calls[0]["new"] != "deny", calls
    assert calls[0]["explanation"].startswith("codex 0.171.0: "), calls
    _code, out, _err = cli("explain", "exec_command", "--call", '{"cmd": "git push origin main"}',
                           "--runtime", "codex", "--format", "json")
    assert json.loads(out)["call"]["runtime"]["action"] == calls[0]["new"]  # explain's answer, the same


def test_the_old_side_takes_the_new_sides_trust(repo: Path, cli, isolated_env: dict[str, Path]) -> None:  # type: ignore[no-untyped-def]
    (repo / ".codex" / "rules" / "default.rules").write_text(CHANGED)
    (repo / "expect.yaml").write_text(
        '- {call: {tool: exec_command, args: {cmd: "git push origin main"}}, expect: deny}\n')
    untrusted = f'[projects."{repo}"]\ntrust_level = "untrusted"\n'
    (isolated_env["home"] / ".codex" / "config.toml").write_text(untrusted)
    data = _diff(cli, "expect.yaml")
    # neither side's project rules are read by Codex: the answer does not change, the files still do
    assert [c for c in data["calls"] if c["agent"] == "Codex CLI"] == []
    assert any(r["scope"] == "codex:project" for r in data["rules"])


def test_a_project_without_codex_files_has_no_codex_rows(project: Path, cli) -> None:  # type: ignore[no-untyped-def]
    (project / "opencode.json").write_text('{"permission": {"bash": "ask"}}\n')
    _git(project, "init", "-q")
    _git(project, "add", "opencode.json")
    _git(project, "commit", "-qm", "base")
    (project / "opencode.json").write_text('{"permission": {"bash": "deny"}}\n')
    (project / "expect.yaml").write_text(
        '- {runtime: codex, call: {tool: bash, args: {command: "ls"}}, expect: allow}\n')
    data = _diff(cli, "expect.yaml")
    assert data["rules"] and not any(r["scope"].startswith("codex") for r in data["rules"])
    assert not any(c["agent"] == "Codex CLI" for c in data["calls"])


def test_an_approval_policy_change_flips_an_answer_no_rule_decides(repo: Path, cli) -> None:  # type: ignore[no-untyped-def]
    (repo / ".codex" / "config.toml").write_text('approval_policy = "never"\n')
    (repo / "expect.yaml").write_text(
        '- {runtime: codex, call: {tool: bash, args: {command: "rm -rf build"}}, expect: ask}\n')
    data = _diff(cli, "expect.yaml")
    calls = [(c["call"], c["old"], c["new"]) for c in data["calls"] if c["agent"] == "Codex CLI"]
    assert calls == [('exec_command {"cmd": "rm -rf build"}', "ask", "deny")], calls
