"""apply_patch: the documented format, all-or-nothing, permission requests listing every path."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from forge_tools.tools.builtins import apply_patch


def patch(*body: str) -> str:
    return "\n".join(["*** Begin Patch", *body, "*** End Patch"]) + "\n"


def test_add_update_delete_move(call: Any, project: Path) -> None:
    (project / "app.py").write_text("import os\n\ndef main():\n    print('hi')\n    return 0\n")
    (project / "old.txt").write_text("bye\n")
    (project / "mv.txt").write_text("a\nb\n")
    text = patch(
        "*** Add File: src/new.py",
        "+x = 1",
        "+y = 2",
        "*** Update File: app.py",
        "@@ def main():",
        "-    print('hi')",
        "+    print('hello')",
        "     return 0",
        "*** Delete File: old.txt",
        "*** Update File: mv.txt",
        "*** Move to: moved/mv.txt",
        "@@",
        " a",
        "-b",
        "+c",
    )
    result = call(apply_patch.TOOL, patchText=text)
    assert not result.is_error, result.output
    assert (project / "src/new.py").read_text() == "x = 1\ny = 2\n"
    assert (project / "app.py").read_text() == "import os\n\ndef main():\n    print('hello')\n    return 0\n"
    assert not (project / "old.txt").exists() and not (project / "mv.txt").exists()
    assert (project / "moved/mv.txt").read_text() == "a\nc\n"
    summary = ["A src/new.py", "M app.py", "D old.txt", "R mv.txt -> moved/mv.txt"]
    assert result.output.splitlines()[1:] == summary


def test_all_or_nothing(call: Any, project: Path) -> None:
    (project / "a.txt").write_text("one\n")
    (project / "b.txt").write_text("two\n")
    text = patch(
        "*** Update File: a.txt", "@@", "-one", "+ONE",
        "*** Delete File: b.txt",
        "*** Update File: b.txt", "@@", "-missing", "+x",
    )
    result = call(apply_patch.TOOL, patchText=text)
    assert result.is_error and "no file changed" in result.output
    assert (project / "a.txt").read_text() == "one\n" and (project / "b.txt").read_text() == "two\n"


def test_hunk_mismatch_names_the_file(call: Any, project: Path) -> None:
    (project / "a.txt").write_text("one\ntwo\n")
    result = call(apply_patch.TOOL, patchText=patch("*** Update File: a.txt", "@@", "-three", "+3"))
    assert result.is_error and "a.txt" in result.output and "hunk 1" in result.output


def test_several_hunks_in_order_and_whitespace_tolerance(call: Any, project: Path) -> None:
    (project / "a.txt").write_text("k\nv = 1\nk\nv = 1\nend   \n")
    text = patch("*** Update File: a.txt", "@@", " k", "-v = 1", "+v = 2", "@@", " k", "-v = 1", "+v = 3",
                 "@@", "-end", "+END")
    assert not call(apply_patch.TOOL, patchText=text).is_error
    assert (project / "a.txt").read_text() == "k\nv = 2\nk\nv = 3\nEND\n"


def test_insertion_after_anchor_and_at_end(call: Any, project: Path) -> None:
    (project / "a.txt").write_text("class A:\n    pass\n")
    text = patch("*** Update File: a.txt", "@@ class A:", "+    x = 1", "@@", "+# end", "*** End of File")
    assert not call(apply_patch.TOOL, patchText=text).is_error
    assert (project / "a.txt").read_text() == "class A:\n    x = 1\n    pass\n# end\n"


def test_file_without_trailing_newline_keeps_it(call: Any, project: Path) -> None:
    (project / "a.txt").write_text("a\nb")
    assert not call(apply_patch.TOOL, patchText=patch("*** Update File: a.txt", "@@", "-b", "+c")).is_error
    assert (project / "a.txt").read_text() == "a\nc"


def test_conflicts_refused(call: Any, project: Path) -> None:
    (project / "a.txt").write_text("a\n")
    (project / "b.txt").write_text("b\n")
    assert "already exists" in call(apply_patch.TOOL, patchText=patch("*** Add File: a.txt", "+x")).output
    assert "does not exist" in call(apply_patch.TOOL, patchText=patch("*** Delete File: zz.txt")).output
    moved = call(apply_patch.TOOL, patchText=patch("*** Update File: a.txt", "*** Move to: b.txt"))
    assert moved.is_error and (project / "a.txt").exists()


@pytest.mark.parametrize(
    "text",
    [
        "no begin\n*** End Patch",
        "*** Begin Patch\n*** Add File: a\n+x",
        patch("*** Add File: a", "x"),
        patch("*** Update File: a"),
        patch("*** Update File: a", "@@", "?bad"),
        patch("garbage"),
        patch(),
        patch("*** Add File: "),
    ],
)
def test_malformed_patches_fail_validation(text: str) -> None:
    with pytest.raises(ValidationError):
        apply_patch.ApplyPatchArgs.model_validate({"patchText": text})


def test_permission_requests_list_every_path(reqs: Any, tmp_path: Path) -> None:
    text = patch(
        "*** Add File: a.txt", "+x",
        "*** Update File: b.txt", "*** Move to: c/d.txt", "@@", "-1", "+2",
        f"*** Delete File: {tmp_path}/out/e.txt",
    )
    assert reqs(apply_patch.TOOL, patchText=text) == [
        ("external_directory", (f"{tmp_path}/out/*",)),
        ("edit", ("a.txt", "b.txt", "c/d.txt", "../out/e.txt")),
    ]
