"""File discovery shared by glob and grep: ripgrep when it is on PATH, a pure-Python walk otherwise.

Both paths follow ripgrep's default shape so results do not depend much on which one ran: hidden
files and directories are skipped, ignore files are honoured, and a glob without `/` matches a file's
name at any depth (`*.py` finds every Python file), while a glob with `/` matches the path relative to
the search root. The fallback reads ignore files as ripgrep does, with pathspec's gitignore rules:
`.gitignore` inside a git repository (from the repository root down, nested files included, plus
`.git/info/exclude`), `.ignore` and `.rgignore` anywhere; a deeper file overrides a shallower one, and
an ignored directory is not entered. It also skips a fixed set of tool/cache directories.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from forge_tools.named_tuple import NamedTuple
from forge_tools.tools.builtins._common import SEARCH_SKIP_DIRS


def rg_executable() -> str | None:
    """The ripgrep binary, or None (also when `FORGE_NO_RIPGREP` is set, to force the fallback)."""
    if os.environ.get("FORGE_NO_RIPGREP"):
        return None
    return shutil.which("rg")


if TYPE_CHECKING:
    import pathspec
    import regex

GLOB_MATCH_SECONDS = 2.0  # one name against one glob; a sane glob takes microseconds


class SearchRefused(ValueError):
    """A search that cannot be run as asked; the message is the tool's one-line error."""


class PatternTooSlow(SearchRefused):
    """A glob whose regex backtracks without end (`*a*a*a...*b` against a long name)."""


class UnreadableIgnoreFile(SearchRefused):
    """An ignore file that is a pipe, a device or larger than the config files' bound (MAX_BYTES): its
    rules cannot be known, and reading it would hang or fill memory (docs/limits.md)."""


SEARCH_SECONDS = 60.0  # a search's deadline (either engine) when the call gives no timeout


class SearchTimedOut(SearchRefused):
    """ripgrep did not finish in time. It opens every ignore file it meets, and one that is a pipe
    makes it wait for ever: the Python walk names such a file, ripgrep cannot (docs/limits.md)."""

    def __init__(self, seconds: float) -> None:
        super().__init__(f"ripgrep did not finish within {seconds:g} s; an ignore file (.gitignore, .ignore, "
                         ".rgignore) that is a pipe or a device makes it wait for ever: look for one "
                         "(FORGE_NO_RIPGREP=1 names it), or give the call a longer timeout")


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


#: the ignore files of one directory, in ripgrep's precedence order (a later file's rules win)
IGNORE_FILES = (".gitignore", ".ignore", ".rgignore")


class _IgnoreFile(NamedTuple):
    base: str  # the directory the rules are relative to, as an absolute path ending in "/"
    spec: pathspec.GitIgnoreSpec


def _git_root(directory: Path) -> Path | None:
    for candidate in (directory, *directory.parents):
        if (candidate / ".git").exists():
            return candidate
    return None


def _ignore_rules(directory: Path, in_git: bool, with_exclude: bool = False) -> _IgnoreFile | None:
    """One directory's ignore rules as one gitignore spec (None when it has none)."""
    import pathspec  # imported on use, with the walk

    lines: list[str] = []
    names = [".git/info/exclude"] if with_exclude else []
    names += [n for n in IGNORE_FILES if in_git or n != ".gitignore"]
    for name in names:
        lines += _ignore_lines(directory / name)
    if not lines:
        return None
    return _IgnoreFile(f"{str(directory).rstrip('/')}/", pathspec.GitIgnoreSpec.from_lines(lines))


def _ignore_lines(path: Path) -> list[str]:
    """An ignore file's lines, read as config files are (a regular file of at most MAX_BYTES); [] when
    there is none or it cannot be opened (as ripgrep skips it); `UnreadableIgnoreFile` for a pipe, a
    device or a file too large."""
    from forge_tools.config.files import MAX_BYTES, NotAFile, read_failure, read_regular_bytes

    try:
        data = read_regular_bytes(path)
    except NotAFile as exc:
        raise UnreadableIgnoreFile(f"cannot read the ignore file {path}: {read_failure(path, exc)}; "
                                   "an ignore file must be a regular file of at most "
                                   f"{MAX_BYTES // (1024 * 1024)} MiB "
                                   "(replace or remove it)") from None
    except OSError:
        return []
    return data.decode("utf-8", errors="replace").splitlines()


def _ignored(path: str, is_dir: bool, rules: tuple[_IgnoreFile, ...]) -> bool:
    """The deepest ignore file with a rule for `path` decides (a `!` rule re-includes)."""
    for rule in reversed(rules):
        if path.startswith(rule.base):
            rel = path[len(rule.base):] + ("/" if is_dir else "")
            verdict = rule.spec.check_file(rel).include
            if verdict is not None:
                return verdict
    return False


def _inherited_rules(root: Path, git_root: Path | None) -> tuple[_IgnoreFile, ...]:
    """The rules of the directories above `root` that apply inside it (up to the repository root)."""
    if git_root is None or git_root == root:
        return ()
    chain = [git_root, *reversed([p for p in root.parents if p.is_relative_to(git_root) and p != git_root])]
    rules = (_ignore_rules(d, True, with_exclude=(d == git_root)) for d in chain)
    return tuple(r for r in rules if r is not None)


def walk_files(root: Path) -> Iterator[tuple[Path, str]]:
    """Every regular file under `root` (absolute path, relative posix path), hidden, ignored and
    skipped dirs left out; symlinks are not followed (no loops, and nothing outside the root is read)."""
    git_root = _git_root(root)
    in_git = git_root is not None
    stack: list[tuple[Path, str, tuple[_IgnoreFile, ...]]] = [(root, "", _inherited_rules(root, git_root))]
    while stack:
        directory, rel, rules = stack.pop()
        own = _ignore_rules(directory, in_git, with_exclude=(directory == git_root))
        if own is not None:
            rules = (*rules, own)
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
                    if entry.name not in SEARCH_SKIP_DIRS and not _ignored(entry.path, True, rules):
                        stack.append((Path(entry.path), child + "/", rules))
                elif entry.is_file(follow_symlinks=False) and not _ignored(entry.path, False, rules):
                    yield Path(entry.path), child  # as ripgrep: a link is not followed (it may point out)
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
