"""Which files Claude Code 2.1.332 reads for permissions here (`settings.settings_paths`: the user's
`~/.claude/settings.json`, the project's `.claude/settings.json` and `.claude/settings.local.json`, the
managed settings and their drop-ins), those that exist, for `forge-tools agents` and the commands that
answer for every agent (runtimes/found.py)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from forge_tools.runtimes.found import ConfigFile, Ignored

if TYPE_CHECKING:
    from forge_tools.config.loader import LoadedConfig
    from forge_tools.report.findings import Finding
    from forge_tools.runtimes.claude.settings import ClaudeSettings

DISPLAY = "Claude Code"
AGENT = True


def config_files(loaded: LoadedConfig, env: Mapping[str, str] | None = None) -> list[ConfigFile]:
    import os

    from forge_tools.runtimes.claude.paths import settings_paths
    from forge_tools.runtimes.found import agent_cwd

    paths = settings_paths(agent_cwd(loaded), os.environ if env is None else env)
    return [ConfigFile(str(path), scope, "settings file") for scope, path in paths if path.is_file()]


def rule_text(permission: str, pattern: str) -> str:
    """A rule as Claude Code's settings write it: `Bash(git *)`, or the bare tool."""
    return permission if pattern == "*" else f"{permission}({pattern})"


def tool_state(settings: ClaudeSettings, tool: str) -> str:
    """Calls of Claude's `tool` in general, in `layers --matrix`'s words: `hidden` (a bare deny removes
    it), `allow` (it needs no permission, a bare allow, or bypassPermissions), `ask` (Claude's default
    for a tool that needs permission, or a bare ask), `limited` (dontAsk: only what a rule allows
    runs), `-` (not among the tools this session
    offers: Glob and Grep while Bash is)."""
    from forge_tools.runtimes.claude.decide import _by_rules
    from forge_tools.runtimes.claude.rules import tool_rule_matches
    from forge_tools.runtimes.claude.tools import NO_PERMISSION, canonical, hiding_rule, offers

    name = canonical(tool)
    if settings.start_error is not None or hiding_rule(settings, name) is not None:
        return "hidden"
    if not name.startswith("mcp__") and name not in {canonical(o.name) for o in offers(settings)}:
        return "-"  # not in this session's tools (Glob and Grep while Bash is offered)
    bare = [r for r in settings.loaded_rules if r.content is None and tool_rule_matches(r.tool, name)]
    decided = _by_rules(bare, lambda r: True)
    if decided is not None:
        return {"allow": "allow", "ask": "ask", "deny": "limited"}[decided[0]]
    if name in NO_PERMISSION:
        return "allow"
    return {"bypassPermissions": "allow", "dontAsk": "limited"}.get(settings.mode, "ask")


def tool_states(loaded: LoadedConfig, tools: list[str]) -> dict[str, str]:
    """`tool_state` of each of Claude's `tools` under the settings Claude reads for this project; an
    MCP tool's by `mcp_state`."""
    from forge_tools.runtimes.claude.settings import read_settings
    from forge_tools.runtimes.found import agent_cwd

    settings = read_settings(agent_cwd(loaded))
    return {tool: mcp_state(settings, tool) if tool.startswith("mcp__") else tool_state(settings, tool)
            for tool in tools}


def mcp_state(settings: ClaudeSettings, tool: str) -> str:
    """An MCP tool's cell: `-` when Claude Code starts no server of that name here (none configured,
    or one it does not start), else the tool's state by Claude's rules (the server's own tool list is
    not known: no server is started to read it)."""
    from forge_tools.runtimes.claude.decide import decide

    decision = decide(settings, tool, {})
    if not decision.offered and decision.reason_type == "not_offered":
        return "-"
    return tool_state(settings, tool)


def ignored(loaded: LoadedConfig) -> list[Ignored]:
    """Rules of Claude's settings files that Claude Code does not load here (an untrusted workspace's
    project allows, everything but managed rules under allowManagedPermissionRulesOnly, a rule Claude
    rejects), one line per file and reason, with the fix."""
    import os

    from forge_tools.runtimes.claude.paths import settings_paths
    from forge_tools.runtimes.claude.settings import read_settings
    from forge_tools.runtimes.found import agent_cwd

    cwd = agent_cwd(loaded)
    if not any(path.is_file() for _scope, path in settings_paths(cwd, os.environ)):
        return []
    settings = read_settings(cwd)
    grouped: dict[tuple[str, str], list[str]] = {}
    for rule in settings.rules:
        if not rule.loaded and rule.why_not:
            grouped.setdefault((str(rule.origin.path or rule.scope), rule.why_not), []).append(rule.text)
    out = []
    for (path, why), rules in grouped.items():
        fix = ("accept the workspace trust dialog (hasTrustDialogAccepted in ~/.claude.json)"
               if "trust" in why
               else "put the rules in the managed settings" if "Managed" in why
               else "fix the rule as the reason says")
        out.append(Ignored(path, f"{len(rules)} rule(s) not loaded ({', '.join(rules[:3])}"
                           f"{', ...' if len(rules) > 3 else ''}): {why}", fix))
    return out


def findings(loaded: LoadedConfig) -> list[Finding]:
    """FT301-FT307 (`findings.claude_findings`) over the settings Claude reads for this project: what
    `check` reports for Claude Code beside the other agents' findings."""
    from forge_tools.runtimes.claude.findings import claude_findings
    from forge_tools.runtimes.claude.settings import read_settings
    from forge_tools.runtimes.found import agent_cwd

    return claude_findings(read_settings(agent_cwd(loaded)))
