"""The runtimes: whose answer a call decision is (issue 17). See `base.Runtime` for the seam.

`RUNTIMES` names each runtime's package (imported only when chosen). `runtime_for(loaded, name)`
picks one: `--runtime NAME` (or the library's `runtime=`) when given, else the config decides: a
config read only from opencode's files belongs to opencode (its answers are opencode 1.18.33's); any
forge-tools file (`forge.*`, `.forge/`, `FORGE_*`) makes it forge-tools' own (the gate's answers).
"""

from __future__ import annotations

from importlib import import_module
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from forge_tools.config.loader import ConfigSource, LoadedConfig
    from forge_tools.runtimes.base import Runtime

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

    def to_json(self) -> dict[str, str]:
        return {"name": self.runtime.name, "version": self.runtime.version, "chosen_by": self.chosen_by}


def get_runtime(name: str, where: str = "--runtime") -> Runtime:
    """The runtime called `name`; an unknown name is a usage error naming the known ones."""
    module = RUNTIMES.get(name)
    if module is None:
        from forge_tools.errors import UsageError
        from forge_tools.visibility.call_decision import did_you_mean

        known = ", ".join(RUNTIMES)
        raise UsageError(f"unknown runtime {name!r}{did_you_mean(name, list(RUNTIMES))}; known: {known}",
                         where=where)
    runtime: Runtime = import_module(module).RUNTIME
    return runtime


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


def is_claude_tool(tool: str) -> bool:
    """A Claude Code tool name: capitalised (`Bash`, `Read`, `WebFetch`) or `mcp__server__tool`."""
    return tool[:1].isupper() or tool.startswith("mcp__")


def codex_files(directory: Path) -> list[Path]:
    """The project's Codex CLI files (`.codex/config.toml`, `.codex/rules/*.rules`) in `directory`."""
    from forge_tools.runtimes.codex.files import project_files

    return project_files(directory)


#: tool names only Codex CLI uses (a call naming one is Codex's when the project has Codex files);
#: `apply_patch` is opencode's too, so only its arguments tell (`is_codex_call`)
CODEX_TOOLS = frozenset({"exec_command", "shell", "local_shell"})


def is_codex_call(tool: str, args: object) -> bool:
    """A call written in Codex CLI's words: a tool only Codex has, or `apply_patch` with Codex's `input`
    (opencode's apply_patch takes `patchText`)."""
    return tool in CODEX_TOOLS or (tool == "apply_patch" and isinstance(args, dict) and "input" in args
                                   and "patchText" not in args)


def gemini_files(directory: Path) -> list[Path]:
    """The project's Gemini CLI files in `directory` (`.gemini/settings.json`, `.gemini/policies/*.toml`):
    what makes a project a Gemini CLI one (a person's ~/.gemini does not)."""
    folder = directory / ".gemini"
    policies = sorted((folder / "policies").glob("*.toml")) if (folder / "policies").is_dir() else []
    return [p for p in (folder / "settings.json",) if p.is_file()] + policies


def is_gemini_tool(tool: str) -> bool:
    """A Gemini CLI tool name: `run_shell_command`, `read_file`, ... or `mcp_server_tool` (one `_`)."""
    from forge_tools.runtimes.gemini.tools import BUILTIN, LEGACY

    shared = {"glob"}  # opencode's too
    return (tool in BUILTIN and tool not in shared) or tool in LEGACY or (
        tool.startswith("mcp_") and not tool.startswith("mcp__"))


def refuse_start(loaded: LoadedConfig, name: str | None = None, tool: str | None = None) -> None:
    """Raise the chosen runtime's reason for not starting with this config at all (a `ConfigError`
    at the value it refuses: opencode's "Configuration is invalid"), when it has one: an answer about
    a turn that never happens would be no answer of that agent's."""
    chosen = runtime_for(loaded, name, tool)
    start_error = getattr(chosen.runtime, "start_error", None)
    error = start_error(loaded) if start_error is not None else None
    if error is not None:
        raise error


def runtime_for(loaded: LoadedConfig | None, name: str | None = None, tool: str | None = None) -> Chosen:
    """`name`'s runtime when given; else forge when any source is forge-tools'; else Claude Code when
    the project has Claude files and either no opencode file or a call naming a Claude tool (`tool`);
    else Codex CLI when the project has `.codex/` files and a call names a Codex tool, or it has no
    opencode or Claude file; else Gemini CLI likewise (`.gemini/` files, a call naming a Gemini
    tool); else opencode."""
    if name is not None:
        return Chosen(get_runtime(name), "--runtime")
    sources = loaded.sources if loaded is not None else []
    forge = next((s for s in sources if is_forge_source(s)), None)
    if forge is not None:
        return Chosen(get_runtime("forge"), f"config: forge-tools source {forge.describe()}")
    claude = claude_files(Path(loaded.cwd)) if loaded is not None else []
    project = [s for s in sources if not s.personal]
    if claude and tool is not None and is_claude_tool(tool):
        return Chosen(get_runtime("claude"), f"call: {tool} is a Claude Code tool and {claude[0]} exists")
    if claude and not project and (tool is None or is_claude_tool(tool)):
        return Chosen(get_runtime("claude"), f"config: Claude Code files only ({claude[0]})")
    codex = codex_files(Path(loaded.cwd)) if loaded is not None else []
    if codex and tool in CODEX_TOOLS:
        return Chosen(get_runtime("codex"), f"call: {tool} is a Codex CLI tool and {codex[0]} exists")
    if codex and not project and not claude:
        return Chosen(get_runtime("codex"), f"config: Codex CLI files only ({codex[0]})")
    gemini = gemini_files(Path(loaded.cwd)) if loaded is not None else []
    if gemini and tool is not None and is_gemini_tool(tool):
        return Chosen(get_runtime("gemini"), f"call: {tool} is a Gemini CLI tool and {gemini[0]} exists")
    if gemini and not project and not claude and (tool is None or is_gemini_tool(tool)):
        return Chosen(get_runtime("gemini"), f"config: Gemini CLI files only ({gemini[0]})")
    return Chosen(get_runtime("opencode"), "config: opencode's files only" if sources
                  else "config: no config file (opencode's defaults)")
