"""Claude Code's side of `rules`, `layers` and `agents`: its rules with file:line:col and whether
Claude loads each, the tools it offers the model (and the rule that hides one), and its files."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from forge_tools.runtimes.claude.settings import ClaudeSettings

VERSION_LABEL = "Claude Code 2.1.332"


def _header(settings: ClaudeSettings) -> str:
    trust = "trusted" if settings.trusted else "NOT trusted (project allow rules ignored)"
    only = ", managed rules only" if settings.managed_only else ""
    return f"{VERSION_LABEL} in {settings.cwd}: mode {settings.mode}, workspace {trust}{only}"


def files_json(settings: ClaudeSettings) -> list[dict[str, Any]]:
    return [{"scope": f.scope, "path": str(f.path), "readable": f.tree is not None, "error": f.error}
            for f in settings.present_files]


def rules_payload(settings: ClaudeSettings) -> dict[str, Any]:
    return {"runtime": {"name": "claude", "version": "2.1.332"}, "cwd": str(settings.cwd),
            "mode": settings.mode, "trusted": settings.trusted, "managed_only": settings.managed_only,
            "files": files_json(settings),
            "rules": [{"index": i, **r.to_json()} for i, r in enumerate(settings.rules, 1)],
            "notes": settings.notes,
            "problems": [{"origin": o.to_json(), "message": m} for o, m in settings.problems]}


def rules_text(settings: ClaudeSettings) -> str:
    from forge_tools.report.table import format_table

    loaded = len(settings.loaded_rules)
    lines = [_header(settings),
             f"{loaded} of {len(settings.rules)} rules loaded, merged from every file: any matching deny "
             "decides, else any ask, else any allow; no match is Claude's default (read-only runs, "
             "the rest asks)"]
    rows = [(str(i), r.behavior, r.text, r.scope, str(r.origin), "yes" if r.loaded else f"no: {r.why_not}")
            for i, r in enumerate(settings.rules, 1)]
    lines.append(format_table(("#", "BEHAVIOR", "RULE", "FILE", "ORIGIN", "LOADED"), rows))
    lines += [f"note: {n}" for n in settings.notes]
    lines += [f"problem: {o}: {m}" for o, m in settings.problems]
    return "\n".join(lines)


def layers_payload(settings: ClaudeSettings) -> dict[str, Any]:
    from forge_tools.runtimes.claude.tools import offers

    return {"runtime": {"name": "claude", "version": "2.1.332"}, "cwd": str(settings.cwd),
            "mode": settings.mode, "start_error": settings.start_error,
            "tools": [{"tool": o.name, "offered": o.offered, "deferred": o.deferred,
                       "hidden_by": o.hidden_by.to_json() if o.hidden_by is not None else None}
                      for o in offers(settings)],
            "mcp": "MCP servers' tools are not listed: listing them means starting the servers; a call "
                   "of mcp__server__tool is decided by explain --call",
            "mcp_servers": [m.to_json() for m in settings.mcp_servers],
            "notes": settings.notes}


def layers_text(settings: ClaudeSettings) -> str:
    from forge_tools.report.table import format_table
    from forge_tools.runtimes.claude.tools import offers

    lines = [_header(settings)]
    if settings.start_error is not None:
        lines.append(settings.start_error)
        return "\n".join(lines)
    rows = []
    for o in offers(settings):
        if o.offered:
            result = "offered (by name; loaded through ToolSearch)" if o.deferred else "offered"
        else:
            rule = o.hidden_by
            result = (f"HIDDEN by the deny rule {rule.text!r} at {rule.origin}" if rule is not None
                      else "HIDDEN")
        rows.append((o.name, result))
    lines.append(format_table(("TOOL", "RESULT"), rows))
    lines.append("MCP servers' tools are not listed (that would start the servers); a bare-name deny "
                 "such as mcp__server hides a server's tools")
    for m in settings.mcp_servers:
        state = "Claude Code starts it" if m.loaded else f"Claude Code does NOT start it: {m.why_not}"
        lines.append(f"MCP server {m.name!r} ({m.scope}, {m.origin}): {state}")
    lines += [f"note: {n}" for n in settings.notes]
    return "\n".join(lines)


def settings_if_claude(loaded: Any, runtime: str | None) -> ClaudeSettings | None:
    """Claude's settings when the command answers for Claude Code (`--runtime claude`, or a project
    with only Claude's files), else None (the command answers as before)."""
    from pathlib import Path

    from forge_tools.runtimes import get_runtime, runtime_for

    if runtime is not None:
        get_runtime(runtime)  # an unknown name is a usage error
    if runtime_for(loaded, runtime).runtime.name != "claude":
        return None
    from forge_tools.runtimes.claude.settings import read_settings

    return read_settings(Path(loaded.cwd))
