"""Issue 5's "done when": one unreachable rule, one typo, one tool hidden by a trailing `"*": "deny"`
and one failing expectation are all reported with locations in every format; fixing them makes check
pass; `diff --base HEAD~1` after denying bash for build reports exactly that."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import jsonschema
import pytest

SCHEMA = Path(__file__).parent / "fixtures" / "sarif-schema-2.1.0.json"

BROKEN = """{
  "permission": {
    "webfetch": {"https://docs.example.com/*": "allow", "*": "deny"},
    "edit": {"src/generated/*": "deny", "src/*": "deny"},
    "grpe": "deny"
  }
}
"""
FIXED = """{
  "permission": {
    "webfetch": {"*": "deny", "https://docs.example.com/*": "allow"},
    "edit": {"src/*": "deny"},
    "grep": "deny",
    "bash": {"rm *": "deny"}
  }
}
"""
EXPECT = """\
- agent: "*"
  visible: [read]
- agent: build
  call: {tool: bash, args: {command: "rm -rf /"}}
  expect: deny
"""
# (code, file, line) of the four problems
FOUR = {("FT104", "forge.json", 3), ("FT103", "forge.json", 4), ("FT101", "forge.json", 5),
        ("FT201", "expect.yaml", 3)}


@pytest.fixture
def broken(project: Path) -> Path:
    (project / "forge.json").write_text(BROKEN)
    (project / "expect.yaml").write_text(EXPECT)
    return project


def test_json_reports_all_four(broken: Path, cli) -> None:
    code, out, err = cli("check", "--expect", "expect.yaml", "--format", "json")
    assert code == 1, err
    data = json.loads(out)
    found = {(f["code"], f["location"]["path"], f["location"]["line"]) for f in data["findings"]}
    assert found >= FOUR
    assert not [f for f in data["findings"] if f["level"] == "error" and f["code"] not in ("FT101", "FT201")]
    by_code = {f["code"]: f for f in data["findings"]}
    assert "'grep'" in by_code["FT101"]["message"]  # did-you-mean
    assert by_code["FT103"]["related"][0]["location"]["line"] == 4  # the covering rule is shown
    assert "webfetch" in by_code["FT104"]["message"]
    assert by_code["FT104"]["related"][0]["location"]["line"] == 3  # the allow it overrides
    results = data["expectations"]["results"]
    assert [r["passed"] for r in results] == [True, False]
    assert "expected deny, got " in results[1]["explanation"]
    assert "rm -rf /" in results[1]["explanation"]


def test_text_reports_all_four(broken: Path, cli) -> None:
    code, out, _ = cli("check", "--expect", "expect.yaml", "--format", "text")
    assert code == 1
    for code_, _path, line in FOUR:
        assert code_ in out or code_ == "FT201"
        assert f"{line}:" in out
    assert "FAIL" in out and "expect.yaml:3" in out


def test_github_reports_all_four(broken: Path, cli) -> None:
    code, out, _ = cli("check", "--expect", "expect.yaml", "--format", "github")
    assert code == 1
    for code_, path, line in FOUR:
        assert any(f"file={path},line={line}," in ln and f"title={code_} " in ln for ln in out.splitlines())


def test_auto_is_github_under_actions(broken: Path, cli, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    code, out, _ = cli("check", "--expect", "expect.yaml")
    assert code == 1 and "::error file=forge.json,line=5," in out


def test_sarif_reports_all_four(broken: Path, cli) -> None:
    code, out, _ = cli("check", "--expect", "expect.yaml", "--format", "sarif")
    assert code == 1
    log = json.loads(out)
    jsonschema.validate(log, json.loads(SCHEMA.read_text()), cls=jsonschema.Draft4Validator)
    found = set()
    for r in log["runs"][0]["results"]:
        loc = r["locations"][0]["physicalLocation"]
        found.add((r["ruleId"], loc["artifactLocation"]["uri"], loc["region"]["startLine"]))
    assert found >= FOUR


def test_fixed_config_passes(broken: Path, cli) -> None:
    (broken / "forge.json").write_text(FIXED)
    code, out, _ = cli("check", "--expect", "expect.yaml", "--strict")
    assert code == 0, out
    assert "FAIL" not in out


# ------------------------------------------------------------------------------------------ diff


def git(repo: Path, *args: str) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, env=env)


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    (repo / "forge.json").write_text('{\n  "permission": {"bash": {"rm *": "deny"}}\n}\n')
    git(repo, "add", "forge.json")
    git(repo, "commit", "-q", "-m", "base")
    (repo / "forge.json").write_text(
        '{\n  "permission": {"bash": {"rm *": "deny"}},\n'
        '  "agent": {"build": {"permission": {"bash": "deny"}}}\n}\n')
    git(repo, "commit", "-q", "-am", "deny bash for build")
    monkeypatch.chdir(repo)
    return repo


def test_diff_base_reports_exactly_the_change(repo: Path, cli) -> None:
    code, out, err = cli("diff", "--base", "HEAD~1", "--format", "json")
    assert code == 0, err
    data = json.loads(out)
    assert data["changed"] is True
    assert [(t["agent"], t["tool"], t["became"]) for t in data["tools"]] == [("build", "bash", "hidden")]
    line = (repo / "forge.json").read_text().splitlines()[2]
    column = line.index('"bash"') + 1
    where = f"forge.json:3:{column}"
    assert [(r["scope"], r["change"], r["rule"], r["new_location"]) for r in data["rules"]] == [
        ("build", "added", 'bash "*" deny', where)]
    assert data["agents"] == {"added": [], "removed": [], "changed": []}
    assert data["calls"] == []

    code, text, _ = cli("diff", "--base", "HEAD~1", "--fail-on-change")
    assert code == 1
    assert "agent build" in text and "bash became hidden" in text and where in text


def test_diff_expect_calls_and_no_change(repo: Path, cli) -> None:
    (repo / "expect.yaml").write_text(
        "- agent: build\n  call: {tool: bash, args: {command: ls}}\n  expect: allow\n")
    code, out, _ = cli("diff", "--base", "HEAD~1", "--expect", "expect.yaml", "--format", "json")
    calls = json.loads(out)["calls"]
    assert [(c["agent"], c["old"], c["new"]) for c in calls] == [("build", "allow", "deny")]
    code, out, _ = cli("diff", "--base", "HEAD", "--fail-on-change")
    assert code == 0 and "no changes" in out


def test_diff_two_directories(tmp_path: Path, cli) -> None:
    old, new = tmp_path / "old", tmp_path / "new"
    for d in (old, new):
        (d / ".git").mkdir(parents=True)
    (old / "forge.json").write_text('{"permission": {"bash": {"*": "deny", "git *": "allow"}}}')
    (new / "forge.json").write_text('{"permission": {"bash": {"git *": "allow", "*": "deny"}}}')
    _code, out, _ = cli("diff", str(old), str(new), "--format", "json")
    data = json.loads(out)
    moved = [r for r in data["rules"] if r["change"] == "moved"]
    assert len(moved) == 1
    assert {(t["tool"], t["became"]) for t in data["tools"]} == {("bash", "hidden")}


def test_diff_never_imports_tool_scripts(tmp_path: Path, cli) -> None:
    marker = tmp_path / "imported.marker"
    old, new = tmp_path / "old", tmp_path / "new"
    for d in (old, new):
        (d / ".git").mkdir(parents=True)
        tools = d / ".forge" / "tools"
        tools.mkdir(parents=True)
        (tools / "sneaky.py").write_text(
            f"from pathlib import Path\nPath({str(marker)!r}).write_text('x')\n"
            "from forge_tools import tool\n\n@tool\ndef default() -> str:\n    return 'hi'\n")
    (new / "forge.json").write_text('{"permission": {"sneaky": "deny"}}')
    code, out, err = cli("diff", str(old), str(new), "--format", "json")
    assert code == 0, err
    assert not marker.exists()
    changes = json.loads(out)["tools"]
    # explore hides every tool it does not list, so there sneaky was hidden already
    assert {(t["agent"], t["tool"], t["became"]) for t in changes} == {
        (agent, "sneaky", "hidden") for agent in ("build", "plan", "general")}
