"""edit: exact, unique replacement; the error cases; creation with an empty oldString."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from forge_tools.tools.builtins import edit


def test_unique_replace(call: Any, project: Path) -> None:
    f = project / "a.py"
    f.write_text("x = 1\ny = 2\n")
    result = call(edit.TOOL, filePath="a.py", oldString="y = 2", newString="y = 3")
    assert not result.is_error
    assert f.read_text() == "x = 1\ny = 3\n"
    assert "-y = 2" in result.metadata["diff"] and "+y = 3" in result.metadata["diff"]


def test_not_found_changes_nothing(call: Any, project: Path) -> None:
    f = project / "a.py"
    f.write_text("x = 1\n")
    result = call(edit.TOOL, filePath="a.py", oldString="x  = 1", newString="x = 2")
    assert result.is_error and "not found" in result.output
    assert f.read_text() == "x = 1\n"


def test_ambiguous_needs_replace_all(call: Any, project: Path) -> None:
    f = project / "a.py"
    f.write_text("foo()\nfoo()\nfoo()\n")
    result = call(edit.TOOL, filePath="a.py", oldString="foo()", newString="bar()")
    assert result.is_error and "3 times" in result.output and f.read_text().count("foo") == 3
    result = call(edit.TOOL, filePath="a.py", oldString="foo()", newString="bar()", replaceAll=True)
    assert not result.is_error and result.metadata["replacements"] == 3
    assert f.read_text() == "bar()\nbar()\nbar()\n"


def test_same_strings_is_an_error(call: Any, project: Path) -> None:
    (project / "a.py").write_text("x\n")
    assert call(edit.TOOL, filePath="a.py", oldString="x", newString="x").is_error


def test_empty_old_string_creates_only_missing_files(call: Any, project: Path) -> None:
    result = call(edit.TOOL, filePath="new/dir/f.txt", oldString="", newString="hello\n")
    assert not result.is_error and (project / "new/dir/f.txt").read_text() == "hello\n"
    again = call(edit.TOOL, filePath="new/dir/f.txt", oldString="", newString="other\n")
    assert again.is_error and "already exists" in again.output
    assert (project / "new/dir/f.txt").read_text() == "hello\n"


def test_missing_file_suggests(call: Any, project: Path) -> None:
    (project / "main.py").write_text("")
    result = call(edit.TOOL, filePath="mian.py", oldString="a", newString="b")
    assert result.is_error and str(project / "main.py") in result.output


def test_crlf_file(call: Any, project: Path) -> None:
    f = project / "w.txt"
    f.write_bytes(b"one\r\ntwo\r\nthree\r\n")
    result = call(edit.TOOL, filePath="w.txt", oldString="one\ntwo", newString="1\n2")
    assert not result.is_error and f.read_bytes() == b"1\r\n2\r\nthree\r\n"


def test_non_utf8_refused(call: Any, project: Path) -> None:
    (project / "l.txt").write_bytes(b"caf\xe9\n")
    assert call(edit.TOOL, filePath="l.txt", oldString="caf", newString="cafe").is_error


def test_keeps_file_mode(call: Any, project: Path) -> None:
    f = project / "run.sh"
    f.write_text("echo a\n")
    f.chmod(0o755)
    call(edit.TOOL, filePath="run.sh", oldString="a", newString="b")
    assert f.stat().st_mode & 0o777 == 0o755


def test_permission_patterns(reqs: Any, project: Path, tmp_path: Path) -> None:
    assert reqs(edit.TOOL, filePath=f"{project}/src/a.py", oldString="a", newString="b") == [
        ("edit", ("src/a.py",))]
    outside = str(tmp_path / "etc" / "x.conf")
    assert reqs(edit.TOOL, filePath=outside, oldString="a", newString="b") == [
        ("external_directory", (f"{tmp_path}/etc/*",)), ("edit", ("../etc/x.conf",))]


def test_symlink_is_followed(call: Any, project: Path) -> None:
    (project / "real.txt").write_text("a\n")
    (project / "link.txt").symlink_to(project / "real.txt")
    assert not call(edit.TOOL, filePath="link.txt", oldString="a", newString="b").is_error
    assert (project / "link.txt").is_symlink() and (project / "real.txt").read_text() == "b\n"


def test_symlink_out_of_the_project_asks_for_the_real_place(reqs: Any, project: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "f.txt").write_text("x")
    (project / "escape").symlink_to(outside)
    assert reqs(edit.TOOL, filePath="escape/f.txt", oldString="x", newString="y") == [
        ("external_directory", (f"{outside}/*",)), ("edit", ("escape/f.txt", "../outside/f.txt"))]
