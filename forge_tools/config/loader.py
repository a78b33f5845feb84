"""Discovery and load order (SPEC 6.2): find every source, parse and validate each, then merge.

Nothing is half-applied: every source is read and validated before any is merged, and the first
problem stops the load with a `ConfigError` that names its location.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, cast

from forge_tools.config.merge import merge
from forge_tools.config.validation import validate_tree
from forge_tools.errors import ConfigError, UsageError
from forge_tools.named_tuple import NamedTuple
from forge_tools.origin import Node, Origin
from forge_tools.paths import (
    external_skill_roots,
    git_top_or,
    global_config_dir,
    home_dir,
    opencode_global_dir,
)

if TYPE_CHECKING:
    from forge_tools.config.schema import ConfigModel

#: config file names, in the order they load when several sit in one directory (later wins):
#: the opencode compatibility files first, so forge's own files override them (`opencode.jsonc`
#: after `opencode.json`, as opencode 1.18.33 loads them); then by format.
CONFIG_FILE_ORDER: tuple[str, ...] = (
    "opencode.json",
    "opencode.jsonc",
    "forge.json",
    "forge.jsonc",
    "forge.toml",
    "forge.yaml",
    "forge.yml",
)
#: the files opencode reads in its global dir, in its order (`config.json` is its legacy name)
OPENCODE_GLOBAL_FILES: tuple[str, ...] = ("config.json", "opencode.json", "opencode.jsonc")

Step = Literal["global", "OPENCODE_CONFIG", "FORGE_CONFIG", "project", "config-dir", "OPENCODE_CONFIG_DIR",
               "FORGE_CONFIG_DIR", "agent-file", "mode-file", "OPENCODE_CONFIG_CONTENT",
               "FORGE_CONFIG_CONTENT", "--config", "managed", "OPENCODE_PERMISSION", "FORGE_PERMISSION"]
#: the steps whose source is an environment variable holding JSON merged into `permission`
ENV_PERMISSION: tuple[str, ...] = ("OPENCODE_PERMISSION", "FORGE_PERMISSION")
#: the person's own config (not the project's): the global config dirs' files and `FORGE_CONFIG`
PERSONAL_STEPS = frozenset({"global", "FORGE_CONFIG"})


def substitutes(step: str) -> bool:
    """Whether `{env:}`/`{file:}` are substituted in a source: in every config file and in the
    `*_CONFIG_CONTENT` values; opencode parses `OPENCODE_PERMISSION` as plain JSON."""
    return step != "OPENCODE_PERMISSION"


class LoadOptions(NamedTuple):
    """What a command asks for: where it runs, an explicit project root, overlays, the environment."""

    cwd: Path
    project: Path | None = None
    overlays: tuple[Path, ...] = ()
    env: Mapping[str, str] | None = None


class ConfigSource(NamedTuple):
    """One source that was applied, in load order: a file or an environment variable."""

    step: Step
    origin: Origin  # file path or env name, no line
    path: Path | None = None

    def describe(self) -> str:
        return str(self.path) if self.path is not None else f"env {self.origin.name}"

    @property
    def personal(self) -> bool:
        """A source of the person's own config (see `PERSONAL_STEPS`), not of the project."""
        return self.step in PERSONAL_STEPS or self.step.startswith("global")


class PluginSpec(NamedTuple):
    """A `plugin` entry: the spec as written, where, and the directory relative specs resolve against."""

    spec: str
    origin: Origin
    base_dir: Path
    options: dict[str, Any] | None = None  # the options of a `[spec, options]` entry


@dataclass
class LoadedConfig:
    """The merged, validated config with its origins and the places it came from."""

    project_root: Path
    cwd: Path
    tree: Node
    sources: list[ConfigSource] = field(default_factory=list)
    config_dirs: list[Path] = field(default_factory=list)
    plugin_specs: list[PluginSpec] = field(default_factory=list)
    #: each source's own tree as it was read, parallel to `sources`: what needs one source's values
    #: (the person's own config for FT112, `explain`'s overrides) merges these, never reads the file again
    source_trees: list[Node] = field(default_factory=list)
    #: the `.claude`/`.agents` folders whose `skills/` opencode reads (`paths.external_skill_roots`)
    skill_roots: list[Path] = field(default_factory=list)
    #: the folders of the config's `skills.paths` (`config.skills.skill_paths`, read on first use)
    skill_paths: list[Path] = field(default_factory=list)
    #: what opencode ignores in its own sources and so forge-tools did (`config.reader.SourceRead`);
    #: none for a source given in `already_read` (`check` has them from its own read)
    ignored: list[ConfigError] = field(default_factory=list)
    #: what the layers above derive from this config and keep with it, by key, computed once per
    #: loaded config (`runtimes.found.found_runtimes`: the agents whose files are here)
    memo: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @cached_property
    def data(self) -> ConfigModel:
        """The merged config as the pydantic model (built on first use: nothing in forge-tools reads it,
        every command reads `tree`, which keeps where each value was written)."""
        from forge_tools.config.schema import ConfigModel

        return ConfigModel.model_validate(self.tree.plain())

    @property
    def personal_files(self) -> list[ConfigSource]:
        """The person's own config files, in load order (what a project may loosen: FT112)."""
        return [s for s in self.sources if s.personal and s.path is not None]

    def node_at(self, *keys: str) -> Node | None:
        node: Node | None = self.tree
        for key in keys:
            node = node.get(key) if node is not None else None
        return node

    def origin_of(self, *keys: str) -> Origin | None:
        """Where the value at `keys` was written (None when no source sets it)."""
        node = self.node_at(*keys)
        return node.origin if node is not None else None


#: the files opencode 1.18.33 reads in its managed config dir, in its order
MANAGED_FILES: tuple[str, ...] = ("opencode.json", "opencode.jsonc")


def managed_config_dir(env: Mapping[str, str]) -> Path:
    """opencode's managed config dir: `OPENCODE_TEST_MANAGED_CONFIG_DIR` (what opencode 1.18.33 itself
    honours, for tests), else `/etc/opencode` (macOS: `/Library/Application Support/opencode`,
    Windows: `%ProgramData%\\opencode`)."""
    import sys

    if env.get("OPENCODE_TEST_MANAGED_CONFIG_DIR"):
        return Path(env["OPENCODE_TEST_MANAGED_CONFIG_DIR"])
    if sys.platform == "darwin":
        return Path("/Library/Application Support/opencode")
    if sys.platform == "win32":
        return Path(env.get("ProgramData") or "C:\\ProgramData") / "opencode"
    return Path("/etc/opencode")


def _flag(env: Mapping[str, str], name: str) -> bool:
    return env.get(name, "").strip().lower() not in ("", "0", "false", "no", "off")


def opencode_flag(env: Mapping[str, str], name: str) -> bool:
    """An `OPENCODE_*` switch as opencode 1.18.33 reads it: on only for `true` or `1` (any case)."""
    return env.get(name, "").lower() in ("true", "1")


def find_project_root(cwd: Path, project: Path | None = None) -> Path:
    """`--project`, else the top of the enclosing git worktree (a `.git` dir or file), else `cwd`."""
    if project is not None:
        root = (cwd / project).resolve() if not project.is_absolute() else project.resolve()
        if not root.is_dir():
            raise UsageError(f"not a directory: {project}", where="--project")
        return root
    return git_top_or(cwd)


def _git_top(start: Path) -> Path | None:
    for d in (start, *start.parents):
        if (d / ".git").exists():
            return d
    return None


def _levels(root: Path, cwd: Path) -> list[Path]:
    """The directories whose config files and `.opencode/`/`.forge/` dirs apply, top first: as opencode
    1.18.33 searches them, from where it runs (the cwd, or the project dir when the cwd is outside it)
    up to the top of the enclosing git worktree, or up to `/` outside any git repo. So the root's
    opencode.jsonc applies in `services/api` (`check services/api` included)."""
    start = cwd if cwd == root or root in cwd.parents else root
    top = _git_top(start) or Path(start.anchor or "/")
    levels = [start]
    while levels[-1] != top and levels[-1].parent != levels[-1]:
        levels.append(levels[-1].parent)
    return list(reversed(levels))


def _files_in(directory: Path, names: tuple[str, ...] = CONFIG_FILE_ORDER) -> list[Path]:
    """The config files of one directory, in `names` order (anything by that name, so a
    directory named forge.json is reported rather than skipped)."""
    from forge_tools.paths import is_sandbox_placeholder

    return [directory / name for name in names if os.path.lexists(directory / name)
            and not is_sandbox_placeholder(directory / name)]  # a sandboxed call's: not there


def discover(opts: LoadOptions, agent_files: bool = False
             ) -> tuple[Path, Path, list[tuple[Step, Path | str]], list[Path]]:
    """Project root, cwd, every source in load order (a path, or an env var name) and the config dirs.

    The order is opencode 1.18.33's, with forge's own counterpart right after each opencode source
    (so forge's wins when both are set): global files (opencode's dir, then forge's); the
    `OPENCODE_CONFIG` / `FORGE_CONFIG` file; project files from the root down to the cwd; then the
    config directories: the global dirs, each `.opencode/` from the cwd up to the root (the root's
    wins, as in opencode), each `.forge/` from the root down to the cwd, `~/.opencode/`, `~/.forge/`,
    `OPENCODE_CONFIG_DIR`, `FORGE_CONFIG_DIR`; then `*_CONFIG_CONTENT`, `--config`, opencode's managed
    config dir (`managed_config_dir`), `*_PERMISSION`.

    With `agent_files`, the Markdown agents of each config directory are sources too, each right
    after its directory's config files: opencode reads every directory's agents after the config
    files found so far, so an agent file overrides the same agent in an opencode.json of the project.
    """
    from forge_tools.config.agent_files import find_agent_files
    from forge_tools.paths import is_sandbox_placeholder

    env = os.environ if opts.env is None else opts.env
    cwd = opts.cwd.resolve()
    root = find_project_root(cwd, opts.project)
    levels = _levels(root, cwd)
    project_enabled = not (_flag(env, "FORGE_DISABLE_PROJECT_CONFIG")
                           or opencode_flag(env, "OPENCODE_DISABLE_PROJECT_CONFIG"))
    home = home_dir(env)
    sources: list[tuple[Step, Path | str]] = []
    dirs_seen: set[Path] = set()

    def directory(step: Step, d: Path | None, names: tuple[str, ...] = CONFIG_FILE_ORDER) -> None:
        """A config directory's files (none for the global dirs, read first) and its agents."""
        if d is None or not d.is_dir() or d.resolve() in dirs_seen or is_sandbox_placeholder(d):
            return
        dirs_seen.add(d.resolve())
        sources.extend((step, p) for p in _files_in(d, names))
        if agent_files:
            sources.extend(("mode-file" if primary else "agent-file", path)
                           for _, path, primary in find_agent_files(d))

    opencode_global, forge_global = opencode_global_dir(env), global_config_dir(env)
    sources += [("global", p) for p in _files_in(opencode_global, OPENCODE_GLOBAL_FILES)]
    sources += [("global", p) for p in _files_in(forge_global)]
    for name in ("OPENCODE_CONFIG", "FORGE_CONFIG"):
        if env.get(name):
            sources.append((cast(Step, name), _absolute(Path(env[name]), cwd)))
    opencode_dirs: list[Path] = []
    forge_dirs: list[Path] = []
    if project_enabled:
        for level in levels:
            sources += [("project", p) for p in _files_in(level)]
        opencode_dirs = [level / ".opencode" for level in reversed(levels)]
        forge_dirs = [level / ".forge" for level in levels]
    extra = {"OPENCODE_CONFIG_DIR": _absolute(Path(env["OPENCODE_CONFIG_DIR"]), cwd)
             if env.get("OPENCODE_CONFIG_DIR") else None,
             "FORGE_CONFIG_DIR": _named_dir(env, "FORGE_CONFIG_DIR", cwd)}
    directory("global", opencode_global, ())
    directory("global", forge_global, ())
    for d in (*opencode_dirs, *forge_dirs, home / ".opencode"):
        directory("config-dir", d)
    directory("config-dir", home / ".forge", ())  # agents only (SPEC 6.2)
    directory("OPENCODE_CONFIG_DIR", extra["OPENCODE_CONFIG_DIR"])
    directory("FORGE_CONFIG_DIR", extra["FORGE_CONFIG_DIR"])
    for name in ("OPENCODE_CONFIG_CONTENT", "FORGE_CONFIG_CONTENT"):
        if env.get(name):
            sources.append((cast(Step, name), name))
    sources += [("--config", _absolute(p, cwd)) for p in opts.overlays]
    # opencode's managed (admin) config dir, read after every other file, before OPENCODE_PERMISSION
    sources += [("managed", p) for p in _files_in(managed_config_dir(env), MANAGED_FILES)]
    for name in ENV_PERMISSION:
        if env.get(name):
            sources.append((cast(Step, name), name))

    # where tool scripts, plugins and skills are found: project dirs from the root down (SPEC 6.2)
    project_dirs = [level / name for level in levels for name in (".opencode", ".forge")] \
        if project_enabled else []
    dirs = [opencode_global, forge_global, *project_dirs, home / ".opencode", home / ".forge",
            *(d for d in extra.values() if d is not None)]
    config_dirs: list[Path] = []
    for d in dirs:
        if d.is_dir() and d.resolve() not in config_dirs and not is_sandbox_placeholder(d):
            config_dirs.append(d.resolve())
    return root, cwd, sources, config_dirs


def _named_dir(env: Mapping[str, str], name: str, cwd: Path) -> Path | None:
    """The directory an environment variable names (None when unset or empty); one that does not
    exist or is not a directory is an error at the variable: silently reading nothing would drop
    every rule the person meant to add."""
    if not env.get(name):
        return None
    directory = _absolute(Path(env[name]), cwd)
    if not directory.is_dir():
        what = "is not a directory" if directory.exists() else "does not exist"
        raise ConfigError(f"{directory} {what}; point the variable at a config directory or unset it",
                          Origin("env", name=name))
    return directory


def _absolute(path: Path, cwd: Path) -> Path:
    path = path.expanduser()
    return path if path.is_absolute() else cwd / path


def read_source(step: Step, where: Path | str, env: Mapping[str, str], cwd: Path,
                ignored: list[ConfigError] | None = None) -> Node:
    """Read, parse, substitute and validate one source (`config.reader`); its tree is ready to merge.
    The first problem is raised; an environment variable's is given at the variable, with the
    position inside its value. What opencode ignores in it is added to `ignored`."""
    from forge_tools.config.reader import read_source as read_one

    try:
        read = read_one(step, where, env, cwd, home_dir(env))
        if ignored is not None:
            ignored.extend(read.ignored)
        return read.tree_or_raise()
    except ConfigError as exc:
        if isinstance(where, Path):
            raise
        # "env NAME: message (at line:col)": the key path is already in the message
        at = exc.origin
        pos = f" (at {at.line}:{at.column or 1} of the value)" if at is not None and at.line else ""
        raise ConfigError(f"{exc.message}{pos}", Origin("env", name=where), code=exc.code) from None


def load_config(opts: LoadOptions, already_read: Mapping[tuple[str, Path | str], Node] | None = None,
                keep: Callable[[ConfigSource], bool] | None = None) -> LoadedConfig:
    """Load, validate and merge every source in SPEC 6.2 order; raise `ConfigError` (exit 3) on any
    problem, before anything is merged. `already_read` holds the trees of sources read (by
    `config.reader.read_source` with these options' environment, without error) before, by step and
    place: `check` reads each source once to report all its problems and loads from those trees.
    `keep`: only the sources (and config directories, asked as a `config-dir` source) it keeps: the
    files one agent reads of those forge-tools reads (opencode's without forge-tools' own)."""
    env = os.environ if opts.env is None else opts.env
    root, cwd, found, config_dirs = discover(opts, agent_files=True)
    trees: list[tuple[ConfigSource, Node]] = []
    ignored: list[ConfigError] = []
    for step, where in found:
        if isinstance(where, Path):
            source = ConfigSource(step, Origin("file", path=str(where)), where)
        else:
            source = ConfigSource(step, Origin("env", name=where))
        if keep is not None and not keep(source):
            continue
        known = already_read.get((step, where)) if already_read else None
        tree = known if known is not None else read_source(step, where, env, cwd, ignored)
        trees.append((source, tree))
    if keep is not None:
        config_dirs = [d for d in config_dirs
                       if keep(ConfigSource("config-dir", Origin("file", path=str(d)), d))]

    merged = Node({}, Origin("default"))
    for _, tree in trees:
        merged = merge(merged, tree)
    validate_tree(merged)
    specs: list[PluginSpec] = []
    plugin_node = merged.get("plugin")
    if plugin_node is not None and isinstance(plugin_node.value, list):
        for item in plugin_node.value:
            origin = item.origin
            base_dir = Path(origin.path).parent if origin.kind == "file" and origin.path else cwd
            pair = item.value if isinstance(item.value, list) else None  # opencode's [spec, options]
            spec = pair[0].value if pair else item.value
            options = pair[1].plain() if pair and len(pair) > 1 else None
            specs.append(PluginSpec(str(spec), origin, base_dir, options))
    return LoadedConfig(
        project_root=root,
        cwd=cwd,
        tree=merged,
        sources=[s for s, _ in trees],
        config_dirs=config_dirs,
        plugin_specs=specs,
        source_trees=[t for _, t in trees],
        skill_roots=external_skill_roots(home_dir(env), cwd, root, env),
        skill_paths=_skill_paths(merged, home_dir(env), cwd),
        ignored=ignored,
    )


def _skill_paths(tree: Node, home: Path, directory: Path) -> list[Path]:
    """The folders of the config's `skills.paths` (`~/` is the home; a relative one is relative to
    where opencode was started)."""
    node = tree.get("skills")
    listed = node.get("paths") if node is not None and node.is_map else None
    out = []
    for item in listed.value if listed is not None and isinstance(listed.value, list) else ():
        text = str(item.value)
        path = home / text[2:] if text.startswith("~/") else Path(text)
        out.append(path if path.is_absolute() else directory / path)
    return out


def load_project(project: str | os.PathLike[str] | None = None,
                 overlays: Iterable[str | os.PathLike[str]] = (),
                 cwd: str | os.PathLike[str] | None = None) -> LoadedConfig:
    """Library entry point: the config a command run in `cwd` (default: the process cwd) would see.
    Paths may be given as strings."""
    return load_config(LoadOptions(cwd=Path(cwd) if cwd is not None else Path.cwd(),
                                   project=Path(project) if project is not None else None,
                                   overlays=tuple(Path(p) for p in overlays)))
