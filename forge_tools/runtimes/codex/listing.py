"""Codex CLI's side of `rules` and `layers`: every rules file Codex would read here with each rule
at file:line:col and whether Codex loads it (and why not), and the tools it offers the model."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from forge_tools.runtimes.codex.runtime import VERSION

if TYPE_CHECKING:
    from forge_tools.runtimes.codex.config import CodexSettings



def _header(settings: CodexSettings) -> str:
    trust = "trusted" if settings.trusted else "NOT trusted (its .codex/ files are not read)"
    return (f"Codex CLI {VERSION} in {settings.cwd}: project {settings.project_root} {trust}; sandbox_mode "
            f"{settings.sandbox_mode}, approval_policy {settings.approval_policy}")


def _rules(settings: CodexSettings) -> list[dict[str, Any]]:
    by_path = {f.path: f for f in settings.policy.files}
    refused = settings.policy.error
    out = []
    for path, scope, _loaded, why in settings.rules_files:
        f = by_path.get(path)
        if f is None:
            why = why or ("Codex does not start" if settings.start_error is not None else "not read")
            out.append({"file": str(path), "scope": scope, "loaded": False, "why_not": why, "rules": []})
            continue
        why_not = f.error or f.unread or (f"{refused.path.name} is refused: Codex loads no rule"
                                         if refused is not None else None)
        out.append({"file": str(path), "scope": scope, "loaded": why_not is None, "why_not": why_not,
                    "error_at": str(f.error_origin) if f.error_origin is not None else None,
                    "rules": [{"pattern": r.text(), "decision": r.decision, "origin": str(r.origin),
                               "justification": r.justification} for r in f.rules]})
    return out


def rules_payload(settings: CodexSettings) -> dict[str, Any]:
    return {"runtime": {"name": "codex", "version": VERSION}, "cwd": str(settings.cwd),
            "project_root": str(settings.project_root), "trusted": settings.trusted,
            "sandbox_mode": settings.sandbox_mode, "approval_policy": settings.approval_policy,
            "start_error": settings.start_error, "files": _rules(settings)}


def rules_text(settings: CodexSettings) -> str:
    from forge_tools.report.table import format_table

    lines = [_header(settings)]
    if settings.start_error is not None:
        lines.append(f"Codex does not start: {settings.start_error} ({settings.start_error_origin})")
    lines.append("every matching rule counts, the strictest decides (forbidden > prompt > allow); no "
                 "match falls back to the approval policy and the sandbox (modelled)")
    rows = []
    for f in _rules(settings):
        state = "yes" if f["loaded"] else f"no: {f['why_not']}"
        if not f["rules"]:
            rows.append(("-", "-", f["file"], f["scope"], state))
        for r in f["rules"]:
            rows.append((r["decision"], r["pattern"], r["origin"], f["scope"], state))
    lines.append(format_table(("DECISION", "PATTERN", "ORIGIN", "SCOPE", "LOADED"), rows) if rows
                 else "no rules file")
    return "\n".join(lines)


def layers_payload(settings: CodexSettings) -> dict[str, Any]:
    from forge_tools.runtimes.codex.decide import CODE_MODE_TOOLS
    from forge_tools.runtimes.codex.files import tool_state

    return {"runtime": {"name": "codex", "version": VERSION}, "cwd": str(settings.cwd),
            "start_error": settings.start_error,
            "tools": [{"tool": t, "state": tool_state(settings, t)} for t in CODE_MODE_TOOLS],
            "mcp": "MCP servers' tools are not listed (that would start the servers); "
                   "enabled_tools / disabled_tools decide which Codex offers (modelled)"}


def layers_text(settings: CodexSettings) -> str:
    from forge_tools.report.table import format_table

    data = layers_payload(settings)
    lines = [_header(settings)]
    if settings.start_error is not None:
        lines.append(f"Codex does not start: {settings.start_error}")
        return "\n".join(lines)
    lines.append("offered through code mode's exec (recorded; clock__curr_time is Codex's own clock "
                 "tool, not an MCP server's); each tool's state is modelled from sandbox_mode and "
                 "approval_policy")
    lines.append(format_table(("TOOL", "STATE"), [(t["tool"], t["state"]) for t in data["tools"]]))
    lines.append(data["mcp"])
    return "\n".join(lines)


def settings_if_codex(loaded: Any, runtime: str | None) -> CodexSettings | None:
    """Codex's settings when the command answers for Codex CLI (`--runtime codex`, or a project whose
    only agent files are Codex's), else None."""
    from forge_tools.runtimes import get_runtime, runtime_for

    if runtime is not None:
        get_runtime(runtime)
    if runtime_for(loaded, runtime).runtime.name != "codex":
        return None
    from forge_tools.runtimes.codex.files import settings_for

    return settings_for(loaded)
