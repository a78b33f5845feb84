"""Red-team case: a regular expression from the model must not hang the Python grep fallback."""

from __future__ import annotations

from pathlib import Path

import pytest

from forge_tools.tools.builtins import grep
from forge_tools.tools.contract import ToolContext


def test_catastrophic_pattern_stops_at_the_deadline(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FORGE_NO_RIPGREP", "1")
    (project / "f.txt").write_text("a" * 40 + "!\n")
    # With Python `re` this search backtracks for hours; the deadline ends it with a plain error.
    with pytest.raises(grep.SearchError, match="took longer than"):
        grep.search_python("(a|a)+$", project, None, seconds=0.2)
    args = grep.TOOL.parameters.model_validate({"pattern": "(a|a)+$"})  # type: ignore[union-attr]
    result = grep.TOOL.execute(args, ToolContext(project_root=project, timeout=0.2))
    assert result.is_error and "simplify the regular expression" in result.output  # type: ignore[union-attr]


def test_many_star_glob_does_not_hang_the_python_walk(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from forge_tools.tools.builtins import _search, glob

    monkeypatch.setenv("FORGE_NO_RIPGREP", "1")
    (project / ("a" * 60)).write_text("x\n")
    pattern = "*a" * 25 + "*b"  # with Python `re`: `[^/]*a` 25 times backtracks for hours on 60 a's
    assert _search.glob_matches(pattern, "a" * 60) is False
    assert _search.glob_matches("*a" * 25 + "*", "a" * 60) is True
    assert glob.find_files(project, pattern) == []
