"""Well-known directories (SPEC 5.2, 6.2), resolved from an environment mapping so tests can isolate."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Mapping
from functools import lru_cache
from pathlib import Path


def git_top_or(cwd: Path) -> Path:
    """The top of the git worktree enclosing `cwd` (a `.git` dir or file), else `cwd`: the project root
    (`config.loader.find_project_root`; `forge-tools hook` asks it without loading any config)."""
    for d in (cwd, *cwd.parents):
        if (d / ".git").exists():
            return d
    return cwd


def home_dir(env: Mapping[str, str] | None = None) -> Path:
    env = os.environ if env is None else env
    home = env.get("HOME")
    return Path(home) if home else Path.home()


def data_dir(env: Mapping[str, str] | None = None) -> Path:
    """`FORGE_DATA_DIR`, else `$XDG_DATA_HOME/forge`, else `~/.local/share/forge`; always absolute (a
    relative setting is taken from the current directory), so the permission rule that keeps the
    truncation directory readable names one place, wherever a tool later runs."""
    env = os.environ if env is None else env
    if env.get("FORGE_DATA_DIR"):
        return Path(os.path.abspath(env["FORGE_DATA_DIR"]))
    if env.get("XDG_DATA_HOME"):
        return Path(os.path.abspath(env["XDG_DATA_HOME"])) / "forge"
    return Path(os.path.abspath(home_dir(env))) / ".local" / "share" / "forge"


#: where skills (`SKILL.md` files, at any depth) live in each config directory
SKILL_FOLDERS = ("skill", "skills")


def skill_folders(config_dirs: Iterable[Path | str]) -> list[Path]:
    """The skill folders that exist, in config-directory order (`config/skills` reads them;
    a project without any imports none of the skill code)."""
    return [Path(base) / folder for base in config_dirs for folder in SKILL_FOLDERS
            if (Path(base) / folder).is_dir()]


_TRUE = frozenset({"1", "true", "yes", "on", "y"})


def switched_on(env: Mapping[str, str], name: str) -> bool:
    """An opencode boolean switch (`OPENCODE_DISABLE_*`): set to 1, true, yes, on or y."""
    return env.get(name, "").strip().lower() in _TRUE


def external_skill_roots(home: Path, directory: Path, worktree: Path, env: Mapping[str, str]) -> list[Path]:
    """The `.claude`/`.agents` folders whose `skills/**/SKILL.md` opencode reads, in its order."""
    if switched_on(env, "OPENCODE_DISABLE_EXTERNAL_SKILLS"):
        return []
    claude_off = (switched_on(env, "OPENCODE_DISABLE_CLAUDE_CODE")
                  or switched_on(env, "OPENCODE_DISABLE_CLAUDE_CODE_SKILLS"))
    targets = (".agents",) if claude_off else (".claude", ".agents")
    roots = [home / t for t in targets if (home / t).is_dir()]
    folder = directory
    while True:
        roots += [folder / t for t in targets if (folder / t).is_dir()]
        if folder == worktree or folder.parent == folder:
            break
        folder = folder.parent
    return list(dict.fromkeys(roots))


def truncation_dir(env: Mapping[str, str] | None = None) -> Path:
    return data_dir(env) / "tool-output"


def truncation_glob(env: Mapping[str, str] | None = None) -> str:
    """The `external_directory` pattern that keeps full-output files readable (SPEC 4.3)."""
    return _glob(truncation_dir(env))


def fallback_truncation_dir() -> Path:
    """Where full outputs go when the truncation dir cannot be written: a per-user private directory
    under the system temp dir (`/tmp/forge-tool-output-<uid>`)."""
    uid = os.getuid() if hasattr(os, "getuid") else 0
    return Path(system_temp_dir()) / f"forge-tool-output-{uid}"


def system_temp_dir() -> str:
    """The system temp dir as `tempfile.gettempdir()` chooses it: the first of $TMPDIR, $TEMP, $TMP
    and /tmp that is set and writable. explain, layers and check need only its name (for the fallback's
    `external_directory` rule), and importing tempfile is about 5 ms of their start-up, with a probe
    file written: so tempfile is asked only when the first candidate is not a writable directory, or
    when it is imported already (its answer counts then, `tempfile.tempdir` included)."""
    if "tempfile" not in sys.modules:
        first = next((os.environ[name] for name in ("TMPDIR", "TEMP", "TMP") if os.environ.get(name)),
                     "/tmp" if os.name == "posix" else None)
        if first is not None and os.path.isdir(first) and os.access(first, os.W_OK | os.X_OK):
            return os.path.abspath(first)
    import tempfile

    return os.path.abspath(tempfile.gettempdir())


def fallback_is_ours(directory: Path | None = None) -> bool:
    """The fallback exists as a real directory (not a link) that is this user's alone: only then is it
    the tool's own private dir. In a shared temp dir someone else may have made one by that name."""
    import stat

    directory = fallback_truncation_dir() if directory is None else directory
    try:
        st = os.lstat(directory)
    except OSError:
        return False
    owned = not hasattr(os, "getuid") or st.st_uid == os.getuid()
    return stat.S_ISDIR(st.st_mode) and owned and not st.st_mode & 0o022


def truncation_globs(env: Mapping[str, str] | None = None) -> list[str]:
    """Every `external_directory` pattern for the tool's own output dirs: the fallback (when it is
    ours; see `fallback_is_ours`) and then the truncation dir."""
    globs = [truncation_glob(env)]
    fallback = fallback_truncation_dir()
    if fallback != truncation_dir(env) and fallback_is_ours(fallback):
        globs.insert(0, _glob(fallback))
    return globs


def dir_glob(directory: Path) -> str:
    """The pattern for everything below `directory` (the form of the truncation dir's allow)."""
    return str(directory).replace("\\", "/") + "/*"


_glob = dir_glob


def global_config_dir(env: Mapping[str, str] | None = None) -> Path:
    """`$XDG_CONFIG_HOME/forge/`, default `~/.config/forge/`."""
    env = os.environ if env is None else env
    if env.get("XDG_CONFIG_HOME"):
        return Path(env["XDG_CONFIG_HOME"]) / "forge"
    return home_dir(env) / ".config" / "forge"


@lru_cache(maxsize=4096)
def relative_to_root(path: str, root: str) -> str | None:
    """`path` relative to the directory `root` (both resolved) as a posix path, or None when it is not
    inside it. Cached: a report or a table names the same few files on thousands of rows, and each
    resolution is a round of system calls."""
    try:
        try:
            resolved = Path(path).resolve()
        except RuntimeError:  # a symlink loop (Python before 3.13): the link's own place
            resolved = Path(path).parent.resolve() / Path(path).name
        return resolved.relative_to(Path(root).resolve()).as_posix()
    except (ValueError, OSError, RuntimeError):
        return None


def opencode_global_dir(env: Mapping[str, str] | None = None) -> Path:
    """opencode's global config dir: `$XDG_CONFIG_HOME/opencode/`, default `~/.config/opencode/`."""
    env = os.environ if env is None else env
    if env.get("XDG_CONFIG_HOME"):
        return Path(env["XDG_CONFIG_HOME"]) / "opencode"
    return home_dir(env) / ".config" / "opencode"


def opencode_data_dir(env: Mapping[str, str] | None = None) -> Path:
    """opencode's data dir (its global plans live in `plans/`): `$XDG_DATA_HOME/opencode`, default
    `~/.local/share/opencode`; absolute."""
    env = os.environ if env is None else env
    if env.get("XDG_DATA_HOME"):
        return Path(os.path.abspath(env["XDG_DATA_HOME"])) / "opencode"
    return Path(os.path.abspath(home_dir(env))) / ".local" / "share" / "opencode"


def sandbox_record(root: str | Path) -> Path:
    """Where `run`'s sandbox records the placeholders it holds on a project's config names
    (`tools.sandbox.Placeholders`): one file per project root, in the data dir."""
    import hashlib

    key = hashlib.sha256(os.path.realpath(root).encode("utf-8", "surrogateescape")).hexdigest()[:24]
    return data_dir() / "sandbox" / f"{key}.json"


def is_sandbox_placeholder(path: Path) -> bool:
    """Whether `path` is an empty placeholder a sandboxed `run` call holds on a config name that does
    not exist yet (then every reader takes the name as absent, as it was before the call). Only an
    empty file or folder can be one: anything else is answered without looking for the record."""
    import stat

    try:
        info = os.lstat(path)
        if stat.S_ISDIR(info.st_mode):
            if os.listdir(path):
                return False
        elif not (stat.S_ISREG(info.st_mode) and info.st_size == 0):
            return False
    except OSError:
        return False
    import json

    if not (data_dir() / "sandbox").is_dir():  # no sandboxed call ever ran here: nothing to look up
        return False
    record = sandbox_record(os.path.dirname(os.path.abspath(path)))
    if not record.is_file():  # no sandboxed call ran in this project: nothing else is read
        return False
    try:
        held = {(str(p), int(i)) for p, i in json.loads(record.read_text(encoding="utf-8"))}
    except (OSError, ValueError, TypeError):
        return False
    real = os.path.join(os.path.realpath(os.path.dirname(os.path.abspath(path))), os.path.basename(path))
    return (real, info.st_ino) in held


def write_private(path: Path, text: str | bytes) -> None:
    """Write a file of the tool's own readable by its owner only (folder made and kept 0700, file
    0600 from its first byte), atomically. Raises OSError."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    os.chmod(path.parent, 0o700)
    replace_private(path, text)


def replace_private(path: Path, text: str | bytes) -> None:
    """`text` as the whole new content of `path`, 0600 from its first byte (a temp file in the same
    folder, then a rename: a reader sees the old file or the new one, never half). The folder is left
    as it is (it may be a person's own, e.g. `check --output-file`). Raises OSError."""
    import tempfile

    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)  # 0600
    try:
        if isinstance(text, bytes):
            with os.fdopen(fd, "wb") as binary:
                binary.write(text)
        else:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_private_cache(path: Path, text: str | bytes) -> bool:
    """`write_private` for a cache: False when it cannot be written (a cache that cannot be kept only
    costs speed)."""
    try:
        write_private(path, text)
    except OSError:
        return False
    return True


def file_checksum(path: Path) -> int | None:
    """CRC-32 of a file's bytes, or None when it cannot be read (the checksums that tell whether a
    shipped cache was generated from the sources beside it)."""
    import zlib

    try:
        return zlib.crc32(path.read_bytes())
    except OSError:
        return None
