"""`list`: a directory as an indented tree, noise directories skipped, at most 100 entries (SPEC 5.4).

Entries are gathered level by level (breadth first), so a cut listing still shows the shape of the
whole directory instead of the inside of its first big subfolder.
"""

from __future__ import annotations

import fnmatch
import os
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from forge_tools.tools.builtins import requests
from forge_tools.tools.builtins._common import (
    DEFAULT_IGNORES,
    left_out_note,
    not_found_message,
    posix,
    read_denied,
    resolve_path,
)
from forge_tools.tools.contract import Tool, ToolContext, ToolResult

MAX_ENTRIES = 100

DESCRIPTION = f"""List the files and folders under a directory as a tree.

- `path` is the directory (absolute, or relative to the project root; default: the project root).
- Common noise such as {", ".join(DEFAULT_IGNORES[:6])} ... is skipped; `ignore` adds glob patterns
  (matched against names and relative paths) to skip as well.
- At most {MAX_ENTRIES} entries are shown, nearest levels first; for a big tree, list a subdirectory, or
  use glob / grep when you know what you are looking for."""


class ListArgs(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)

    path: Annotated[
        str | None, Field(description="Directory to list (absolute or relative to the project root).")
    ] = None
    ignore: Annotated[
        list[str] | None, Field(description="Extra glob patterns to skip, e.g. ['*.log', 'tmp/'].")
    ] = None


def _ignored(name: str, rel: str, is_dir: bool, patterns: list[str]) -> bool:
    if is_dir and name in DEFAULT_IGNORES:
        return True
    for pattern in patterns:
        bare = pattern.rstrip("/")
        if pattern.endswith("/") and not is_dir:
            continue
        if fnmatch.fnmatchcase(name, bare) or fnmatch.fnmatchcase(rel, bare):
            return True
    return False


def collect(root: Path, patterns: list[str], limit: int,
            denied: Callable[[Path], bool] = lambda path: False,
            ) -> tuple[list[tuple[str, bool]], bool, int]:
    """Relative paths (with is_dir) breadth first, up to `limit`; whether more exist; and how many
    entries were left out because `denied` says so (a denied directory is not entered)."""
    found: list[tuple[str, bool]] = []
    left_out = 0
    queue: deque[tuple[Path, str]] = deque([(root, "")])
    while queue:
        directory, rel = queue.popleft()
        try:
            with os.scandir(directory) as it:
                entries = sorted(it, key=lambda e: (not e.is_dir(follow_symlinks=False), e.name))
        except OSError:
            continue
        for entry in entries:
            is_dir = entry.is_dir(follow_symlinks=False)
            child_rel = f"{rel}{entry.name}"
            if _ignored(entry.name, child_rel, is_dir, patterns):
                continue
            if denied(Path(entry.path)):
                left_out += 1
                continue
            if len(found) >= limit:
                return found, True, left_out
            found.append((child_rel, is_dir))
            if is_dir:
                queue.append((Path(entry.path), child_rel + "/"))
    return found, False, left_out


def render_tree(root: Path, entries: list[tuple[str, bool]]) -> str:
    """Indented tree: two spaces per level, directories end with `/`."""
    lines = [posix(root).rstrip("/") + "/"]
    for rel, is_dir in sorted(entries, key=lambda e: e[0].split("/")):
        depth = rel.count("/")
        name = rel.rsplit("/", 1)[-1]
        lines.append("  " * (depth + 1) + name + ("/" if is_dir else ""))
    return "\n".join(lines)


def execute(args: ListArgs, ctx: ToolContext) -> ToolResult:
    root = resolve_path(args.path, ctx)
    if not root.exists():
        return ToolResult(not_found_message("Directory", root), title=posix(root),
                          metadata={"truncated": False}, is_error=True)
    if not root.is_dir():
        return ToolResult(f"{posix(root)} is a file, not a directory; use the read tool for files.",
                          title=posix(root), metadata={"truncated": False}, is_error=True)
    entries, more, left_out = collect(root, list(args.ignore or []), MAX_ENTRIES,
                                      lambda path: read_denied(path, ctx))
    output = render_tree(root, entries)
    if not entries:
        output += "\n  (empty)"
    if more:
        output += (f"\n\n(Showing the first {MAX_ENTRIES} entries; the listing was cut. List a "
                   "subdirectory or use glob with a narrower pattern to see the rest.)")
    if left_out:
        output += f"\n\n{left_out_note(left_out, 'entry', 'entries')}"
    return ToolResult(output, title=posix(root),
                      metadata={"truncated": more, "count": len(entries), "leftOut": left_out})


TOOL = Tool(
    id="list",
    description=DESCRIPTION,
    parameters=ListArgs,
    execute=execute,
    permission_requests=requests.list_dir,
)
