"""Which agents' configs a repository holds: each runtime package's `files.py` says how it recognises
its own files (`config_files(loaded, env) -> [ConfigFile]`, `DISPLAY`, `AGENT`); this module asks every
package named in `runtimes.RUNTIMES` and nothing else, so a new agent (Codex, Gemini CLI) is found
once its package has a `files.py`.

A runtime is *in the project* when one of its files is the project's (scope `project` or `local`);
the person's own and managed files are listed beside them (they take part in the agent's answer),
but they alone do not make a repository an agent's.
"""

from __future__ import annotations

from collections.abc import Mapping
from importlib import import_module
from pathlib import Path
from typing import TYPE_CHECKING, Any

from forge_tools.named_tuple import NamedTuple

if TYPE_CHECKING:
    from forge_tools.config.loader import ConfigSource, LoadedConfig

PROJECT_SCOPES = frozenset({"project", "local"})


class ConfigFile(NamedTuple):
    """One file (or directory, or variable) an agent reads: where, and whose it is."""

    path: str  # a path, or `env NAME`
    scope: str  # project, local, user, managed, env, cli
    what: str = "config file"

    def to_json(self) -> dict[str, str]:
        return {"path": self.path, "scope": self.scope, "what": self.what}


class Ignored(NamedTuple):
    """A file an agent would read here but does not: why, and what makes it read it (each runtime
    package's `files.ignored(loaded)`; `check`'s findings and every command's answer say these)."""

    path: str
    reason: str
    fix: str

    def to_json(self) -> dict[str, str]:
        return {"path": self.path, "reason": self.reason, "fix": self.fix}


class FoundRuntime(NamedTuple):
    """A runtime whose files are here: its name, how it is shown, its version, its files."""

    name: str  # the runtime's name in RUNTIMES: opencode, claude, forge
    display: str  # "Claude Code"
    version: str
    agent: bool  # an agent people run (False: forge-tools' own gate)
    files: tuple[ConfigFile, ...]

    @property
    def in_project(self) -> bool:
        return any(f.scope in PROJECT_SCOPES for f in self.files)

    @property
    def label(self) -> str:
        return f"{self.display} {self.version}"

    def versions(self) -> dict[str, Any]:
        """The versions modelled (the answering one first) and the one installed (`runtimes.versions`;
        None when not found on PATH), with the warning when it is not modelled."""
        from forge_tools.runtimes import get_runtime
        from forge_tools.runtimes.versions import PACKAGES, installed, modelled, version_note

        if self.name not in PACKAGES:
            return {"modelled": [self.version], "installed": None, "version_warning": None}
        runtime = get_runtime(self.name)
        found = installed(self.name)
        return {"modelled": list(modelled(self.name, runtime)),
                "installed": found.version if found is not None else None,
                "version_warning": version_note(runtime)[1]}

    def to_json(self, default: str | None = None) -> dict[str, Any]:
        """`name` is the runtime's (`claude`), `display` its agent's (`Claude Code`); `files` the
        paths, `file_scopes` each with its scope; `default`: the runtime that answers by default
        (`runtimes.runtime_for`) when `default` names it."""
        return {"name": self.name, "display": self.display, "version": self.version, "agent": self.agent,
                "in_project": self.in_project, "default": self.name == default,
                **self.versions(),
                "files": [f.path for f in self.files], "file_scopes": [f.to_json() for f in self.files]}


def agent_cwd(loaded: LoadedConfig) -> Path:
    """Where an agent would be started for this project: the working directory when it is inside the
    project, else the project root (`--project DIR` from elsewhere)."""
    cwd, root = Path(loaded.cwd), Path(loaded.project_root)
    return cwd if cwd == root or root in cwd.parents else root


def vocabulary_files(loaded: LoadedConfig, env: Mapping[str, str] | None, forge: bool,
                     dir_name: str) -> list[ConfigFile]:
    """The files of one runtime of opencode's vocabulary: the sources that are forge-tools' own
    (`forge`) or not, and the config directories called `dir_name` (`.forge`, `.opencode`)."""
    from forge_tools.paths import home_dir
    from forge_tools.runtimes import is_forge_source

    found = [source_file(s) for s in loaded.sources if is_forge_source(s) == forge]
    seen = {f.path for f in found}
    home = home_dir(env)
    for d in loaded.config_dirs:
        if d.name == dir_name and str(d) not in seen:
            found.append(ConfigFile(str(d), "user" if d.parent == home else "project", "config directory"))
    return found


def source_file(source: ConfigSource) -> ConfigFile:
    """A forge-tools config source as a `ConfigFile` (opencode's and forge-tools' own files)."""
    if source.path is None:
        return ConfigFile(f"env {source.origin.name}", "env", "environment variable")
    step = source.step
    scope = ("managed" if step == "managed" else "user" if source.personal
             else "cli" if step == "--config" else "env" if step.endswith(("_CONFIG", "_CONFIG_DIR"))
             else "project")
    what = "agent file" if step in ("agent-file", "mode-file") else "config file"
    return ConfigFile(str(source.path), scope, what)


def runtime_files(name: str, loaded: LoadedConfig, env: Mapping[str, str] | None = None) -> FoundRuntime:
    """One runtime's files here (none found: an empty `files`)."""
    from forge_tools.runtimes import RUNTIMES

    package = import_module(f"{RUNTIMES[name]}.files")
    return _found(name, package, tuple(package.config_files(loaded, env)))


def _found(name: str, package: Any, files: tuple[ConfigFile, ...]) -> FoundRuntime:
    from forge_tools.runtimes import get_runtime

    return FoundRuntime(name, package.DISPLAY, get_runtime(name).version, package.AGENT, files)


def found_runtimes(loaded: LoadedConfig, env: Mapping[str, str] | None = None,
                   in_project: bool = True) -> list[FoundRuntime]:
    """Every runtime with files here, in `RUNTIMES` order (`in_project`: only those the project
    configures itself). Looked for once per loaded config in this process's environment (`memo`)."""
    found = loaded.memo.get("found_runtimes") if env is None else None
    if found is None:
        found = _with_files(loaded, env)
        if env is None:
            loaded.memo["found_runtimes"] = found
    return [f for f in found if f.in_project or not in_project]


def _with_files(loaded: LoadedConfig, env: Mapping[str, str] | None) -> tuple[FoundRuntime, ...]:
    from forge_tools.runtimes import RUNTIMES

    found = []
    for name in RUNTIMES:  # a runtime without files here is not imported (only its `files` module)
        package = import_module(f"{RUNTIMES[name]}.files")
        files = tuple(package.config_files(loaded, env))
        if files:
            found.append(_found(name, package, files))
    return tuple(found)


def listed_runtimes(loaded: LoadedConfig, env: Mapping[str, str] | None = None
                    ) -> tuple[list[FoundRuntime], str]:
    """What `agents` lists: every runtime with files here (the person's own too), and the one that
    answers by default (`runtimes.runtime_for`), listed even with no file (opencode's defaults)."""
    from forge_tools.runtimes import RUNTIMES, runtime_for

    found = found_runtimes(loaded, env, in_project=False)
    default = runtime_for(loaded).runtime.name
    if default not in {f.name for f in found}:
        found.append(runtime_files(default, loaded, env))
        found.sort(key=lambda f: list(RUNTIMES).index(f.name))
    return found, default


def display_name(name: str) -> str:
    """`Claude Code` for `claude`: how the runtime's package names its agent."""
    from forge_tools.runtimes import RUNTIMES

    return str(import_module(f"{RUNTIMES[name]}.files").DISPLAY)
