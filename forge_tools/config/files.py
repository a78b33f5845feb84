"""Reading a config file, a `{file:...}` target or `run --args`/`--args -` safely: regular files only
(or a stream when asked for one), of a sane size (MAX_BYTES, docs/limits.md).

A project can be cloned from anywhere, and `config`/`check` read it without running it; a symlink
named forge.json that points at /dev/zero or a pipe must give an error, not exhaust memory or hang.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import IO

#: larger than any real config or prompt file; reading stops here
MAX_BYTES = 16 * 1024 * 1024


class NotAFile(OSError):
    """The path is not something to read as text (device, pipe, socket) or is far too large."""


#: texts that stand for files while `check --fix` looks for its fixed point (resolved path -> text)
_PENDING: ContextVar[Mapping[str, str] | None] = ContextVar("pending_texts", default=None)


@contextmanager
def pending_texts(texts: Mapping[Path, str]) -> Iterator[None]:
    """Read these files as if they held these texts (`check --fix` checks its edits again before
    writing anything, and `--diff` writes nothing at all)."""
    token = _PENDING.set({str(path.resolve()): text for path, text in texts.items()})
    try:
        yield
    finally:
        _PENDING.reset(token)


def read_regular_bytes(path: Path) -> bytes:
    """The bytes of a regular file (symlinks followed) of at most MAX_BYTES; OSError otherwise."""
    pending = _PENDING.get()
    if pending:
        text = pending.get(os.path.realpath(path))
        if text is not None:
            return text.encode("utf-8")
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))  # a pipe must not block the open
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise IsADirectoryError(errno.EISDIR, "it is a directory", str(path))
        if not stat.S_ISREG(info.st_mode):
            raise NotAFile(errno.EINVAL, "it is not a regular file (a device, pipe or socket)", str(path))
        if info.st_size > MAX_BYTES:
            raise NotAFile(errno.EFBIG, f"it is larger than {MAX_BYTES // (1024 * 1024)} MiB", str(path))
        with os.fdopen(fd, "rb") as handle:
            fd = -1
            data = handle.read(MAX_BYTES + 1)
    finally:
        if fd >= 0:
            os.close(fd)
    if len(data) > MAX_BYTES:
        raise NotAFile(errno.EFBIG, f"it is larger than {MAX_BYTES // (1024 * 1024)} MiB", str(path))
    return data


def read_stream_text(stream: IO[str]) -> str:
    """At most MAX_BYTES of text from an open stream (stdin when asked for it); NotAFile (EFBIG) when
    there is more, so an endless writer (`yes | ...`, /dev/zero) ends in an error, not in memory."""
    text = stream.read(MAX_BYTES + 1)
    if len(text) > MAX_BYTES or len(text.encode("utf-8", "surrogateescape")) > MAX_BYTES:
        raise NotAFile(errno.EFBIG, f"it is larger than {MAX_BYTES // (1024 * 1024)} MiB", "<stdin>")
    return text


def read_regular_text(path: Path) -> str:
    """The UTF-8 text of a regular file (symlinks followed); OSError / UnicodeDecodeError otherwise."""
    return read_regular_bytes(path).decode("utf-8")


def broken_link_note(path: Path) -> str | None:
    """For a path that does not exist: "a broken symlink to X, which does not exist" when the path
    itself is a symlink (a link whose target is gone reads as "no such file", which sends people
    looking for the wrong file), else None."""
    if not os.path.islink(path):
        return None
    try:
        target = os.readlink(path)
    except OSError:
        return "a broken symlink"
    resolved = Path(path).parent / target
    where = f" ({resolved})" if not os.path.isabs(target) else ""
    return f"a broken symlink to {target}{where}, which does not exist"


NO_SUCH_FILE = "no such file"


def read_failure(path: Path, exc: BaseException) -> str:
    """Why `read_regular_text(path)` raised `exc`, in words a message can carry after "cannot read
    ...:": NO_SUCH_FILE, a broken link or a symlink loop (with what to do), a directory, not UTF-8 text
    (the first bad byte), else the system's reason. Config files and `{file:}` references say it
    alike."""
    if isinstance(exc, FileNotFoundError):
        broken = broken_link_note(path)
        return f"it is {broken}; fix or remove the link" if broken is not None else NO_SUCH_FILE
    if isinstance(exc, IsADirectoryError):
        return "it is a directory"
    if isinstance(exc, UnicodeDecodeError):
        byte = bytes(exc.object)[exc.start:exc.start + 1].hex()
        return f"not UTF-8 text (byte 0x{byte}); save it as UTF-8"
    if isinstance(exc, RuntimeError) or (isinstance(exc, OSError) and exc.errno == errno.ELOOP):
        # RuntimeError: pathlib's "Symlink loop" on some Python versions
        return "it is a symlink loop (a link that leads back to itself); fix or remove the link"
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return str(exc)

