"""`grep`: lines matching a regular expression, grouped by file, newest files first, at most 100.

ripgrep runs when it is on PATH (its regex dialect: Rust `regex`, no look-around or back-references);
otherwise a pure-Python search gives the same output with Python `re` syntax. The two dialects agree on
everyday patterns (classes, `\\b`, `\\d`, alternation, anchors); they differ on look-around (Python only)
and on a few escapes and Unicode class names. The Python search runs with a deadline (the `regex`
package, `re`-compatible, can stop a match midway): a pattern such as `(a+)+$` from the model must not
hang the agent in exponential backtracking, as it would with `re`.
"""

from __future__ import annotations

import json
import subprocess
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
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

MAX_MATCHES = 100
MAX_LINE_CHARS = 2000
SNIFF_BYTES = 4096

DESCRIPTION = f"""Search file contents with a regular expression.

- `pattern`: the regex, e.g. `def \\w+_tool` or `TODO|FIXME`.
- `path`: file or directory to search (default: the project root).
- `include`: only search files matching this glob, e.g. `*.py` or `*.{{ts,tsx}}`.
- Returns `path:` headers with `line: text` under each, files most recently modified first, at most
  {MAX_MATCHES} matching lines; refine the pattern, path or include when the list is cut.
- Hidden files, ignored directories and binary files are skipped. To find files by name use glob."""


class GrepArgs(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)

    pattern: Annotated[str, Field(min_length=1, description="Regular expression to search for.")]
    path: Annotated[
        str | None, Field(description="File or directory to search (default: the project root).")
    ] = None
    include: Annotated[
        str | None, Field(description="Glob of files to search, e.g. '*.py' or '*.{ts,tsx}'.")
    ] = None


@dataclass(eq=False)
class FileMatches:
    """One file's matching lines so far (at most the ones that can be shown) and how many matched."""

    path: Path
    lines: list[tuple[int, str]] = field(default_factory=list)
    count: int = 0


class SearchError(Exception):
    """A bad pattern or a search that could not run."""


def _add(found: dict[str, FileMatches], path: Path, number: int, text: str) -> None:
    entry = found.setdefault(str(path), FileMatches(path))
    entry.count += 1
    if len(entry.lines) < MAX_MATCHES:  # no more than this can ever be shown
        entry.lines.append((number, text))


def _included(include: str, path: Path, root: Path) -> bool:
    rel = path.name if path == root else path.relative_to(root).as_posix() if path.is_relative_to(root) \
        else path.as_posix()
    try:
        return _search.glob_matches(include, rel)
    except _search.PatternTooSlow as exc:
        raise SearchError(str(exc)) from None


def search_rg(rg: str, pattern: str, root: Path, include: str | None,
              seconds: float = _search.SEARCH_SECONDS) -> dict[str, FileMatches]:
    # `include` is matched here, not by `--glob`: ripgrep's globs override its ignore rules (an ignored
    # file that matches is searched), and the fallback matches with the same function.
    cmd = [rg, "--json", "--no-messages", "--regexp", pattern, str(root)]
    found: dict[str, FileMatches] = {}
    with subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as proc:
        assert proc.stdout is not None
        expired = threading.Event()

        def expire() -> None:
            expired.set()
            proc.kill()

        timer = threading.Timer(seconds, expire)
        timer.daemon = True
        timer.start()
        try:
            found = _read_rg_events(proc.stdout, found, root, include)
        finally:
            timer.cancel()
        stderr = proc.stderr.read().decode("utf-8", "replace") if proc.stderr else ""
        code = proc.wait()
    if expired.is_set():
        raise SearchError(str(_search.SearchTimedOut(seconds)))
    if code == 2 and not found:
        raise SearchError(stderr.strip().splitlines()[-1] if stderr.strip() else "ripgrep failed")
    return found


def _read_rg_events(lines: Iterable[bytes], found: dict[str, FileMatches], root: Path,
                    include: str | None) -> dict[str, FileMatches]:
    """ripgrep's `--json` events: each match added to `found`."""
    for raw in lines:
        event = json.loads(raw)
        if event.get("type") != "match":
            continue
        data = event["data"]
        name = data["path"].get("text")
        if name is None:
            continue  # a path that is not UTF-8; skipped
        text = data["lines"].get("text", "")
        if include and not _included(include, Path(name), root):
            continue
        _add(found, Path(name), int(data["line_number"]), text.rstrip("\n").rstrip("\r"))
    return found


def search_python(pattern: str, root: Path, include: str | None,
                  seconds: float = _search.SEARCH_SECONDS) -> dict[str, FileMatches]:
    import regex  # imported on use: start-up of commands that never search stays lean

    try:
        compiled = regex.compile(pattern)
    except regex.error as exc:
        raise SearchError(f"invalid regular expression: {exc}") from exc
    deadline = time.monotonic() + seconds
    try:
        files = [(root, root.name)] if root.is_file() else list(_search.walk_files(root))
    except _search.UnreadableIgnoreFile as exc:
        raise SearchError(str(exc)) from None
    found: dict[str, FileMatches] = {}
    for path, rel in files:
        try:
            if include and not _search.glob_matches(include, rel):
                continue
        except _search.PatternTooSlow as exc:
            raise SearchError(str(exc)) from None
        try:
            with path.open("rb") as handle:
                if b"\0" in handle.read(SNIFF_BYTES):
                    continue
                handle.seek(0)
                for number, raw in enumerate(handle, start=1):
                    text = raw.decode("utf-8", "replace").rstrip("\n").rstrip("\r")
                    try:
                        hit = compiled.search(text, timeout=max(deadline - time.monotonic(), 0.001))
                    except TimeoutError:
                        raise SearchError(
                            f"the search took longer than {seconds:g}s; simplify the regular expression "
                            "(nested repetition such as (a+)+ can take exponential time) or search a "
                            "narrower path") from None
                    if hit:
                        _add(found, path, number, text)
        except OSError:
            continue
    return found


def render(found: dict[str, FileMatches]) -> tuple[str, int, bool]:
    """Grouped output, newest files first, cut at MAX_MATCHES lines: (text, total matches, cut)."""
    total = sum(f.count for f in found.values())
    order = _search.newest_first([f.path for f in found.values()])
    blocks: list[str] = []
    shown = 0
    for path in order:
        if shown >= MAX_MATCHES:
            break
        entry = found[str(path)]
        rows = []
        for number, text in entry.lines[: MAX_MATCHES - shown]:
            if len(text) > MAX_LINE_CHARS:
                text = text[:MAX_LINE_CHARS] + "..."
            rows.append(f"  Line {number}: {text}")  # the shape models know from opencode
        shown += len(rows)
        blocks.append(f"{posix(path)}:\n" + "\n".join(rows))
    files = len(found)
    header = f"Found {total} match{'es' if total != 1 else ''} in {files} file{'s' if files != 1 else ''}"
    return header + "\n\n" + "\n\n".join(blocks), total, shown < total


def execute(args: GrepArgs, ctx: ToolContext) -> ToolResult:
    root = resolve_path(args.path, ctx)
    if not root.exists():
        return ToolResult(not_found_message("Path", root), title=args.pattern,
                          metadata={"truncated": False}, is_error=True)
    rg = _search.rg_executable()
    try:
        found = search_rg(rg, args.pattern, root, args.include,
                          ctx.timeout or _search.SEARCH_SECONDS) if rg else search_python(
            args.pattern, root, args.include, ctx.timeout or _search.SEARCH_SECONDS)
    except SearchError as exc:
        return ToolResult(str(exc), title=args.pattern, metadata={"truncated": False}, is_error=True)
    engine = "ripgrep" if rg else "python"
    denied = [key for key, entry in found.items() if read_denied(entry.path, ctx)]
    for key in denied:
        del found[key]  # a read deny covers what grep would show of the file too
    left_out = f"\n\n{left_out_note(len(denied))}" if denied else ""
    if not found:
        return ToolResult("No matches found." + left_out, title=args.pattern,
                          metadata={"truncated": False, "matches": 0, "engine": engine,
                                    "leftOut": len(denied)})
    output, total, cut = render(found)
    if cut:
        output += (f"\n\n(Showing {MAX_MATCHES} of {total} matching lines; the results were cut. Use a more "
                   "specific pattern, a narrower path or an include glob.)")
    return ToolResult(output + left_out, title=args.pattern,
                      metadata={"truncated": cut, "matches": total, "engine": engine,
                                "leftOut": len(denied)})


TOOL = Tool(
    id="grep",
    description=DESCRIPTION,
    parameters=GrepArgs,
    execute=execute,
    permission_requests=requests.grep,
)
