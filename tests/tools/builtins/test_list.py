"""list: a breadth-first tree, default and extra ignores, the 100-entry cap."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from forge_tools.tools.builtins import list as list_tool


def test_tree_with_default_ignores(call: Any, project: Path) -> None:
    (project / "src" / "pkg").mkdir(parents=True)
    (project / "src" / "pkg" / "mod.py").write_text("")
    (project / "README.md").write_text("")
    (project / "node_modules" / "dep").mkdir(parents=True)
    result = call(list_tool.TOOL)
    lines = result.output.splitlines()
    assert lines[0] == f"{project}/"
    assert "  src/" in lines and "    pkg/" in lines and "      mod.py" in lines and "  README.md" in lines
    assert "node_modules" not in result.output and ".git" not in result.output
    assert result.metadata["truncated"] is False


def test_ignore_patterns(call: Any, project: Path) -> None:
    (project / "keep.py").write_text("")
    (project / "drop.log").write_text("")
    (project / "tmp").mkdir()
    (project / "tmp" / "x.py").write_text("")
    result = call(list_tool.TOOL, ignore=["*.log", "tmp/"])
    assert result.output.splitlines()[1:] == ["  keep.py"]


def test_cap_breadth_first(call: Any, project: Path) -> None:
    deep = project / "a_deep"
    deep.mkdir()
    for i in range(150):
        (deep / f"f{i:03}.txt").write_text("")
    (project / "z_top.txt").write_text("")
    result = call(list_tool.TOOL, path=str(project))
    assert result.metadata["truncated"] is True and result.metadata["count"] == list_tool.MAX_ENTRIES
    assert "z_top.txt" in result.output  # the top level comes before the inside of a big folder
    assert "the listing was cut" in result.output


def test_errors(call: Any, project: Path) -> None:
    (project / "file.txt").write_text("")
    assert call(list_tool.TOOL, path="file.txt").is_error
    missing = call(list_tool.TOOL, path="nope")
    assert missing.is_error and "not found" in missing.output


def test_permission_patterns(reqs: Any, project: Path, tmp_path: Path) -> None:
    assert reqs(list_tool.TOOL) == [("list", (str(project),))]
    assert reqs(list_tool.TOOL, path="sub") == [("list", (f"{project}/sub",))]
    assert reqs(list_tool.TOOL, path=str(tmp_path / "other")) == [
        ("external_directory", (f"{tmp_path}/other/*",)),
        ("list", (f"{tmp_path}/other",)),
    ]
