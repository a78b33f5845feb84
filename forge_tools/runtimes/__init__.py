"""The runtimes: whose answer a call decision is (issue 17). See `base.Runtime` for the seam.

`RUNTIMES` names each runtime's package (imported only when chosen). `runtime_for(loaded, name)`
picks the answering one, from the project's files only: `--runtime NAME` (or the library's
`runtime=`) when given, else any forge-tools file (`forge.*`, `.forge/`, `FORGE_*`) makes it
forge-tools' own (the gate's answers), else a project with only one agent's files (`.claude/`,
`.codex/`, `.gemini/`) is that agent's, else opencode's (opencode 1.18.33's answers).
"""

from __future__ import annotations

from importlib import import_module
from pathlib import Path
from typing import TYPE_CHECKING, Any

from forge_tools.named_tuple import NamedTuple

if TYPE_CHECKING:
    from forge_tools.config.loader import ConfigSource, LoadedConfig
    from forge_tools.runtimes.base import Runtime
    from forge_tools.runtimes.launch import Launch

#: runtime name -> the module whose `RUNTIME` it is
RUNTIMES: dict[str, str] = {
    "opencode": "forge_tools.runtimes.opencode",
    "forge": "forge_tools.runtimes.forge",
    "claude": "forge_tools.runtimes.claude",
    "codex": "forge_tools.runtimes.codex",
    "gemini": "forge_tools.runtimes.gemini",
}


class Chosen(NamedTuple):
    """The runtime used and why: `--runtime`, or what the config's files are."""

    runtime: Runtime
    chosen_by: str  # "--runtime", "config: opencode files only", "config: forge file PATH", ...
    launch: Launch | None = None  # how the agent is started (`--launch`), when said

    @property
    def display(self) -> str:
        """`Claude Code 2.1.332`: the agent answering and its version, as people name it."""
        from forge_tools.runtimes.found import display_name

        return f"{display_name(self.runtime.name)} {self.runtime.version}"

    def versions(self) -> tuple[str, str | None]:
        """What the first line says of the installed version, and the warning when it is not
        modelled (`runtimes.versions.version_note`; nothing for forge-tools' own gate)."""
        from forge_tools.runtimes.versions import PACKAGES, version_note

        return version_note(self.runtime) if self.runtime.name in PACKAGES else ("", None)

    def headline(self) -> str:
        """The first line of every answer: who answers (the modelled version, the installed one) and
        why it was chosen; then the warning line when the installed version is not modelled."""
        note, warning = self.versions()
        said = f"Answering: {self.display} ({self.chosen_by})" + (f"; {note}" if note else "")
        return said + (f"\n{warning}" if warning else "")

    def to_json(self) -> dict[str, Any]:
        note, warning = self.versions()
        said = {"name": self.runtime.name, "version": self.runtime.version, "chosen_by": self.chosen_by,
                "installed": note or None, "version_warning": warning}
        return said | ({"launch": self.launch.to_json()} if self.launch is not None else {})


def get_runtime(name: str, where: str = "--runtime") -> Runtime:
    """The runtime called `name` (`name@VERSION`: a kept version, `runtimes.versions.pinned`); an
    unknown name is a usage error naming the known ones."""
    if "@" in name:
        from forge_tools.runtimes.versions import pinned, split_pin

        base, version = split_pin(name)
        return pinned(get_runtime(base, where), version or "", where)
    module = RUNTIMES.get(name)
    if module is None:
        from forge_tools.errors import UsageError
        from forge_tools.visibility.call_decision import did_you_mean

        known = ", ".join(RUNTIMES)
        raise UsageError(f"unknown runtime {name!r}{did_you_mean(name, list(RUNTIMES))}; known: {known}",
                         where=where)
    runtime: Runtime = import_module(module).RUNTIME
    from forge_tools.runtimes.launch import pinned_runtime

    pin = pinned_runtime(name)  # `--runtime claude@2.1.328` in this command
    return pin if pin is not None else runtime


def is_forge_source(source: ConfigSource) -> bool:
    """A source opencode does not read: a forge-tools file, dir or variable."""
    if source.step.startswith("FORGE_"):
        return True
    path = source.path
    if path is None:
        return False
    return path.name.startswith("forge.") or ".forge" in path.parts or "forge-tools" in path.parts


def claude_files(directory: Path) -> list[Path]:
    """The project's Claude Code settings files (`.claude/settings.json`, `.claude/settings.local.json`)
    in `directory`: what makes a project a Claude Code one (a person's ~/.claude does not)."""
    folder = directory / ".claude"
    return [p for p in (folder / "settings.json", folder / "settings.local.json") if p.is_file()]


def codex_files(directory: Path) -> list[Path]:
    """The project's Codex CLI files (`.codex/config.toml`, `.codex/rules/*.rules`) in `directory`."""
    from forge_tools.runtimes.codex.files import project_files

    return project_files(directory)


def gemini_files(directory: Path) -> list[Path]:
    """The project's Gemini CLI files in `directory` (`.gemini/settings.json`, `.gemini/policies/*.toml`):
    what makes a project a Gemini CLI one (a person's ~/.gemini does not)."""
    folder = directory / ".gemini"
    policies = sorted((folder / "policies").glob("*.toml")) if (folder / "policies").is_dir() else []
    return [p for p in (folder / "settings.json",) if p.is_file()] + policies


def refuse_start(loaded: LoadedConfig, name: str | None = None) -> None:
    """Raise the chosen runtime's reason for not starting with this config at all (a `ConfigError`
    at the value it refuses: opencode's "Configuration is invalid"), when it has one: an answer about
    a turn that never happens would be no answer of that agent's."""
    chosen = runtime_for(loaded, name)
    start_error = getattr(chosen.runtime, "start_error", None)
    error = start_error(loaded) if start_error is not None else None
    if error is not None:
        raise error


def runtime_for(loaded: LoadedConfig | None, name: str | None = None) -> Chosen:
    """The answering runtime for a project, from its files only (never from a tool's name or the
    command asking): `name`'s when given (`--runtime`, the library's `runtime=`); else forge when any
    source is forge-tools'; else Claude Code when the project has Claude files and no opencode file;
    else Codex CLI when it has `.codex/` files and no opencode or Claude file; else Gemini CLI likewise
    (`.gemini/` files); else opencode. A launch in effect (`runtimes/launch.py`: `--launch`, an
    expectation's `launch:`) names its agent, which answers. `agents --runtimes` shows this choice;
    every command asks it."""
    from forge_tools.runtimes.launch import current

    launch = current()  # the command's --launch (or an expectation's launch:) starts this agent
    if launch is not None and name in (None, launch.runtime):
        return Chosen(get_runtime(launch.runtime), launch.describe(), launch)
    if name is not None:
        return Chosen(get_runtime(name), "--runtime")
    sources = loaded.sources if loaded is not None else []
    forge = next((s for s in sources if is_forge_source(s)), None)
    if forge is not None:
        return Chosen(get_runtime("forge"), f"config: forge-tools source {forge.describe()}")
    if loaded is not None and not any(not s.personal for s in sources):
        cwd = Path(loaded.cwd)
        for runtime, files in (("claude", claude_files), ("codex", codex_files), ("gemini", gemini_files)):
            found = files(cwd)
            if found:
                from forge_tools.runtimes.found import display_name

                return Chosen(get_runtime(runtime),
                              f"config: {display_name(runtime)} files only ({found[0]})")
    return Chosen(get_runtime("opencode"), "config: opencode's files only" if sources
                  else "config: no config file (opencode's defaults)")
