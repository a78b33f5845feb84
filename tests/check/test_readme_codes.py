"""The docs' table of finding codes is the one the code defines (no drift)."""

from __future__ import annotations

from pathlib import Path

from forge_tools.check.codes import markdown_table

PAGE = Path(__file__).resolve().parents[2] / "docs" / "check-and-diff.md"


def test_docs_list_every_finding_code_as_defined() -> None:
    text = PAGE.read_text(encoding="utf-8")
    assert markdown_table() in text, f"{PAGE.name}'s finding-code table is stale; paste markdown_table()"
