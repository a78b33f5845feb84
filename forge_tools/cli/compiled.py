"""Code Python writes at start-up, compiled once per machine (the console entry's housekeeping).

`dataclasses` writes the methods of every dataclass (`__init__`, `__repr__`, `__eq__`, and a frozen
one's `__setattr__`, `__delattr__` and `__hash__`) as source text and compiles it while the class is
defined, and `collections.namedtuple` does the same for `__new__`. forge-tools and typer define some
eighty such classes before a command answers, and compiling their methods was a tenth of the start-up
(`bench/ratios.py --only startup`). The text is the same on every run, so its compiled code is kept,
as Python keeps a module's bytecode in `__pycache__`: the console entry (`cli/entry.py`) has the two
modules compile through `_Compiled`, which looks each text up in the data dir's
`cache/compiled-<tag>.marshal`, compiles what is not there exactly as they would have (same mode and
file name, no inherited flags), and writes what it compiled back at exit. Only the console process
does this: the library, imported by someone else's program, leaves their modules alone, and so does
the hook.

The file is trusted as `__pycache__` is, and checked as a private file: read only when it is a
regular file the user owns, 0600 in a 0700 folder of theirs, as only `keep` makes it (a copy that
came with a checkout or an archive is not), carrying this interpreter's bytecode magic number and
optimisation level. It is written owner-only (`paths.write_private`: folder 0700, file
0600, an atomic rename), unless bytecode writing is off (`PYTHONDONTWRITEBYTECODE`, `-B`). It holds
compiled texts keyed by the text, so it is never stale, and is started afresh past `MAX_ENTRIES`
(projects' own dataclasses land in it too). Any problem reading or writing it only costs the compile.
"""

from __future__ import annotations

import builtins
import marshal
import os
import sys
from pathlib import Path
from types import CodeType
from typing import Any

#: entries past which the file is started afresh
MAX_ENTRIES = 4096
#: files larger than this are not read
MAX_BYTES = 8 << 20


def cache_file(data_dir: Path) -> Path:
    return data_dir / "cache" / f"compiled-{sys.implementation.cache_tag}.marshal"


def _header() -> bytes:
    from importlib.util import MAGIC_NUMBER

    return MAGIC_NUMBER + bytes([sys.flags.optimize & 0xFF])


class _Compiled:
    """The kept code by (mode, text), and what this process compiled that was not kept."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.kept: dict[tuple[str, str], CodeType] = _read(path)
        self.new: dict[tuple[str, str], CodeType] = {}

    def code(self, source: Any, mode: str) -> Any:
        if not isinstance(source, str):
            return source
        key = (mode, source)
        found = self.kept.get(key) or self.new.get(key)
        if found is None:
            found = self.new[key] = compile(source, "<string>", mode, dont_inherit=True)
        return found

    def exec(self, source: Any, globals: Any = None, locals: Any = None, /, **kwargs: Any) -> None:
        builtins.exec(self.code(source, "exec"), globals, locals, **kwargs)

    def eval(self, source: Any, globals: Any = None, locals: Any = None, /) -> Any:
        return builtins.eval(self.code(source, "eval"), globals, locals)

    def keep(self) -> None:
        """Write what was compiled (with what was kept, unless that grew past `MAX_ENTRIES`)."""
        if not self.new or sys.dont_write_bytecode:
            return
        entries = {**self.kept, **self.new} if len(self.kept) + len(self.new) <= MAX_ENTRIES else self.new
        from forge_tools.paths import write_private_cache

        if not write_private_cache(self.path, _header() + marshal.dumps(entries)):
            return
        self.kept, self.new = entries, {}


def _read(path: Path) -> dict[tuple[str, str], CodeType]:
    import stat

    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError:
        return {}
    try:
        info, folder = os.fstat(fd), os.stat(path.parent)
        # private as `keep` writes it (0600 in a 0700 folder of the user's): a file that arrived any
        # other way (a checkout or an archive of a project holding the data dir, say) is not run
        if (not stat.S_ISREG(info.st_mode) or info.st_uid != os.geteuid() or info.st_mode & 0o077
                or folder.st_uid != os.geteuid() or folder.st_mode & 0o077 or info.st_size > MAX_BYTES):
            return {}
        with os.fdopen(fd, "rb") as source:
            fd = -1
            data = source.read()
    except OSError:
        return {}
    finally:
        if fd >= 0:
            os.close(fd)
    header = _header()
    if not data.startswith(header):
        return {}
    try:
        entries = marshal.loads(data[len(header):])
    except (ValueError, EOFError, TypeError):
        return {}
    if not isinstance(entries, dict):
        return {}
    return {key: code for key, code in entries.items()
            if isinstance(key, tuple) and len(key) == 2 and isinstance(code, CodeType)}


_active: _Compiled | None = None


def install(data_dir: Path) -> None:
    """Compile `dataclasses`' and `collections.namedtuple`'s generated methods through the kept code
    of `data_dir` for the rest of this process (the console entry's own process only)."""
    global _active
    import collections
    import dataclasses

    if _active is not None:
        return
    _active = _Compiled(cache_file(data_dir))
    # a module global of that name shadows the builtin in that module alone
    dataclasses.exec = _active.exec  # type: ignore[attr-defined]
    collections.eval = _active.eval  # type: ignore[attr-defined]


def keep() -> None:
    """Write what this process compiled that was not kept (at the console entry's exit)."""
    if _active is not None:
        _active.keep()
