"""write: creates parents, overwrites, reports; permission patterns relative to the root."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from forge_tools.tools.builtins import write


def test_creates_parents_and_overwrites(call: Any, project: Path) -> None:
    result = call(write.TOOL, filePath="a/b/c.txt", content="one\n")
    assert not result.is_error and (project / "a/b/c.txt").read_text() == "one\n"
    assert result.metadata["exists"] is False and "Created" in result.output
    result = call(write.TOOL, filePath="a/b/c.txt", content="two\n")
    assert (project / "a/b/c.txt").read_text() == "two\n" and result.metadata["exists"] is True
    assert "-one" in result.metadata["diff"] and "+two" in result.metadata["diff"]


def test_directory_target_is_an_error(call: Any, project: Path) -> None:
    (project / "d").mkdir()
    assert call(write.TOOL, filePath="d", content="x").is_error


def test_no_temp_files_left(call: Any, project: Path) -> None:
    call(write.TOOL, filePath="f.txt", content="x")
    assert sorted(p.name for p in project.iterdir() if p.name != ".git") == ["f.txt"]


def test_permission_patterns(reqs: Any, tmp_path: Path) -> None:
    assert reqs(write.TOOL, filePath="docs/x.md", content="") == [("edit", ("docs/x.md",))]
    target = str(tmp_path / "x.md")
    assert reqs(write.TOOL, filePath=target, content="") == [
        ("external_directory", (f"{tmp_path}/*",)), ("edit", ("../x.md",))]


def test_symlink_is_also_checked_as_its_target(reqs: Any, project: Path) -> None:
    """A plan file that links to source code must not let the plan agent's plan-only allow edit it."""
    from forge_tools.tools.builtins.apply_patch import TOOL as APPLY_PATCH
    from forge_tools.tools.builtins.write import TOOL as WRITE

    (project / "src.py").write_text("x = 1\n")
    (project / ".forge" / "plans").mkdir(parents=True)
    (project / ".forge" / "plans" / "x.md").symlink_to("../../src.py")
    patterns = dict(reqs(WRITE, filePath=".forge/plans/x.md", content="y"))["edit"]
    assert patterns == (".forge/plans/x.md", "src.py")
    patch = "*** Begin Patch\n*** Delete File: .forge/plans/x.md\n*** End Patch"
    assert "src.py" in dict(reqs(APPLY_PATCH, patchText=patch))["edit"]
