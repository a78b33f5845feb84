"""Where a finding or a rule is, in words: a path shortened to the project root, `path:line:col`.
Apart from the findings' module, so an answer that names a rule's place (`runtimes.*.decide`) does not
import the report's records."""

from __future__ import annotations

from typing import TYPE_CHECKING

from forge_tools.origin import Origin

if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["describe", "display_path"]


def display_path(path: str | None, root: Path | None) -> str | None:
    """A path relative to the project root when inside it (stable across checkouts), else as given."""
    if path is None:
        return None
    if root is not None:
        from forge_tools.paths import relative_to_root

        rel = relative_to_root(path, str(root))
        if rel is not None:
            return rel
    return path


def describe(origin: Origin, root: Path | None) -> str:
    """`path:line:col` with the path shortened to the project root."""
    if origin.kind == "file" and origin.path is not None:
        shown = display_path(origin.path, root) or origin.path
        o = Origin(origin.kind, shown, origin.line, origin.column, origin.key_path, origin.name)
        return str(o)
    return str(origin)
