"""Helpers the path-taking builtins share: resolving paths, the external_directory check (SPEC 4.4),
did-you-mean for missing files, and the shared default ignores.

Kept in one place so that every tool answers "is this outside the project?" the same way.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from forge_tools.permission.calls import PermissionRequest

if TYPE_CHECKING:
    from forge_tools.tools.context import ToolContext

# Directories that listings and searches skip unless asked for explicitly (noise, not code).
DEFAULT_IGNORES: tuple[str, ...] = (
    ".git", "node_modules", "__pycache__", ".venv", "venv", ".mypy_cache", ".pytest_cache", ".ruff_cache",
    ".tox", ".nox", "dist", "build", "target", ".next", ".cache", ".idea", ".vscode", "coverage",
    ".DS_Store", ".hg", ".svn", "vendor", "bin", "obj", ".gradle", ".turbo",
)

# What the pure-Python glob/grep fallbacks skip, approximating ripgrep's defaults (hidden files and
# ignored dirs) without parsing .gitignore files.
SEARCH_SKIP_DIRS: frozenset[str] = frozenset({
    "node_modules", "__pycache__", ".venv", "venv", ".mypy_cache", ".pytest_cache", ".ruff_cache", ".tox",
})


def posix(path: Path | str) -> str:
    return str(path).replace("\\", "/")


def resolve_path(path: str | None, ctx: ToolContext) -> Path:
    """An absolute, lexically normalised path; relative paths are taken against the project root."""
    root = Path(ctx.project_root)
    if not path:
        return Path(os.path.normpath(root.absolute()))
    p = Path(os.path.expanduser(path))
    if not p.is_absolute():
        p = root / p
    return Path(os.path.normpath(p.absolute()))


def is_inside(path: Path, root: Path) -> bool:
    """True when `path` is the root or below it, both lexically and after resolving symlinks."""
    root_abs = Path(os.path.normpath(Path(root).absolute()))
    lexical_ok = path == root_abs or root_abs in path.parents
    try:
        real_root = root_abs.resolve()
        real = path.resolve()
    except OSError:
        return lexical_ok
    return lexical_ok and (real == real_root or real_root in real.parents)


def relative_to_root(path: Path, ctx: ToolContext) -> str:
    """The `edit` pattern: the path relative to the project root (SPEC 4.4), also when outside it
    (`../x`, as opencode does); absolute only when no relative path exists (another drive)."""
    root = Path(os.path.normpath(Path(ctx.project_root).absolute()))
    try:
        return posix(path.relative_to(root))
    except ValueError:
        pass
    try:
        return posix(Path(os.path.relpath(path, root)))
    except ValueError:
        return posix(path)


def external_request(path: Path, ctx: ToolContext, is_dir: bool = False) -> list[PermissionRequest]:
    """`external_directory` with `<dir>/*` when the target lies outside the project root, else nothing.

    A path that is inside only by name (a symlink out of the project) is named by where it really is.
    """
    root = Path(ctx.project_root)
    if is_inside(path, root):
        return []
    root_abs = Path(os.path.normpath(root.absolute()))
    real = real_path(path)
    if path == root_abs or root_abs in path.parents:
        path = real
    directories = [path if is_dir else path.parent]
    # named by where it really is too: a symlink in an allowed directory (the truncation directory's
    # automatic allow) must not carry the allow to its target elsewhere
    if real != path and not (real == root_abs.resolve() or root_abs.resolve() in real.parents):
        directories.append(real if is_dir else real.parent)
    patterns = tuple(dict.fromkeys(posix(d).rstrip("/") + "/*" for d in directories))
    metadata: dict[str, Any] = {"path": posix(path)}
    foreign = [] if is_dir else foreign_in_store(path, ctx)
    if foreign:
        from forge_tools.permission.calls import NOT_COVERED_BY

        metadata[NOT_COVERED_BY] = foreign
    return [PermissionRequest("external_directory", patterns, patterns, metadata)]


def _store_dirs(ctx: ToolContext) -> list[Path]:
    """The output store's directories (the call's store, else the environment's), by name only."""
    from forge_tools import paths

    directory = getattr(ctx.outputs, "directory", None)
    primary = Path(directory) if directory is not None else paths.truncation_dir()
    return [primary, paths.fallback_truncation_dir()]


def foreign_in_store(path: Path, ctx: ToolContext) -> list[str]:
    """The output store's allow patterns (`<store>/*`) that must not cover `path`: all of them when
    `path` lies in the store but is not a file the store wrote (a planted hard link, a moved file, a
    symlink: `OutputStore.wrote`); none for any other path. Checked by name first, so a path elsewhere
    costs no import."""
    dirs = _store_dirs(ctx)
    names = {os.path.normpath(d.absolute()) for d in dirs}
    parents = {os.path.dirname(os.path.normpath(path.absolute())), os.path.dirname(str(real_path(path)))}
    if not parents & (names | {os.path.realpath(d) for d in dirs}):
        return []
    from forge_tools import paths
    from forge_tools.tools.outputs import OutputStore

    store = ctx.outputs if isinstance(ctx.outputs, OutputStore) else OutputStore.from_env()
    if store.holding_dir(path) is None or store.wrote(path):
        return []
    return list(dict.fromkeys(paths.dir_glob(d) for d in (*store.searched(), *dirs)))


def real_path(path: Path) -> Path:
    """Where `path` really is once symlinks are followed (the path itself when that fails)."""
    try:
        return path.resolve()
    except (OSError, RuntimeError):
        return path


def path_patterns(path: Path, render: Callable[[Path], str]) -> tuple[str, ...]:
    """The permission patterns for a path: its own, plus where it really is when a symlink makes that
    differ, so `notes.txt -> .env` still meets the `*.env` rule (more patterns can only be stricter)."""
    return tuple(dict.fromkeys((render(path), render(real_path(path)))))


def linked_metadata(path: Path, patterns: tuple[str, ...]) -> dict[str, list[str]]:
    """`{"linked": patterns}` when `path` is a regular file with more than one hard link, else `{}`.

    Another name of the same file may be one a deny names, and no rule can see the other names, so the
    decision asks for such a file whenever a narrower deny exists (permission.calls)."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return {}
    return {"linked": list(patterns)} if stat.S_ISREG(st.st_mode) and st.st_nlink > 1 else {}


def read_request(path: Path, ctx: ToolContext) -> PermissionRequest:
    """The `read` check for a path (relative to the project root, as opencode 1.18.33 checks it): its
    own name and its real one, and `linked` for a hard link."""
    patterns = path_patterns(path, lambda p: relative_to_root(p, ctx))
    return PermissionRequest("read", patterns, patterns[:1], linked_metadata(path, patterns))


def read_denied(path: Path, ctx: ToolContext) -> bool:
    """Whether the read rules keep `path` from the model: denied, or possibly denied (a hard link while
    a narrower deny exists). grep, glob, list and a directory read leave such files out of what they
    return, so one `read` deny covers every tool that shows file names or contents."""
    if ctx.peek is None:
        return False
    request = read_request(path, ctx)
    decisions = ctx.peek(request.permission, request.patterns, request.metadata)
    if any(d.action == "deny" or d.escalated_by is not None for d in decisions):
        return True
    return bool(foreign_in_store(path, ctx))  # a file planted in the output store is never shown


def left_out_note(count: int, one: str = "file", many: str = "files") -> str:
    """The closing note of a listing or search that left out denied files."""
    noun, them = (one, "it") if count == 1 else (many, "them")
    return f"({count} {noun} left out because the read rules deny reading {them}.)"


def edit_requests(path: Path, ctx: ToolContext) -> list[PermissionRequest]:
    """The `edit` check (path relative to the root), after external_directory when outside it."""
    rels = path_patterns(path, lambda p: relative_to_root(p, ctx))
    edit = PermissionRequest("edit", rels, rels[:1], {"filepath": posix(path), **linked_metadata(path, rels)})
    return [*external_request(path, ctx), edit]


def similar_names(path: Path, limit: int = 3) -> list[str]:
    """Up to `limit` existing paths whose names look like the missing `path` (did-you-mean)."""
    parent = path.parent
    while not parent.is_dir() and parent != parent.parent:
        parent = parent.parent
    try:
        names = os.listdir(parent)
    except OSError:
        return []
    target = path.name.lower()
    by_lower = {n.lower(): n for n in names}
    import difflib  # only when a file is not found (the permission checks never need it)

    close = difflib.get_close_matches(target, list(by_lower), n=limit, cutoff=0.5)
    containing = [low for low in by_lower if low not in close and (target in low or low in target) and low]
    picked = (close + sorted(containing))[:limit]
    return [posix(parent / by_lower[low]) for low in picked]


def not_found_message(kind: str, path: Path) -> str:
    suggestions = similar_names(path)
    text = f"{kind} not found: {posix(path)}"
    if suggestions:
        text += "\nDid you mean one of these?\n" + "\n".join(suggestions)
    return text
