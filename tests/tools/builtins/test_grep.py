"""grep: grouped output newest file first, include filter, the cap, bad regex; both engines."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from forge_tools.tools.builtins import grep


@pytest.fixture(params=["python", "ripgrep"])
def engine(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    if request.param == "python":
        monkeypatch.setenv("FORGE_NO_RIPGREP", "1")
    elif shutil.which("rg") is None:
        pytest.skip("ripgrep is not installed")
    return str(request.param)


def _write(path: Path, text: str, mtime: float) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    os.utime(path, (mtime, mtime))


def test_grouped_newest_first(call: Any, project: Path, engine: str) -> None:
    _write(project / "old.py", "def alpha():\n    pass\ndef beta():\n", 1_000_000)
    _write(project / "src" / "new.py", "x = 1\ndef gamma():\n", 2_000_000)
    _write(project / "notes.md", "nothing here\n", 3_000_000)
    result = call(grep.TOOL, pattern=r"def \w+")
    assert result.metadata["engine"] == engine
    assert result.output == (
        "Found 3 matches in 2 files\n\n"
        f"{project}/src/new.py:\n  Line 2: def gamma():\n\n"
        f"{project}/old.py:\n  Line 1: def alpha():\n  Line 3: def beta():"
    )


def test_include_and_path(call: Any, project: Path, engine: str) -> None:
    _write(project / "a.py", "needle\n", 1_000_000)
    _write(project / "b.txt", "needle\n", 1_000_000)
    _write(project / "sub" / "c.py", "needle\n", 1_000_000)
    only_py = call(grep.TOOL, pattern="needle", include="*.py")
    assert "a.py" in only_py.output and "c.py" in only_py.output and "b.txt" not in only_py.output
    in_sub = call(grep.TOOL, pattern="needle", path="sub")
    assert in_sub.metadata["matches"] == 1 and "sub/c.py" in in_sub.output
    one_file = call(grep.TOOL, pattern="needle", path="b.txt")
    assert one_file.metadata["matches"] == 1


def test_skips_hidden_and_binary(call: Any, project: Path, engine: str) -> None:
    _write(project / ".secret" / "x.txt", "needle\n", 1_000_000)
    (project / "bin.dat").write_bytes(b"needle\0\0\0")
    assert call(grep.TOOL, pattern="needle").output == "No matches found."


def test_cap(call: Any, project: Path, engine: str) -> None:
    _write(project / "many.txt", "hit\n" * 150, 1_000_000)
    result = call(grep.TOOL, pattern="hit")
    assert result.metadata["truncated"] is True and result.metadata["matches"] == 150
    assert result.output.count("  ") >= grep.MAX_MATCHES and "were cut" in result.output
    assert f"  Line {grep.MAX_MATCHES}: hit" in result.output
    assert f"  {grep.MAX_MATCHES + 1}: hit" not in result.output


def test_bad_regex(call: Any, project: Path, engine: str) -> None:
    _write(project / "a.txt", "x\n", 1_000_000)
    result = call(grep.TOOL, pattern="(unclosed")
    assert result.is_error


def test_missing_path(call: Any, engine: str) -> None:
    assert call(grep.TOOL, pattern="x", path="nope").is_error


def test_permission_patterns(reqs: Any, tmp_path: Path) -> None:
    assert reqs(grep.TOOL, pattern="TODO|FIXME") == [("grep", ("TODO|FIXME",))]
    outside = reqs(grep.TOOL, pattern="x", path=str(tmp_path / "o"))
    assert outside[0] == ("external_directory", (f"{tmp_path}/*",))


def test_fallback_does_not_follow_symlinks_out_of_the_root(call: Any, project: Path, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    from forge_tools.tools.builtins.grep import TOOL as GREP

    monkeypatch.setenv("FORGE_NO_RIPGREP", "1")
    outside = tmp_path / "outside-secret.txt"
    outside.write_text("needle outside\n")
    (project / "link.txt").symlink_to(outside)
    (project / "inside.txt").write_text("needle inside\n")
    out = call(GREP, pattern="needle").output
    assert "inside.txt" in out and "outside" not in out
