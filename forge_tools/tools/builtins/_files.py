"""Writing files for edit, write and apply_patch: one way to write text safely and to show a diff."""

from __future__ import annotations

import difflib
import os
import tempfile
from pathlib import Path


def read_text(path: Path) -> str:
    """A file's text; UnicodeDecodeError for non-UTF-8 files, which text edits would corrupt."""
    return path.read_bytes().decode("utf-8")


def write_atomic(path: Path, text: str) -> None:
    """Write through a temp file in the same directory and rename, so a crash never leaves half a file.

    The file keeps its permission bits when it existed; parent directories are created. A symlink is
    followed, so the file it points to is changed and the link stays a link.
    """
    if path.is_symlink():
        path = path.resolve()
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = path.stat().st_mode & 0o7777 if path.exists() else None
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(text.encode("utf-8"))
        if mode is not None:
            os.chmod(tmp, mode)
        else:
            os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _umask() -> int:
    """The process umask, read without changing it where the OS allows (setting it to 0 even briefly
    would let another thread create a world-writable file)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    current = os.umask(0o077)
    os.umask(current)
    return current


def unified_diff(old: str, new: str, name: str) -> str:
    return "".join(difflib.unified_diff(
        old.splitlines(keepends=True), new.splitlines(keepends=True), f"a/{name}", f"b/{name}"))
