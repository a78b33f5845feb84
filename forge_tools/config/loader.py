"""Discovery and load order (SPEC 6.2): find every source, parse and validate each, then merge.

Nothing is half-applied: every source is read and validated before any is merged, and the first
problem stops the load with a `ConfigError` that names its location.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from forge_tools.config.merge import merge
from forge_tools.config.schema import ConfigModel
from forge_tools.errors import ConfigError, UsageError
from forge_tools.origin import Node, Origin
from forge_tools.paths import global_config_dir, home_dir

#: config file names, in the order they load when several sit in one directory (later wins):
#: the opencode compatibility files first, so forge's own files override them (opencode.json over
#: opencode.jsonc, as opencode loads them); then by format.
CONFIG_FILE_ORDER: tuple[str, ...] = (
    "opencode.jsonc",
    "opencode.json",
    "forge.json",
    "forge.jsonc",
    "forge.toml",
    "forge.yaml",
    "forge.yml",
)
#: per-project config directories, in load order within one level (`.forge/` wins over `.opencode/`)
PROJECT_CONFIG_DIRS: tuple[str, ...] = (".opencode", ".forge")

Step = Literal["global", "FORGE_CONFIG", "project", "config-dir", "FORGE_CONFIG_DIR", "agent-file",
               "FORGE_CONFIG_CONTENT", "--config", "FORGE_PERMISSION"]


@dataclass(frozen=True)
class LoadOptions:
    """What a command asks for: where it runs, an explicit project root, overlays, the environment."""

    cwd: Path
    project: Path | None = None
    overlays: tuple[Path, ...] = ()
    env: Mapping[str, str] | None = None


@dataclass(frozen=True)
class ConfigSource:
    """One source that was applied, in load order: a file or an environment variable."""

    step: Step
    origin: Origin  # file path or env name, no line
    path: Path | None = None

    def describe(self) -> str:
        return str(self.path) if self.path is not None else f"env {self.origin.name}"


@dataclass(frozen=True)
class PluginSpec:
    """A `plugin` entry: the spec as written, where, and the directory relative specs resolve against."""

    spec: str
    origin: Origin
    base_dir: Path


@dataclass
class LoadedConfig:
    """The merged, validated config with its origins and the places it came from."""

    project_root: Path
    cwd: Path
    tree: Node
    data: ConfigModel
    sources: list[ConfigSource] = field(default_factory=list)
    config_dirs: list[Path] = field(default_factory=list)
    plugin_specs: list[PluginSpec] = field(default_factory=list)

    def node_at(self, *keys: str) -> Node | None:
        node: Node | None = self.tree
        for key in keys:
            node = node.get(key) if node is not None else None
        return node

    def origin_of(self, *keys: str) -> Origin | None:
        """Where the value at `keys` was written (None when no source sets it)."""
        node = self.node_at(*keys)
        return node.origin if node is not None else None


def _flag(env: Mapping[str, str], name: str) -> bool:
    return env.get(name, "").strip().lower() not in ("", "0", "false", "no", "off")


def find_project_root(cwd: Path, project: Path | None = None) -> Path:
    """`--project`, else the top of the enclosing git worktree (a `.git` dir or file), else `cwd`."""
    if project is not None:
        root = (cwd / project).resolve() if not project.is_absolute() else project.resolve()
        if not root.is_dir():
            raise UsageError(f"not a directory: {project}", where="--project")
        return root
    for d in (cwd, *cwd.parents):
        if (d / ".git").exists():
            return d
    return cwd


def _levels(root: Path, cwd: Path) -> list[Path]:
    """Directories from the project root down to the cwd (just the root if the cwd is outside it)."""
    if cwd != root and root not in cwd.parents:
        return [root]
    levels = [cwd]
    while levels[-1] != root:
        levels.append(levels[-1].parent)
    return list(reversed(levels))


def _files_in(directory: Path) -> list[Path]:
    """The config files of one directory, in `CONFIG_FILE_ORDER` (anything by that name, so a
    directory named forge.json is reported rather than skipped)."""
    return [directory / name for name in CONFIG_FILE_ORDER if os.path.lexists(directory / name)]


def discover(opts: LoadOptions, agent_files: bool = False
             ) -> tuple[Path, Path, list[tuple[Step, Path | str]], list[Path]]:
    """Project root, cwd, every source in load order (a path, or an env var name) and the config dirs.

    With `agent_files`, the Markdown agents of each config directory (`agent/*.md`, `agents/*.md`)
    are sources too, each right after its directory's config files, the global directory's right
    after the project files: opencode reads every directory's agents after the config files found
    so far, so an agent file overrides the same agent in an opencode.json of the project.
    """
    from forge_tools.config.agent_files import find_agent_files

    env = os.environ if opts.env is None else opts.env
    cwd = opts.cwd.resolve()
    root = find_project_root(cwd, opts.project)
    levels = _levels(root, cwd)
    project_enabled = not _flag(env, "FORGE_DISABLE_PROJECT_CONFIG")
    sources: list[tuple[Step, Path | str]] = []
    agent_dirs_seen: set[Path] = set()

    def agents_of(directory: Path) -> list[tuple[Step, Path | str]]:
        if not agent_files or not directory.is_dir() or directory.resolve() in agent_dirs_seen:
            return []
        agent_dirs_seen.add(directory.resolve())
        return [("agent-file", path) for _, path in find_agent_files(directory)]

    global_dir = global_config_dir(env)
    sources += [("global", p) for p in _files_in(global_dir)]
    if env.get("FORGE_CONFIG"):
        sources.append(("FORGE_CONFIG", _absolute(Path(env["FORGE_CONFIG"]), cwd)))
    project_dirs: list[Path] = []
    if project_enabled:
        for level in levels:
            sources += [("project", p) for p in _files_in(level)]
        project_dirs = [level / name for level in levels for name in PROJECT_CONFIG_DIRS]
    sources += agents_of(global_dir)
    for d in project_dirs:
        sources += [("config-dir", p) for p in _files_in(d)]
        sources += agents_of(d)
    sources += agents_of(home_dir(env) / ".forge")
    extra_dir = _named_dir(env, "FORGE_CONFIG_DIR", cwd)
    if extra_dir is not None:
        sources += [("FORGE_CONFIG_DIR", p) for p in _files_in(extra_dir)]
        sources += agents_of(extra_dir)
    if env.get("FORGE_CONFIG_CONTENT"):
        sources.append(("FORGE_CONFIG_CONTENT", "FORGE_CONFIG_CONTENT"))
    sources += [("--config", _absolute(p, cwd)) for p in opts.overlays]
    if env.get("FORGE_PERMISSION"):
        sources.append(("FORGE_PERMISSION", "FORGE_PERMISSION"))

    dirs = [global_dir, *project_dirs, home_dir(env) / ".forge"]
    if extra_dir is not None:
        dirs.append(extra_dir)
    config_dirs: list[Path] = []
    for d in dirs:
        if d.is_dir() and d.resolve() not in config_dirs:
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


def read_source(step: Step, where: Path | str, env: Mapping[str, str], cwd: Path) -> Node:
    """Read, parse, substitute and validate one source (`config.reader`); its tree is ready to merge.
    The first problem is raised; an environment variable's is given at the variable, with the
    position inside its value."""
    from forge_tools.config.reader import read_source as read_one

    try:
        return read_one(step, where, env, cwd, home_dir(env)).tree_or_raise()
    except ConfigError as exc:
        if isinstance(where, Path):
            raise
        # "env NAME: message (at line:col)": the key path is already in the message
        at = exc.origin
        pos = f" (at {at.line}:{at.column or 1} of the value)" if at is not None and at.line else ""
        raise ConfigError(f"{exc.message}{pos}", Origin("env", name=where)) from None


def load_config(opts: LoadOptions) -> LoadedConfig:
    """Load, validate and merge every source in SPEC 6.2 order; raise `ConfigError` (exit 3) on any
    problem, before anything is merged."""
    env = os.environ if opts.env is None else opts.env
    root, cwd, found, config_dirs = discover(opts, agent_files=True)
    trees: list[tuple[ConfigSource, Node]] = []
    for step, where in found:
        tree = read_source(step, where, env, cwd)
        if isinstance(where, Path):
            source = ConfigSource(step, Origin("file", path=str(where)), where)
        else:
            source = ConfigSource(step, Origin("env", name=where))
        trees.append((source, tree))

    merged = Node({}, Origin("default"))
    for _, tree in trees:
        merged = merge(merged, tree)
    data = ConfigModel.model_validate(merged.plain())
    specs: list[PluginSpec] = []
    plugin_node = merged.get("plugin")
    if plugin_node is not None and isinstance(plugin_node.value, list):
        for item in plugin_node.value:
            origin = item.origin
            base_dir = Path(origin.path).parent if origin.kind == "file" and origin.path else cwd
            specs.append(PluginSpec(str(item.value), origin, base_dir))
    return LoadedConfig(
        project_root=root,
        cwd=cwd,
        tree=merged,
        data=data,
        sources=[s for s, _ in trees],
        config_dirs=config_dirs,
        plugin_specs=specs,
    )


def load_project(project: Path | None = None, overlays: tuple[Path, ...] | list[Path] = (),
                 cwd: Path | None = None) -> LoadedConfig:
    """Library entry point: the config a command run in `cwd` (default: the process cwd) would see."""
    return load_config(LoadOptions(cwd=cwd or Path.cwd(), project=project, overlays=tuple(overlays)))
