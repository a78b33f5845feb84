"""The README's table of finding codes is the one the code defines (no drift)."""

from __future__ import annotations

from pathlib import Path

from forge_tools.check.codes import markdown_table


def test_readme_lists_every_finding_code_as_defined() -> None:
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    assert markdown_table() in readme, "README finding-code table is stale; paste markdown_table()"
