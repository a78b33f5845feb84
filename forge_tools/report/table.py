"""Plain aligned text columns, as every command's table prints them."""

from __future__ import annotations

from collections.abc import Sequence


def format_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """Plain aligned columns (no colour, safe for pipes); the last column is not padded."""
    table: list[Sequence[str]] = [header, *rows]
    widths = [max(len(row[i]) for row in table) for i in range(len(header) - 1)]
    return "\n".join(
        "  ".join([*(cell.ljust(widths[i]) for i, cell in enumerate(row[:-1])), row[-1]]).rstrip()
        for row in table
    )
