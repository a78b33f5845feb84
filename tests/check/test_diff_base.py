"""`diff --base`: the old side is the commit as stored (export-ignore and filters do not apply, nothing
runs), odd trees (absolute symlinks) do not break it, bad refs are one-line errors, and the temp copy is
always removed."""

from __future__ import annotations

import os
import subprocess
import tempfile
from pathlib import Path

import pytest

CONFIG = '{"permission": {"bash": {"rm *": "deny"}}}\n'


def git(repo: Path, *args: str) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, env=env)


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    monkeypatch.chdir(repo)
    return repo


def leftovers() -> list[str]:
    return [p.name for p in Path(tempfile.gettempdir()).iterdir() if p.name.startswith("forge-diff-")]


def test_export_ignore_and_absolute_symlinks_do_not_matter(repo: Path, cli) -> None:
    (repo / ".forge").mkdir()
    (repo / ".forge" / "forge.json").write_text(CONFIG)
    (repo / ".gitattributes").write_text(".forge export-ignore\n")
    (repo / "outside").symlink_to("/etc/hostname")
    (repo / "inside").symlink_to(".forge/forge.json")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    code, out, err = cli("diff", "--base", "HEAD", "--fail-on-change")
    assert (code, err) == (0, ""), out
    assert "no changes" in out
    assert leftovers() == []


def test_no_filter_or_hook_runs(repo: Path, cli, tmp_path: Path) -> None:
    marker = tmp_path / "ran.marker"
    (repo / "forge.json").write_text(CONFIG)
    (repo / ".gitattributes").write_text("forge.json filter=probe\n")
    git(repo, "config", "filter.probe.smudge", f"sh -c 'touch {marker}; cat'")
    git(repo, "config", "filter.probe.clean", "cat")
    hooks = repo / ".git" / "hooks"
    for name in ("post-checkout", "pre-commit"):
        (hooks / name).write_text(f"#!/bin/sh\ntouch {marker}\n")
        (hooks / name).chmod(0o755)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--no-verify", "-m", "base")
    code, out, _ = cli("diff", "--base", "HEAD")
    assert code == 0 and "no changes" in out
    assert not marker.exists()


def test_bad_ref_is_a_one_line_error_and_nothing_is_left(repo: Path, cli) -> None:
    (repo / "forge.json").write_text(CONFIG)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    for ref in ("no-such-ref", "--output=x"):
        code, _out, err = cli("diff", "--base", ref)
        assert code != 0
        assert err.count("\n") == 1 and "not a commit" in err and "Traceback" not in err
    assert not (repo / "x").exists()
    assert leftovers() == []


def test_broken_base_config_is_named_and_the_new_side_shown(repo: Path, cli) -> None:
    """A pull request that repairs a broken config must not fail the CI diff step."""
    import json

    (repo / "forge.json").write_text('{"permission": {"bash": "dney"}}\n')
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "broken")
    (repo / "forge.json").write_text(CONFIG)
    code, out, err = cli("diff", "--base", "HEAD")
    assert (code, err) == (0, "")
    [line] = [ln for ln in out.splitlines() if "cannot be loaded" in ln]
    assert "HEAD:forge.json:1:" in line and "unknown action 'dney'" in line and "forge-diff-" not in out
    assert "agent build: added" in out and 'added bash "rm *" deny' in out
    assert cli("diff", "--base", "HEAD", "--fail-on-change")[0] == 1
    code, out, _ = cli("diff", "--base", "HEAD", "--format", "json")
    data = json.loads(out)
    assert code == 0 and data["changed"] and data["old"]["error"].startswith("HEAD:forge.json:1:")
    assert ("build", "bash", "visible") in {(t["agent"], t["tool"], t["became"]) for t in data["tools"]}
    assert [(r["change"], r["rule"]) for r in data["rules"]] == [("added", 'bash "rm *" deny')]
    assert leftovers() == []


def test_broken_new_config_is_an_error(repo: Path, cli) -> None:
    (repo / "forge.json").write_text(CONFIG)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    (repo / "forge.json").write_text('{"permission": {"bash": "dney"}}\n')
    code, out, err = cli("diff", "--base", "HEAD")
    assert code == 3 and out == "" and err.count("\n") == 1 and "forge.json:1:" in err
    assert leftovers() == []


def test_broken_old_directory_is_named_too(tmp_path: Path, cli) -> None:
    old, new = tmp_path / "old", tmp_path / "new"
    for d in (old, new):
        (d / ".git").mkdir(parents=True)
    (old / "forge.json").write_text('{"permission": {"bash": "dney"}}')
    (new / "forge.json").write_text(CONFIG)
    expect = tmp_path / "expect.yaml"
    expect.write_text("- agent: build\n  call: {tool: bash, args: {command: rm -rf x}}\n  expect: deny\n")
    code, out, _ = cli("diff", str(old), str(new), "--expect", str(expect))
    assert code == 0 and "cannot be loaded" in out and "unknown action 'dney'" in out
    assert 'call bash {"command": "rm -rf x"}: unknown -> deny' in out
    code, _out, err = cli("diff", str(new), str(old))
    assert code == 3 and "unknown action 'dney'" in err


def test_project_in_a_subdirectory(repo: Path, cli) -> None:
    sub = repo / "svc"
    sub.mkdir()
    (sub / "forge.json").write_text(CONFIG)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    (sub / "forge.json").write_text('{"permission": {"bash": {"rm *": "deny"}, "webfetch": "deny"}}\n')
    code, out, _ = cli("diff", "svc", "--base", "HEAD", "--format", "json")
    assert code == 0
    import json

    data = json.loads(out)
    assert [(r["change"], r["rule"]) for r in data["rules"]] == [("added", 'webfetch "*" deny')]


def test_agent_switched_off_or_changed_is_a_change(tmp_path: Path, cli) -> None:
    import json

    old, new = tmp_path / "old", tmp_path / "new"
    for d in (old, new):
        (d / ".git").mkdir(parents=True)
    (old / "forge.json").write_text("{}")
    (new / "forge.json").write_text('{"agent": {"plan": {"disable": true}, "build": {"mode": "all"}},'
                                    ' "default_agent": "build"}')
    code, out, _ = cli("diff", str(old), str(new), "--format", "json", "--fail-on-change")
    assert code == 1
    changed = json.loads(out)["agents"]["changed"]
    assert {(c["agent"], c["field"], c["old"], c["new"]) for c in changed} == {
        ("plan", "disabled", False, True), ("build", "mode", "primary", "all")}


def test_missing_directory_is_a_usage_error(tmp_path: Path, cli) -> None:
    (tmp_path / "old").mkdir()
    code, _out, err = cli("diff", str(tmp_path / "old"), str(tmp_path / "nope"))
    assert code == 2 and err.count("nope") == 1 and "NEW" in err


def test_moved_rules_are_the_fewest_that_explain_the_new_order() -> None:
    """The rules reported as moved are the complement of a longest common subsequence."""
    import random

    from forge_tools.check.diff import _lcs

    def lcs_length(a: list[int], b: list[int]) -> int:
        table = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
        for i in range(len(a) - 1, -1, -1):
            for j in range(len(b) - 1, -1, -1):
                table[i][j] = (table[i + 1][j + 1] + 1 if a[i] == b[j]
                               else max(table[i + 1][j], table[i][j + 1]))
        return table[0][0]

    rng = random.Random(7)
    for n in range(12):
        for _ in range(20):
            a = list(range(n))
            b = a[:]
            rng.shuffle(b)
            kept = _lcs(a, b)
            assert len(kept) == lcs_length(a, b)
            assert [k for k in a if k in kept] == [k for k in b if k in kept]  # same relative order


def test_huge_committed_file_is_not_read_into_memory(repo: Path, cli, monkeypatch) -> None:
    """A blob over the config size cap keeps its size on the old side (the loader then says it is too
    large, as for the working tree) without its bytes being held or written."""
    import forge_tools.config.files as files

    monkeypatch.setattr(files, "MAX_BYTES", 1000)
    (repo / "forge.json").write_text(CONFIG)
    (repo / ".forge").mkdir()
    (repo / ".forge" / "big.bin").write_bytes(b"x" * 5000)
    (repo / ".forge" / "later.txt").write_text("later files still arrive\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    from forge_tools.check.diff import commit_tree

    with commit_tree("HEAD", repo) as (tree, _old):
        assert (tree / ".forge" / "big.bin").stat().st_size == 5000
        assert (tree / ".forge" / "later.txt").read_text() == "later files still arrive\n"
        assert (tree / "forge.json").read_text() == CONFIG
    code, out, _ = cli("diff", "--base", "HEAD")
    assert code == 0 and "no changes" in out


def test_only_what_the_config_reads_is_written(repo: Path, cli) -> None:
    """Unrelated files stay in git; config files, .forge/, {file:} targets and symlink targets (files
    and folders, also through chains) are written, so the old side loads exactly as committed."""
    (repo / "src").mkdir()
    (repo / "src" / "app.py").write_text("print('unrelated')\n")
    (repo / "prompts").mkdir()
    (repo / "prompts" / "review.md").write_text("Review carefully.\n")
    (repo / "shared" / "tools").mkdir(parents=True)
    (repo / "shared" / "tools" / "deploy.py").write_text(
        "from forge_tools import tool\n\n@tool\ndef default() -> str:\n    return 'x'\n")
    (repo / "conf").mkdir()
    (repo / "conf" / "forge.json").write_text(
        '{"agent": {"rev": {"description": "r", "prompt": "{file:prompts/review.md}"}},\n'
        ' "permission": {"deploy": "ask"}}\n')
    (repo / "forge.json").symlink_to("conf/forge.json")
    (repo / ".forge").mkdir()
    (repo / ".forge" / "tools").symlink_to("../shared/tools")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    from forge_tools.check.diff import commit_tree

    with commit_tree("HEAD", repo) as (tree, _old):
        assert not (tree / "src").exists()
        assert (tree / "forge.json").read_text().startswith('{"agent"')
        assert (tree / "prompts" / "review.md").read_text() == "Review carefully.\n"
        assert (tree / ".forge" / "tools" / "deploy.py").is_file()
    code, out, err = cli("diff", "--base", "HEAD", "--fail-on-change")
    assert (code, err) == (0, ""), out
    assert "no changes" in out
    with commit_tree("HEAD", repo, whole=True) as (tree, _old):
        assert (tree / "src" / "app.py").is_file()
