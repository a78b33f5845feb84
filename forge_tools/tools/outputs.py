"""The private truncation directory: full tool outputs under sortable unique ids (SPEC 5.2).

A model sees only a preview of a long output; the whole text lands here so nothing is lost. The
directory is the user's alone (0700, files 0600), ids sort by creation time, and files are created with
`O_EXCL` so two runs at once can never share one. When the directory cannot be written, a private
directory under the system temp dir takes over and every file says so in `fallback_note`.
"""

from __future__ import annotations

import builtins
import contextlib
import itertools
import os
import re
import secrets
import stat
import tempfile
import threading
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

from forge_tools import paths
from forge_tools.named_tuple import NamedTuple

if TYPE_CHECKING:
    from forge_tools.tools.truncation import SettingsLike

DIR_MODE = 0o700
FILE_MODE = 0o600
DEFAULT_RETENTION_DAYS = 7
CLEANUP_INTERVAL_SECONDS = 3600.0
STAMP_NAME = ".last-cleanup"
INDEX_NAME = ".index"  # one line per file the store created: name, device, inode

_ID_RE = re.compile(r"^(tool_[0-9a-f]{16}_[0-9a-z]{8})(?:-([A-Za-z0-9_-]+))?\.txt$")
_ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz"
_counter = itertools.count()
_id_lock = threading.Lock()
_last_stamp = 0


def new_id(now_ns: int | None = None) -> str:
    """`tool_<16 hex digits of time>_<8 random chars>`: sorts by creation order within a process.

    The time part is microseconds since the epoch, bumped past the previous id so that ids made in the
    same microsecond still sort in creation order; the random part keeps separate processes apart.
    """
    global _last_stamp
    micros = (time.time_ns() if now_ns is None else now_ns) // 1000
    with _id_lock:
        stamp = max(micros, _last_stamp + 1)
        _last_stamp = stamp
    rand = "".join(secrets.choice(_ALPHABET) for _ in range(8))
    return f"tool_{stamp:016x}_{rand}"


def _safe_tool_name(tool_id: str) -> str:
    cleaned = re.sub(r"[^A-Za-z0-9_-]+", "_", tool_id).strip("_-")
    return cleaned[:64]


def encode_text(text: str) -> bytes:
    """UTF-8, giving back the exact bytes a caller decoded with `surrogateescape`."""
    try:
        return text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return text.encode("utf-8", "replace")


class OutputEntry(NamedTuple):
    """One stored full output, as `outputs list` shows it."""

    id: str
    path: Path
    tool: str | None
    size: int
    mtime: float
    fallback: bool = False

    def age_days(self, now: float | None = None) -> float:
        return ((time.time() if now is None else now) - self.mtime) / 86400.0

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "path": str(self.path),
            "tool": self.tool,
            "size": self.size,
            "modified": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(self.mtime)),
            "fallback": self.fallback,
        }


class OutputFile:
    """A full-output file being written; binary, so the exact bytes of a command are kept."""

    def __init__(self, id: str, path: Path, fd: int, fallback_note: str | None = None) -> None:
        self.id = id
        self.path = path
        self.fallback_note = fallback_note
        self.bytes_written = 0
        self._file = os.fdopen(fd, "wb")

    @property
    def closed(self) -> bool:
        return self._file.closed

    def write(self, data: bytes | bytearray | memoryview) -> int:
        n = self._file.write(data)
        self.bytes_written += n
        return n

    def flush(self) -> None:
        self._file.flush()

    def close(self) -> None:
        if not self._file.closed:
            self._file.close()

    def __enter__(self) -> OutputFile:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"OutputFile({self.id!r}, {str(self.path)!r})"


def _prepare_private_dir(directory: Path) -> None:
    """Create `directory` (and parents), make it 0700, and prove a file can be made in it."""
    directory.mkdir(parents=True, exist_ok=True, mode=DIR_MODE)
    st = os.lstat(directory)
    if not stat.S_ISDIR(st.st_mode):
        raise NotADirectoryError(f"{directory} is not a directory")
    if stat.S_IMODE(st.st_mode) != DIR_MODE:
        os.chmod(directory, DIR_MODE)
    if not os.access(directory, os.W_OK | os.X_OK):
        raise PermissionError(f"{directory} is not writable")


def _fallback_dir(root: Path) -> Path:
    """A per-user private dir under `root` (the system temp dir); a fresh `mkdtemp` if that one is not
    ours."""
    uid = _uid()
    candidate = root / f"forge-tool-output-{uid}"
    try:
        candidate.mkdir(mode=DIR_MODE, exist_ok=True)
        st = os.lstat(candidate)
        owned = not hasattr(os, "getuid") or st.st_uid == uid
        if stat.S_ISDIR(st.st_mode) and owned:
            _prepare_private_dir(candidate)
            return candidate
    except OSError:
        pass
    return Path(tempfile.mkdtemp(prefix="forge-tool-output-", dir=root))


class OutputStore:
    """The truncation directory: create, list, look up and clean full-output files."""

    def __init__(
        self,
        directory: Path,
        retention_days: float = DEFAULT_RETENTION_DAYS,
        fallback_root: Path | None = None,
    ) -> None:
        self.directory = Path(directory)
        self.retention_days = retention_days
        self.fallback_root = Path(fallback_root) if fallback_root is not None else (
            paths.fallback_truncation_dir().parent
        )
        self.fallback_directory: Path | None = None
        self._lock = threading.Lock()

    @classmethod
    def from_env(
        cls, env: Mapping[str, str] | None = None, retention_days: float = DEFAULT_RETENTION_DAYS
    ) -> OutputStore:
        """The store in `<data dir>/tool-output/` (FORGE_DATA_DIR, XDG_DATA_HOME, ~/.local/share)."""
        return cls(paths.truncation_dir(env), retention_days=retention_days)

    @classmethod
    def from_config(cls, loaded: SettingsLike, env: Mapping[str, str] | None = None) -> OutputStore:
        """Like `from_env`, with `tool_output.retention_days` from a loaded config when it is set."""
        from forge_tools.errors import ConfigError, ConfigProblem
        from forge_tools.tools.truncation import tool_output_setting

        value, origin = tool_output_setting(loaded, "retention_days")
        if value is None:
            return cls.from_env(env)
        if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
            message = f"tool_output.retention_days must be a number of days (0 or more), got {value!r}"
            raise ConfigError(message, origin, code=ConfigProblem.TYPE)
        return cls.from_env(env, retention_days=value)

    # -- writing -----------------------------------------------------------------------------------

    def _target_dir(self) -> tuple[Path, str | None]:
        """The primary dir when it can be used, else the fallback plus a note saying why."""
        try:
            _prepare_private_dir(self.directory)
            return self.directory, None
        except OSError as exc:
            reason = exc.strerror or str(exc)
            with self._lock:
                if self.fallback_directory is None or not self.fallback_directory.is_dir():
                    self.fallback_directory = _fallback_dir(self.fallback_root)
                fallback = self.fallback_directory
            note = (
                f"the truncation directory {self.directory} could not be written ({reason}); "
                f"the full output was saved in {fallback} instead"
            )
            return fallback, note

    def create(self, tool_id: str) -> OutputFile:
        """A new, empty, private file for one call's full output (never shared with another call)."""
        directory, note = self._target_dir()
        suffix = _safe_tool_name(tool_id)
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL
        flags |= getattr(os, "O_BINARY", 0) | getattr(os, "O_NOFOLLOW", 0)
        for _ in range(100):
            oid = new_id()
            path = directory / (f"{oid}-{suffix}.txt" if suffix else f"{oid}.txt")
            try:
                fd = os.open(path, flags, FILE_MODE)
            except FileExistsError:
                continue
            with contextlib.suppress(OSError):
                os.fchmod(fd, FILE_MODE)
                st = os.fstat(fd)
                _append_index(directory, f"{path.name}\t{st.st_dev}\t{st.st_ino}\n")
            return OutputFile(oid, path, fd, note)
        raise FileExistsError(f"could not create a unique output file in {directory}")

    def write_bytes(self, tool_id: str, data: bytes) -> OutputFile:
        with self.create(tool_id) as f:
            f.write(data)
        return f

    def write_text(self, tool_id: str, text: str) -> OutputFile:
        """Store a whole text at once (UTF-8; surrogate-escaped bytes come back exactly)."""
        return self.write_bytes(tool_id, encode_text(text))

    # -- reading -----------------------------------------------------------------------------------

    def _dirs(self) -> Iterator[tuple[Path, bool]]:
        yield self.directory, False
        fallback = self.fallback_directory or self.fallback_root / f"forge-tool-output-{_uid()}"
        if fallback != self.directory:
            yield fallback, True

    def searched(self) -> builtins.list[Path]:
        """Every directory `list` looks in: the truncation dir, then the temp-dir fallback."""
        return [directory for directory, _ in self._dirs()]

    def where(self, entries: builtins.list[OutputEntry] | None = None) -> str:
        """The directories that really hold `entries` (all stored outputs by default), for messages:
        `/data/tool-output`, or `/tmp/forge-tool-output-1000 (fallback)`, or both joined by "and"; with
        no entries, every directory looked in ("A or B (fallback)")."""
        entries = self.list() if entries is None else entries
        used = {e.path.parent for e in entries}
        dirs = [(d, fb) for d, fb in self._dirs() if d in used] if used else builtins.list(self._dirs())
        names = [f"{d}{' (fallback)' if fb else ''}" for d, fb in dirs]
        return (" and " if used else " or ").join(names)

    def holding_dir(self, path: Path) -> Path | None:
        """The store directory `path` lies directly in, by name or once symlinks are followed; None
        when it is not in the store."""
        candidates = {os.path.normpath(path.absolute()), os.path.realpath(path)}
        for directory, _ in self._dirs():
            names = {os.path.normpath(directory.absolute()), os.path.realpath(directory)}
            if any(os.path.dirname(c) in names for c in candidates):
                return directory
        return None

    def wrote(self, path: Path) -> bool:
        """Whether `path` is a full-output file this store wrote and nothing has changed since: a
        regular file of this user's with one link, named as the store names files, directly in a store
        directory, and recorded in that directory's index under its name and inode. A file planted in
        the store (a hard link, a moved or copied file, a symlink) is not, and gets none of the
        store's trust: the truncation dir's allow does not cover it and `outputs` does not show it."""
        directory = self.holding_dir(path)
        if directory is None or _ID_RE.match(path.name) is None:
            return False
        try:
            st = os.lstat(path)
        except OSError:
            return False
        return _vouched(st, path.name, _read_index(directory))

    def list(self) -> builtins.list[OutputEntry]:
        """Every stored output the store wrote (`wrote`), oldest first (ids sort by creation time)."""
        entries: list[OutputEntry] = []
        for directory, is_fallback in self._dirs():
            try:
                names = os.listdir(directory)
            except OSError:
                continue
            index = _read_index(directory)
            for name in names:
                match = _ID_RE.match(name)
                if match is None:
                    continue
                path = directory / name
                try:
                    st = os.lstat(path)
                except OSError:
                    continue
                if not _vouched(st, name, index):
                    continue
                entries.append(
                    OutputEntry(match.group(1), path, match.group(2), st.st_size, st.st_mtime, is_fallback)
                )
        entries.sort(key=lambda e: e.id)
        return entries

    def get(self, output_id: str) -> OutputEntry | None:
        """Look an output up by id (or by its full file name)."""
        wanted = Path(output_id).name
        for entry in self.list():
            if wanted in (entry.id, entry.path.name):
                return entry
        return None

    # -- cleanup -----------------------------------------------------------------------------------

    def clean(
        self, older_than_days: float | None = None, dry_run: bool = False, now: float | None = None
    ) -> builtins.list[OutputEntry]:
        """Remove outputs last written more than `older_than_days` ago (default: the retention)."""
        days = self.retention_days if older_than_days is None else older_than_days
        now = time.time() if now is None else now
        cutoff = now - days * 86400.0
        removed: list[OutputEntry] = []
        for entry in self.list():
            if entry.mtime >= cutoff:
                continue
            if not dry_run:
                try:
                    entry.path.unlink()
                except FileNotFoundError:
                    continue
                except OSError:
                    continue
            removed.append(entry)
        if removed and not dry_run:
            for directory, _ in self._dirs():
                _prune_index(directory)
        return removed

    def maybe_cleanup(self, now: float | None = None) -> builtins.list[OutputEntry] | None:
        """Run `clean()` when the last run is over an hour old; None when it was skipped.

        The stamp file's mtime records the last run, so separate processes share the same schedule.
        """
        now = time.time() if now is None else now
        stamp = self.directory / STAMP_NAME
        try:
            st = os.lstat(stamp)
            last = st.st_mtime if _plain_file(st) else None
        except OSError:
            last = None
        if last is not None and 0 <= now - last < CLEANUP_INTERVAL_SECONDS:
            return None
        try:
            _prepare_private_dir(self.directory)
            _touch_stamp(stamp, now)
        except OSError:
            return None
        return self.clean(now=now)


def _vouched(st: os.stat_result, name: str, index: set[tuple[str, int, int]]) -> bool:
    owned = not hasattr(os, "getuid") or st.st_uid == os.getuid()
    return _plain_file(st) and owned and (name, st.st_dev, st.st_ino) in index


def _open_index(directory: Path, flags: int) -> int:
    """The index file, opened without following a link; OSError when it is not a plain file."""
    fd = os.open(directory / INDEX_NAME, flags | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0),
                 FILE_MODE)
    st = os.fstat(fd)
    owned = not hasattr(os, "getuid") or st.st_uid == os.getuid()
    if not (_plain_file(st) and owned):
        os.close(fd)
        raise OSError(f"{directory / INDEX_NAME} is not the store's own index")
    return fd


def _append_index(directory: Path, line: str) -> None:
    fd = _open_index(directory, os.O_WRONLY | os.O_CREAT | os.O_APPEND)
    try:
        os.write(fd, line.encode("utf-8", "surrogateescape"))
    finally:
        os.close(fd)


def _read_index(directory: Path) -> set[tuple[str, int, int]]:
    """(name, device, inode) of every file the store recorded in `directory` (empty when unreadable)."""
    try:
        fd = _open_index(directory, os.O_RDONLY)
    except OSError:
        return set()
    with os.fdopen(fd, "rb") as handle:
        data = handle.read()
    found: set[tuple[str, int, int]] = set()
    for line in data.decode("utf-8", "surrogateescape").splitlines():
        parts = line.split("\t")
        if len(parts) == 3 and parts[1].isdigit() and parts[2].isdigit():
            found.add((parts[0], int(parts[1]), int(parts[2])))
    return found


def _prune_index(directory: Path) -> None:
    """Keep the index to the files still there (after a clean)."""
    index = _read_index(directory)
    if not index:
        return
    kept = sorted(entry for entry in index if (directory / entry[0]).exists())
    if len(kept) == len(index):
        return
    with contextlib.suppress(OSError):
        paths.replace_private(directory / INDEX_NAME,
                              "".join(f"{name}\t{dev}\t{ino}\n" for name, dev, ino in kept))


def _plain_file(st: os.stat_result) -> bool:
    """A regular file with one name: the only kind of stamp that is ours to read and touch."""
    return stat.S_ISREG(st.st_mode) and st.st_nlink == 1


def _touch_stamp(stamp: Path, now: float) -> None:
    """Set the stamp's mtime without following a link: a symlink (dangling or not) or a hard link
    planted as `.last-cleanup` is replaced by a fresh file, so no other file is created or touched."""
    flags = os.O_WRONLY | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)
    try:
        st = os.lstat(stamp)
    except FileNotFoundError:
        st = None
    if st is not None and not _plain_file(st):
        os.unlink(stamp)  # removes the link itself, never its target
    if st is None or not _plain_file(st):
        flags |= os.O_EXCL  # a link planted again meanwhile makes this fail instead of following it
    fd = os.open(stamp, flags, FILE_MODE)
    try:
        if not _plain_file(os.fstat(fd)):
            raise OSError(f"{stamp} is not a plain file")
        os.utime(fd, (now, now))
    finally:
        os.close(fd)


def _uid() -> int:
    return os.getuid() if hasattr(os, "getuid") else 0
