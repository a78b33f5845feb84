"""Which files Codex CLI 0.171 reads here (`config.read_codex`: the user's config.toml and rules, the
project's `.codex/config.toml` and `.codex/rules/*.rules` from the repository root down to the
working directory), those that exist, for `forge-tools agents` and the commands that answer for every
agent (runtimes/found.py); `tool_states` for `layers --matrix --runtimes`; `findings` for `check`."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from forge_tools.runtimes.found import ConfigFile, Ignored

if TYPE_CHECKING:
    from forge_tools.config.loader import LoadedConfig
    from forge_tools.report.findings import Finding
    from forge_tools.runtimes.codex.config import CodexSettings

DISPLAY = "Codex CLI"
AGENT = True


def project_files(directory: Path) -> list[Path]:
    """The project's Codex files in `directory` (`.codex/config.toml`, `.codex/rules/*.rules`): what
    makes a project a Codex one (a person's ~/.codex does not)."""
    folder = directory / ".codex"
    rules = sorted((folder / "rules").glob("*.rules")) if (folder / "rules").is_dir() else []
    return [p for p in (folder / "config.toml", *rules) if p.is_file()]


def settings_for(loaded: LoadedConfig, env: Mapping[str, str] | None = None) -> CodexSettings:
    import os

    from forge_tools.runtimes.codex.config import read_codex
    from forge_tools.runtimes.found import agent_cwd

    return read_codex(agent_cwd(loaded), os.environ if env is None else env)


def config_files(loaded: LoadedConfig, env: Mapping[str, str] | None = None) -> list[ConfigFile]:
    import os

    from forge_tools.runtimes.codex.paths import any_codex_file
    from forge_tools.runtimes.found import agent_cwd

    if not any_codex_file(agent_cwd(loaded), os.environ if env is None else env):
        return []  # nothing to read: no parsing on the start-up of a project without Codex
    settings = settings_for(loaded, env)
    found = [ConfigFile(str(layer.path), layer.scope, "config file" if layer.loaded
                        else f"config file (not read: {layer.why_not or 'not loaded'})")
             for layer in settings.layers if layer.path is not None and layer.path.is_file()]
    found += [ConfigFile(str(path), scope,
                         "rules file" if loaded_ else f"rules file (not read: {why or 'not loaded'})")
              for path, scope, loaded_, why in settings.rules_files]
    return found


def tool_state(settings: CodexSettings, tool: str) -> str:
    """Calls of Codex's `tool` in general, in `layers --matrix`'s words (modelled): `hidden` (Codex
    does not start, or the tool is not offered), `allow`, `ask`, `limited` (the sandbox and the rules
    decide per command)."""
    if settings.start_error is not None:
        return "hidden"
    sandbox, approval = settings.sandbox_mode, settings.approval_policy
    if tool == "exec_command":
        return "allow" if sandbox == "danger-full-access" and approval == "never" and not any(
            r.decision != "allow" for r in settings.policy.rules) else "limited"
    if tool == "apply_patch":
        if sandbox == "read-only":
            return "limited" if approval == "never" else "ask"
        return "allow" if sandbox == "danger-full-access" else "limited"
    if tool.startswith("mcp__"):
        server, _, name = tool[len("mcp__"):].partition("__")
        return "?" if settings.mcp_tool_offered(server, name)[0] else "hidden"
    from forge_tools.runtimes.codex.decide import CODE_MODE_TOOLS

    return "allow" if tool in CODE_MODE_TOOLS else "hidden"  # offered, asked for nothing (modelled)


def tool_states(loaded: LoadedConfig, tools: list[str]) -> dict[str, str]:
    settings = settings_for(loaded)
    return {tool: tool_state(settings, tool) for tool in tools}


def ignored(loaded: LoadedConfig) -> list[Ignored]:
    """The project's Codex files Codex does not read (an untrusted project's `.codex/` rules and
    config), with the fix; none when the project has no Codex file."""
    from forge_tools.runtimes.found import agent_cwd

    if not project_files(agent_cwd(loaded)):
        return []
    return ignored_by(settings_for(loaded))


def ignored_by(settings: CodexSettings) -> list[Ignored]:
    """What `settings` leave unread: the project's rules files and every config layer not read (FT323
    says each of these in `check`)."""
    trust = (f"trust the project in {settings.codex_home / 'config.toml'}: [projects.\""
             f"{settings.project_root}\"] trust_level = \"trusted\"")
    out = [Ignored(str(path), why or "not loaded", trust)
           for path, scope, loaded_, why in settings.rules_files if not loaded_ and scope == "project"]
    out += [Ignored(str(layer.path), layer.why_not or "not read", trust)
            for layer in settings.layers
            if not layer.loaded and layer.path is not None and layer.path.is_file()]
    return out


def findings(loaded: LoadedConfig) -> list[Finding]:
    """FT321-FT327 (`findings.codex_findings`) over the files Codex reads for this project."""
    from forge_tools.runtimes.codex.findings import codex_findings

    return codex_findings(settings_for(loaded))
