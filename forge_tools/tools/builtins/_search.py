"""File discovery shared by glob and grep: ripgrep when it is on PATH, a pure-Python walk otherwise.

Both paths follow ripgrep's default shape so results do not depend much on which one ran: hidden
files and directories are skipped, and a glob without `/` matches a file's name at any depth (`*.py`
finds every Python file), while a glob with `/` matches the path relative to the search root. The
fallback does not read `.gitignore`; it skips a fixed set of tool/cache directories instead.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from forge_tools.tools.builtins._common import SEARCH_SKIP_DIRS


def rg_executable() -> str | None:
    """The ripgrep binary, or None (also when `FORGE_NO_RIPGREP` is set, to force the fallback)."""
    if os.environ.get("FORGE_NO_RIPGREP"):
        return None
    return shutil.which("rg")


if TYPE_CHECKING:
    import regex

GLOB_MATCH_SECONDS = 2.0  # one name against one glob; a sane glob takes microseconds


class PatternTooSlow(ValueError):
    """A glob whose regex backtracks without end (`*a*a*a...*b` against a long name)."""


@lru_cache(maxsize=256)
def glob_regex(pattern: str) -> regex.Pattern[str]:
    """A compiled regex for a glob: `**` spans directories, `*`/`?` stay within one, `{a,b}` and
    `[...]` work as in ripgrep's globs."""
    i, out, depth = 0, [], 0
    n = len(pattern)
    while i < n:
        ch = pattern[i]
        if ch == "*":
            if pattern.startswith("**", i):
                i += 2
                if pattern.startswith("/", i):
                    i += 1
                    out.append("(?:.*/)?")
                else:
                    out.append(".*")
                continue
            out.append("[^/]*")
        elif ch == "?":
            out.append("[^/]")
        elif ch == "[":
            negated = pattern.startswith(("[!", "[^"), i)
            end = pattern.find("]", i + 2 if negated else i + 1)
            if end == -1:
                out.append(re.escape(ch))
            else:
                body = pattern[i + 1:end]
                if body.startswith("!"):
                    body = "^" + body[1:]
                out.append("[" + body.replace("\\", "\\\\") + "]")
                i = end
        elif ch == "{":
            depth += 1
            out.append("(?:")
        elif ch == "}" and depth:
            depth -= 1
            out.append(")")
        elif ch == "," and depth:
            out.append("|")
        else:
            out.append(re.escape(ch))
        i += 1
    out.extend(")" * depth)
    # The `regex` package (re-compatible) can stop a match: a model's glob must not hang the Python walk.
    import regex  # imported on use: start-up of commands that never search stays lean

    return regex.compile("".join(out) + r"\Z", regex.DOTALL)


def glob_matches(pattern: str, rel: str, seconds: float = GLOB_MATCH_SECONDS) -> bool:
    """ripgrep's rule: a pattern without `/` matches the name, otherwise the relative path."""
    pattern = pattern.removeprefix("./")
    name_only = "/" not in pattern.rstrip("/")
    compiled = glob_regex(pattern if name_only else pattern.lstrip("/"))
    try:
        return compiled.match(rel.rsplit("/", 1)[-1] if name_only else rel, timeout=seconds) is not None
    except TimeoutError:
        raise PatternTooSlow(f"the glob {pattern!r} takes too long to match (many `*` in a row backtrack); "
                             "use a simpler pattern") from None


def walk_files(root: Path) -> Iterator[tuple[Path, str]]:
    """Every regular file under `root` (absolute path, relative posix path), hidden and skipped dirs
    left out; symlinks are not followed (no loops, and nothing outside the root is read)."""
    stack = [(root, "")]
    while stack:
        directory, rel = stack.pop()
        try:
            with os.scandir(directory) as it:
                entries = list(it)
        except OSError:
            continue
        for entry in entries:
            if entry.name.startswith("."):
                continue
            child = f"{rel}{entry.name}"
            try:
                if entry.is_dir(follow_symlinks=False):
                    if entry.name not in SEARCH_SKIP_DIRS:
                        stack.append((Path(entry.path), child + "/"))
                elif entry.is_file(follow_symlinks=False):  # as ripgrep: a link may point outside
                    yield Path(entry.path), child
            except OSError:
                continue


def mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def newest_first(paths: list[Path]) -> list[Path]:
    """Sort by modification time, newest first; ties by path so output is stable."""
    return sorted(paths, key=lambda p: (-mtime(p), str(p)))
