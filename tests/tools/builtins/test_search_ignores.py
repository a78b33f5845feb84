"""grep and glob honour ignore files with either engine: ripgrep, or the Python walk (pathspec's
gitignore rules). The same tree is searched by both and the answers must be the same."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from forge_tools.tools.builtins import glob as glob_tool
from forge_tools.tools.builtins import grep as grep_tool

FILES = {
    ".gitignore": "*.log\n!keep.log\nbuild/\n/top-only.txt\nsub/generated.py\n",
    "app.py": "needle\n",
    "debug.log": "needle\n",
    "keep.log": "needle\n",
    "top-only.txt": "needle\n",
    "build/out.py": "needle\n",
    "docs/build/page.py": "needle\n",
    "docs/top-only.txt": "needle\n",
    "sub/generated.py": "needle\n",
    "sub/.gitignore": "local.py\n!debug.log\n",
    "sub/local.py": "needle\n",
    "sub/debug.log": "needle\n",
    "sub/kept.py": "needle\n",
    "sub/deeper/local.py": "needle\n",
    "other/.ignore": "*.py\n",
    "other/a.py": "needle\n",
    "other/a.txt": "needle\n",
}
#: what ripgrep's rules leave (checked against ripgrep itself below when it is installed)
EXPECTED = {"app.py", "keep.log", "docs/top-only.txt", "sub/debug.log", "sub/kept.py", "other/a.txt"}


def _rg_on_path(monkeypatch: pytest.MonkeyPatch) -> bool:
    if shutil.which("rg") is None:  # the test extra installs ripgrep beside the interpreter
        beside = Path(sys.executable).parent
        if (beside / "rg").exists():
            monkeypatch.setenv("PATH", f"{beside}{os.pathsep}{os.environ.get('PATH', '')}")
    return shutil.which("rg") is not None


@pytest.fixture
def tree(project: Path) -> Path:
    (project / ".git").mkdir(exist_ok=True)
    for rel, text in FILES.items():
        path = project / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return project


def _found(call: Any, root: Path, path: str | None = None) -> tuple[set[str], set[str]]:
    kwargs = {"path": path} if path else {}
    globbed = call(glob_tool.TOOL, pattern="*", **kwargs).output.splitlines()
    grepped = call(grep_tool.TOOL, pattern="needle", **kwargs).output.splitlines()
    prefix = f"{root}/"
    files = {line.removeprefix(prefix) for line in globbed if line.startswith(prefix)}
    hits = {line.removeprefix(prefix).rstrip(":") for line in grepped if line.startswith(prefix)}
    return files, hits


def test_fallback_honours_ignore_files(call: Any, tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FORGE_NO_RIPGREP", "1")
    files, hits = _found(call, tree)
    assert {f for f in files if not f.endswith("ignore")} == EXPECTED
    assert hits == EXPECTED


def test_fallback_applies_rules_from_above_the_search_root(call: Any, tree: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FORGE_NO_RIPGREP", "1")
    files, _ = _found(call, tree, "sub")
    assert files == {"sub/debug.log", "sub/kept.py"}  # *.log from the root, re-included by sub/


def test_outside_a_git_repository_gitignore_is_not_read(call: Any, tree: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FORGE_NO_RIPGREP", "1")
    (tree / ".git").rmdir()
    files, _ = _found(call, tree)
    assert "debug.log" in files and "build/out.py" in files  # as ripgrep: .gitignore needs a repo
    assert "other/a.py" not in files  # .ignore applies anywhere


@pytest.mark.parametrize("sub", [None, "sub", "docs"])
def test_both_engines_agree(call: Any, tree: Path, monkeypatch: pytest.MonkeyPatch, sub: str | None) -> None:
    if not _rg_on_path(monkeypatch):
        pytest.skip("ripgrep is not installed (pip install -e '.[test]' installs it)")
    from_rg = _found(call, tree, sub)
    monkeypatch.setenv("FORGE_NO_RIPGREP", "1")
    assert _found(call, tree, sub) == from_rg
    if sub is None:
        assert from_rg[1] == EXPECTED


def _in_a_thread(fn: Any, seconds: float = 20.0) -> Any:
    """`fn()`, failing (not hanging the suite) when it does not return in time."""
    import threading

    box: list[Any] = []
    worker = threading.Thread(target=lambda: box.append(fn()), daemon=True)
    worker.start()
    worker.join(seconds)
    assert not worker.is_alive(), "the search hung on an ignore file"
    return box[0]


def _fifo(path: Path) -> None:
    os.mkfifo(path)


def _huge(path: Path) -> None:
    with path.open("wb") as handle:  # sparse: 17 MiB long, nothing written
        handle.truncate(17 * 1024 * 1024)


def _to_dev_zero(path: Path) -> None:
    path.symlink_to("/dev/zero")


@pytest.mark.parametrize("name", [".gitignore", "sub/.gitignore", ".ignore", ".rgignore",
                                  ".git/info/exclude"])
@pytest.mark.parametrize("make,reason", [(_fifo, "not a regular file"), (_to_dev_zero, "not a regular file"),
                                         (_huge, "larger than 16 MiB")])
def test_an_ignore_file_that_is_a_pipe_a_device_or_huge_is_one_clear_error(
        call: Any, tree: Path, monkeypatch: pytest.MonkeyPatch, name: str, make: Any, reason: str) -> None:
    monkeypatch.setenv("FORGE_NO_RIPGREP", "1")
    target = tree / name
    target.parent.mkdir(parents=True, exist_ok=True)
    target.unlink(missing_ok=True)
    make(target)
    for tool, args in ((glob_tool.TOOL, {"pattern": "*"}), (grep_tool.TOOL, {"pattern": "needle"})):
        result = _in_a_thread(lambda tool=tool, args=args: call(tool, **args))
        assert result.is_error, result.output
        assert result.output.count("\n") == 0, result.output
        assert f"{target}: it is {reason}" in result.output, result.output


def test_an_unreadable_ignore_file_is_skipped_as_ripgrep_skips_it(call: Any, tree: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    if os.geteuid() == 0:
        pytest.skip("root reads a file of mode 000")
    monkeypatch.setenv("FORGE_NO_RIPGREP", "1")
    (tree / "sub" / ".gitignore").chmod(0)
    files, _ = _found(call, tree)
    assert "sub/local.py" in files


def test_ripgrep_blocked_by_a_pipe_ignore_file_ends_at_the_call_timeout(
        call: Any, ctx: Any, tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # ripgrep opens every ignore file it meets; a pipe makes it wait for ever: the call's timeout ends it
    if not _rg_on_path(monkeypatch):
        pytest.skip("needs ripgrep")

    (tree / "sub" / ".gitignore").unlink()
    _fifo(tree / "sub" / ".gitignore")
    ctx.timeout = 2.0
    for tool, args in ((glob_tool.TOOL, {"pattern": "*"}), (grep_tool.TOOL, {"pattern": "needle"})):
        result = _in_a_thread(lambda tool=tool, args=args: call(tool, **args), seconds=30)
        assert result.is_error, result.output
        assert result.output.count("\n") == 0, result.output
        assert "ripgrep did not finish within 2 s" in result.output and "pipe" in result.output
