"""`glob`: files whose names or paths match a glob, newest first, at most 100 (SPEC 5.4).

Newest first because the files a person touched last are usually the ones the task is about.
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from forge_tools.tools.builtins import _search, requests
from forge_tools.tools.builtins._common import (
    left_out_note,
    not_found_message,
    posix,
    read_denied,
    resolve_path,
)
from forge_tools.tools.contract import Tool, ToolContext, ToolResult

MAX_RESULTS = 100

DESCRIPTION = f"""Find files by name with a glob pattern, newest first.

- `pattern`: a glob such as `*.py`, `src/**/*.ts` or `**/test_*.{{py,txt}}`. A pattern without `/`
  matches file names at any depth; a pattern with `/` matches paths relative to `path`.
- `path`: the directory to search (default: the project root).
- Hidden files and ignored directories are skipped. At most {MAX_RESULTS} paths are returned, most
  recently modified first; narrow the pattern or the path when the list is cut.
- To search file contents use grep; for an open-ended search over many rounds use a subagent."""


class GlobArgs(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)

    pattern: Annotated[str, Field(min_length=1, description="Glob to match, e.g. '**/*.py'.")]
    path: Annotated[
        str | None, Field(description="Directory to search in (default: the project root).")
    ] = None


def find_files(root: Path, pattern: str, seconds: float = _search.SEARCH_SECONDS) -> list[Path]:
    """Every file under `root` matching `pattern` (ripgrep when present, within `seconds`, else the
    Python walk)."""
    rg = _search.rg_executable()
    if rg is not None:
        # ripgrep lists the files its ignore rules keep; the glob is matched here, by the same function
        # as the fallback (`rg --glob` would override the ignore rules and list ignored files too)
        try:
            proc = subprocess.run([rg, "--files", "--no-messages"], cwd=root, capture_output=True,
                                  check=False, timeout=seconds)
        except subprocess.TimeoutExpired:
            raise _search.SearchTimedOut(seconds) from None
        if proc.returncode in (0, 1):
            names = proc.stdout.decode("utf-8", "surrogateescape").splitlines()
            return [root / name for name in names if name and _search.glob_matches(pattern, name)]
    return [path for path, rel in _search.walk_files(root) if _search.glob_matches(pattern, rel)]


def execute(args: GlobArgs, ctx: ToolContext) -> ToolResult:
    root = resolve_path(args.path, ctx)
    if not root.is_dir():
        message = (not_found_message("Directory", root) if not root.exists()
                   else f"{posix(root)} is a file; glob searches a directory.")
        return ToolResult(message, title=args.pattern, metadata={"truncated": False}, is_error=True)
    try:
        matched = find_files(root, args.pattern, ctx.timeout or _search.SEARCH_SECONDS)
    except _search.SearchRefused as exc:
        return ToolResult(str(exc), title=args.pattern, metadata={"truncated": False}, is_error=True)
    files = _search.newest_first([p for p in matched if not read_denied(p, ctx)])
    left_out = len(matched) - len(files)
    more = len(files) > MAX_RESULTS
    shown = files[:MAX_RESULTS]
    if not shown:
        output = f"No files matching {args.pattern!r} under {posix(root)}."
    else:
        output = "\n".join(posix(p) for p in shown)
        if more:
            output += (f"\n\n(Showing the {MAX_RESULTS} newest of {len(files)} matching files; the list "
                       "was cut. Use a narrower pattern or path to see the rest.)")
    if left_out:
        output += f"\n\n{left_out_note(left_out)}"
    return ToolResult(output, title=args.pattern,
                      metadata={"truncated": more, "count": len(files), "path": posix(root),
                                "leftOut": left_out})


TOOL = Tool(
    id="glob",
    description=DESCRIPTION,
    parameters=GlobArgs,
    execute=execute,
    permission_requests=requests.glob,
)
