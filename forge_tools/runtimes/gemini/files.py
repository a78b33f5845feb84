"""Which files Gemini CLI 0.61 reads here (`settings.settings_paths` and the policy directories:
system, user, workspace), those that exist, for `forge-tools agents`, `layers --matrix --runtimes`,
`explain --runtime all` and `check` (runtimes/found.py)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING

from forge_tools.runtimes.found import ConfigFile, Ignored

if TYPE_CHECKING:
    from forge_tools.config.loader import LoadedConfig
    from forge_tools.report.findings import Finding
    from forge_tools.runtimes.gemini.settings import GeminiSettings

DISPLAY = "Gemini CLI"
AGENT = True
_SCOPES = {"system-defaults": "managed", "system": "managed", "user": "user", "workspace": "project"}


def config_files(loaded: LoadedConfig, env: Mapping[str, str] | None = None) -> list[ConfigFile]:
    from forge_tools.paths import home_dir
    from forge_tools.runtimes.found import agent_cwd
    from forge_tools.runtimes.gemini.paths import policy_files, settings_paths, system_dir

    env = os.environ if env is None else env
    cwd = agent_cwd(loaded)
    found = [ConfigFile(str(path), _SCOPES[layer], "settings file")
             for layer, path in settings_paths(cwd, env) if path.is_file()]
    dirs = [(system_dir(env) / "policies", "managed"), (home_dir(env) / ".gemini" / "policies", "user"),
            (cwd / ".gemini" / "policies", "project")]
    for directory, scope in dirs:
        found.extend(ConfigFile(str(p), scope, "policy file") for p in policy_files(directory))
    return found


def tool_state(settings: GeminiSettings, tool: str) -> str:
    """Calls of Gemini's `tool` in general, in `layers --matrix`'s words: `hidden` (a rule without
    argsPattern denies it, so the model is not offered it), `allow`, `ask`, `limited` (the first rule
    for it narrows by arguments)."""
    from dataclasses import replace

    from forge_tools.runtimes.gemini.engine import Engine

    if settings.start_error is not None:
        return "hidden"
    engine = Engine(settings)
    if engine.excluded_tools([tool], {}):
        return "hidden"
    for rule in settings.rules:
        if engine.matches(replace(rule, args_pattern=None), tool, None, None, True):
            if rule.args_pattern:
                return "limited"
            return {"allow": "allow", "ask_user": "ask", "deny": "hidden"}[rule.decision]
    return {"ask_user": "ask", "deny": "hidden"}.get(settings.default_decision, "ask")


def tool_states(loaded: LoadedConfig, tools: list[str]) -> dict[str, str]:
    from forge_tools.runtimes.found import agent_cwd
    from forge_tools.runtimes.gemini.registry import not_offered
    from forge_tools.runtimes.gemini.settings import read_settings

    settings = read_settings(agent_cwd(loaded))
    # MCP servers are not started: whether a server offers a tool is not known, only whether Gemini
    # would never register or offer it (`registry.not_offered`)
    return {tool: ("hidden" if settings.start_error is not None or not_offered(settings, tool) else "?")
            if tool.startswith("mcp_") else tool_state(settings, tool) for tool in tools}


def ignored(loaded: LoadedConfig) -> list[Ignored]:
    """The settings and policy files Gemini CLI does not use here (an untrusted folder's workspace
    settings, the workspace policies 0.61 never loads, ...), each with the fix."""
    from forge_tools.runtimes.found import agent_cwd
    from forge_tools.runtimes.gemini.listing import not_loaded
    from forge_tools.runtimes.gemini.settings import read_settings

    cwd = agent_cwd(loaded)
    if not (cwd / ".gemini").is_dir():
        return []
    settings = read_settings(cwd)
    return [Ignored(path, why, _fix(why, settings.cwd)) for path, why in not_loaded(settings)]


def _fix(why: str, cwd: object) -> str:
    if "trust" in why:
        return (f'trust the folder: add "{cwd}": "TRUST_FOLDER" to ~/.gemini/trustedFolders.json (or start '
                "gemini with --skip-trust, or GEMINI_CLI_TRUST_WORKSPACE=true)")
    if "workspace polic" in why.lower() or "disableWorkspacePolicies" in why:
        return "move the rules to ~/.gemini/policies/ (user tier) or to .gemini/settings.json"
    return "fix what the reason names"


def findings(loaded: LoadedConfig) -> list[Finding]:
    """FT341-FT347 (`findings.gemini_findings`) over the files Gemini reads for this project."""
    from forge_tools.runtimes.found import agent_cwd
    from forge_tools.runtimes.gemini.findings import gemini_findings
    from forge_tools.runtimes.gemini.settings import read_settings

    return gemini_findings(read_settings(agent_cwd(loaded)))
