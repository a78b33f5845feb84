"""Gemini CLI's side of `rules` and `layers`: every policy rule in the engine's order (priority,
source, file:line:col), the files Gemini does not load and why, and the tools it offers the model
(and the rule that removes one)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from forge_tools.runtimes.gemini.settings import GeminiSettings

LABEL = "Gemini CLI 0.61.0"


def _header(settings: GeminiSettings) -> str:
    trust = "trusted" if settings.trusted else f"NOT trusted ({settings.trust_why})"
    how = "interactive" if settings.interactive else "headless"
    return f"{LABEL} in {settings.cwd}: mode {settings.mode}, {how}, folder {trust}"


def not_loaded(settings: GeminiSettings) -> list[tuple[str, str]]:
    """(file, why) of every settings or policy file Gemini does not use."""
    out = [(str(f.path), f.why_not or "") for f in settings.files if f.exists and not f.loaded]
    out += [(str(p.path), p.why_not or "") for p in settings.policy if not p.loaded]
    return out


def rules_payload(settings: GeminiSettings) -> dict[str, Any]:
    return {"runtime": {"name": "gemini", "version": "0.61.0"}, "cwd": str(settings.cwd),
            "mode": settings.mode, "interactive": settings.interactive, "trusted": settings.trusted,
            "start_error": settings.start_error,
            "rules": [{"index": i, **r.to_json()} for i, r in enumerate(settings.rules, 1)],
            "not_loaded": [{"path": p, "why": w} for p, w in not_loaded(settings)],
            "problems": [{"origin": p.origin.to_json(), "message": p.message, "severity": p.severity}
                         for p in settings.problems]}


def rules_text(settings: GeminiSettings, defaults: bool = False) -> str:
    """The engine's rules, highest priority first (the first match decides); the bundled defaults are
    counted, not listed, unless `defaults`."""
    from forge_tools.report.table import format_table
    from forge_tools.runtimes.gemini.policy import fmt_priority

    own = [r for r in settings.rules if defaults or not r.source.startswith("Default:")]
    lines = [_header(settings),
             f"{len(settings.rules)} rules, highest priority first: the first that matches decides "
             f"({len(settings.rules) - len(own)} bundled defaults not listed)"]
    if settings.start_error is not None:
        lines.append(f"Gemini CLI does not start: {settings.start_error}")
    rows = [(fmt_priority(r.priority), r.decision, r.text or r.tool_name, r.source, str(r.origin or ""))
            for r in own]
    lines.append(format_table(("PRIORITY", "DECISION", "RULE", "SOURCE", "ORIGIN"), rows))
    lines += [f"not loaded: {p}: {w}" for p, w in not_loaded(settings)]
    lines += [f"problem: {p.origin}: {p.message}" for p in settings.problems]
    return "\n".join(lines)


def offered(settings: GeminiSettings) -> list[tuple[str, Any]]:
    """(tool, the rule that removes it or None) for every built-in tool."""
    from dataclasses import replace

    from forge_tools.runtimes.gemini.engine import Engine
    from forge_tools.runtimes.gemini.tools import BUILTIN

    engine = Engine(settings)
    hidden = set(engine.excluded_tools(list(BUILTIN), {}))
    out = []
    for tool in BUILTIN:
        rule = None
        if tool in hidden:
            rule = next((r for r in settings.rules if not r.args_pattern
                         and engine.matches(replace(r, args_pattern=None), tool, None, None, True)), None)
        out.append((tool, (tool not in hidden, rule)))
    return out


def layers_payload(settings: GeminiSettings) -> dict[str, Any]:
    return {"runtime": {"name": "gemini", "version": "0.61.0"}, "cwd": str(settings.cwd),
            "mode": settings.mode, "interactive": settings.interactive, "start_error": settings.start_error,
            "tools": [{"tool": t, "offered": ok, "hidden_by": r.to_json() if r is not None else None}
                      for t, (ok, r) in offered(settings)],
            "mcp": "MCP servers' tools are not listed: listing them means starting the servers; a call of "
                   "mcp_server_tool is decided by explain --call"}


def layers_text(settings: GeminiSettings) -> str:
    from forge_tools.report.table import format_table

    lines = [_header(settings)]
    if settings.start_error is not None:
        lines.append(f"Gemini CLI does not start: {settings.start_error}")
        return "\n".join(lines)
    rows = []
    for tool, (ok, rule) in offered(settings):
        if ok:
            rows.append((tool, "offered"))
        elif rule is not None:
            rows.append((tool, f"HIDDEN by {rule.describe()}"))
        else:
            rows.append((tool, "HIDDEN: no rule matches and the default denies (headless)"))
    lines.append(format_table(("TOOL", "RESULT"), rows))
    lines.append("MCP servers' tools are not listed (that would start the servers); mcp.excluded or a "
                 "deny of mcp_server_* hides a server's tools")
    return "\n".join(lines)


def settings_if_gemini(loaded: Any, runtime: str | None) -> GeminiSettings | None:
    """Gemini's settings when the command answers for Gemini CLI (`--runtime gemini`, or a project
    with only Gemini's files), else None."""
    from pathlib import Path

    from forge_tools.runtimes import get_runtime, runtime_for

    if runtime is not None:
        get_runtime(runtime)
    if runtime_for(loaded, runtime).runtime.name != "gemini":
        return None
    from forge_tools.runtimes.gemini.settings import read_settings

    return read_settings(Path(loaded.cwd))
