"""read: the SPEC 5.4 caps, binary refusal, did-you-mean, permission patterns."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from forge_tools.tools.builtins import read


def test_small_file_numbered_from_one(call: Any, reqs: Any, project: Path) -> None:
    (project / "a.txt").write_text("alpha\nbeta\n")
    result = call(read.TOOL, filePath="a.txt")
    assert not result.is_error
    assert "1: alpha\n2: beta" in result.output
    assert "End of file" in result.output
    assert result.metadata["truncated"] is False


def test_default_limit_and_continuation(call: Any, reqs: Any, project: Path) -> None:
    (project / "big.txt").write_text("".join(f"l{i}\n" for i in range(1, 5001)))
    result = call(read.TOOL, filePath=str(project / "big.txt"))
    assert "2000: l2000" in result.output and "2001: l2001" not in result.output
    assert "offset=2001" in result.output
    assert result.metadata["truncated"] is True
    assert result.metadata["lastLine"] == 2000 and result.metadata["totalLines"] == 5000
    page = call(read.TOOL, filePath="big.txt", offset=4999, limit=10)
    assert "<content>\n4999: l4999\n5000: l5000\n\n(End of file - total 5000 lines)" in page.output
    assert page.metadata["truncated"] is False


def test_offset_past_end(call: Any, reqs: Any, project: Path) -> None:
    (project / "a.txt").write_text("x\n")
    result = call(read.TOOL, filePath="a.txt", offset=5)
    assert result.is_error and result.output == "Offset 5 is out of range for this file (1 lines)"


def test_long_lines_cut_with_note(call: Any, reqs: Any, project: Path) -> None:
    (project / "long.txt").write_text("x" * 5000 + "\nshort\n")
    result = call(read.TOOL, filePath="long.txt")
    first = result.output.splitlines()[3]
    assert first == "1: " + "x" * read.MAX_LINE_CHARS + "... (line truncated to 2000 chars)"
    assert result.metadata["truncated"] is False  # as in opencode: a cut line is no truncation


def test_byte_cap(call: Any, reqs: Any, project: Path) -> None:
    (project / "wide.txt").write_text("".join("y" * 1000 + "\n" for _ in range(200)))
    result = call(read.TOOL, filePath="wide.txt")
    body = result.output.split("<content>\n")[1].split("\n\n(")[0]
    assert len("\n".join(line.split(": ", 1)[1] for line in body.splitlines()).encode()) <= read.MAX_BYTES
    assert "(Output capped at 50 KB. Showing lines 1-" in result.output
    assert result.metadata["truncated"] is True
    last = result.metadata["lastLine"]
    assert 0 < last < 200 and f"offset={last + 1}" in result.output


def test_binary_refused(call: Any, reqs: Any, project: Path) -> None:
    (project / "data.txt").write_bytes(b"abc\0def")
    (project / "ctl.txt").write_bytes(bytes(range(1, 9)) * 100)
    (project / "img.png").write_bytes(b"not really")
    for name in ("data.txt", "ctl.txt", "img.png"):
        result = call(read.TOOL, filePath=name)
        assert result.is_error and "binary" in result.output, name


def test_invalid_utf8_is_replaced(call: Any, reqs: Any, project: Path) -> None:
    (project / "latin.txt").write_bytes(b"caf\xe9\n")
    result = call(read.TOOL, filePath="latin.txt")
    assert "1: caf\ufffd" in result.output


def test_missing_file_suggests(call: Any, reqs: Any, project: Path) -> None:
    (project / "config.yaml").write_text("a: 1\n")
    (project / "config.yml.bak").write_text("")
    result = call(read.TOOL, filePath="config.yml")
    # opencode's look-alikes: names holding the missing one (or held by it), not spelling neighbours
    assert result.output == (f"File not found: {project}/config.yml\n\nDid you mean one of these?\n"
                             f"{project}/config.yml.bak")


def test_directory_reads_as_its_entries(call: Any, reqs: Any, project: Path) -> None:
    (project / "src" / "pkg").mkdir(parents=True)
    (project / "src" / "b.py").write_text("")
    (project / "src" / "a.py").write_text("")
    result = call(read.TOOL, filePath="src")
    assert not result.is_error
    assert result.output.splitlines()[3:6] == ["a.py", "b.py", "pkg/"] and "(3 entries)" in result.output
    paged = call(read.TOOL, filePath="src", offset=2, limit=1)
    assert paged.output.splitlines()[3] == "b.py"
    assert "(Showing 1 of 3 entries. Use 'offset' parameter to read beyond entry 3)" in paged.output
    assert paged.metadata["truncated"] is True


def test_empty_file(call: Any, reqs: Any, project: Path) -> None:
    (project / "e.txt").write_text("")
    empty = call(read.TOOL, filePath="e.txt").output
    assert "<content>\n\n\n(End of file - total 0 lines)\n</content>" in empty


def test_crlf_lines(call: Any, reqs: Any, project: Path) -> None:
    (project / "w.txt").write_bytes(b"a\r\nb\r\n")
    assert "1: a\n2: b\n" in call(read.TOOL, filePath="w.txt").output


def test_permission_patterns(call: Any, reqs: Any, project: Path, tmp_path: Path) -> None:
    # relative to the project root, as opencode 1.18.33 checks it (SPEC 4.4); `../` outside it
    assert reqs(read.TOOL, filePath="src/a.py") == [("read", ("src/a.py",))]
    assert reqs(read.TOOL, filePath=f"{project}/src/a.py") == [("read", ("src/a.py",))]
    outside = tmp_path / "elsewhere" / "b.txt"
    assert reqs(read.TOOL, filePath=str(outside)) == [
        ("external_directory", (f"{tmp_path}/elsewhere/*",)),
        ("read", ("../elsewhere/b.txt",)),
    ]
    assert reqs(read.TOOL, filePath="../x/../y.txt")[0] == ("external_directory", (f"{tmp_path}/*",))


def test_not_a_regular_file(call: Any, project: Path) -> None:
    import os

    os.mkfifo(project / "pipe")
    result = call(read.TOOL, filePath="pipe")
    assert result.is_error and "regular file" in result.output


def test_symlink_is_also_checked_as_its_target(reqs: Any, project: Path) -> None:
    """`notes.txt -> .env` must still meet the `*.env` ask rule."""
    from forge_tools.tools.builtins.read import TOOL as READ

    (project / ".env").write_text("SECRET=1\n")
    (project / "notes.txt").symlink_to(".env")
    patterns = dict(reqs(READ, filePath="notes.txt"))["read"]
    assert patterns == ("notes.txt", ".env")
