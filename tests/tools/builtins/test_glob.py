"""glob: newest first, name vs path patterns, the cap; both engines (ripgrep and the fallback)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from forge_tools.tools.builtins import glob as glob_tool
from forge_tools.tools.builtins._search import glob_matches


@pytest.fixture(params=["python", "ripgrep"])
def engine(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    if request.param == "python":
        monkeypatch.setenv("FORGE_NO_RIPGREP", "1")
    elif shutil.which("rg") is None:
        pytest.skip("ripgrep is not installed")
    return str(request.param)


def _touch(path: Path, mtime: float) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("x")
    os.utime(path, (mtime, mtime))


def test_newest_first_at_any_depth(call: Any, project: Path, engine: str) -> None:
    _touch(project / "old.py", 1_000_000)
    _touch(project / "src" / "new.py", 3_000_000)
    _touch(project / "src" / "mid.py", 2_000_000)
    _touch(project / "notes.txt", 4_000_000)
    _touch(project / ".hidden" / "h.py", 5_000_000)
    result = call(glob_tool.TOOL, pattern="*.py")
    expected = [f"{project}/src/new.py", f"{project}/src/mid.py", f"{project}/old.py"]
    assert result.output.splitlines() == expected


def test_path_pattern_and_braces(call: Any, project: Path, engine: str) -> None:
    _touch(project / "src" / "a" / "x.ts", 1_000_000)
    _touch(project / "src" / "b.tsx", 2_000_000)
    _touch(project / "lib" / "c.ts", 3_000_000)
    result = call(glob_tool.TOOL, pattern="src/**/*.{ts,tsx}")
    assert sorted(result.output.splitlines()) == [f"{project}/src/a/x.ts", f"{project}/src/b.tsx"]


def test_cap_and_note(call: Any, project: Path, engine: str) -> None:
    for i in range(120):
        _touch(project / f"f{i}.txt", 1_000_000 + i)
    result = call(glob_tool.TOOL, pattern="*.txt")
    lines = result.output.split("\n\n")[0].splitlines()
    assert len(lines) == glob_tool.MAX_RESULTS and lines[0] == f"{project}/f119.txt"
    assert result.metadata["truncated"] is True and result.metadata["count"] == 120
    assert "narrower" in result.output


def test_no_match_and_bad_dir(call: Any, project: Path, engine: str) -> None:
    assert "No files" in call(glob_tool.TOOL, pattern="*.zzz").output
    assert call(glob_tool.TOOL, pattern="*", path="missing").is_error


@pytest.mark.parametrize(
    ("pattern", "rel", "expected"),
    [("*.py", "a/b/c.py", True), ("*.py", "c.pyc", False), ("src/*.py", "src/a.py", True),
     ("src/*.py", "src/x/a.py", False), ("src/**/*.py", "src/a.py", True),
     ("src/**/*.py", "src/x/y/a.py", True),
     ("**/test_?.py", "t/test_1.py", True), ("*.[ch]", "x/y.h", True), ("*.[!ch]", "y.h", False),
     ("a+b(c).txt", "a+b(c).txt", True), ("{a,b}.md", "b.md", True)],
)
def test_glob_matcher(pattern: str, rel: str, expected: bool) -> None:
    assert glob_matches(pattern, rel) is expected


def test_permission_patterns(reqs: Any, tmp_path: Path) -> None:
    assert reqs(glob_tool.TOOL, pattern="**/*.py") == [("glob", ("**/*.py",))]
    assert reqs(glob_tool.TOOL, pattern="*", path=str(tmp_path / "x")) == [
        ("external_directory", (f"{tmp_path}/x/*",)), ("glob", ("*",))]
