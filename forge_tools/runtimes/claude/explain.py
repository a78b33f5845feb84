"""`explain TOOL [--call JSON]` for a Claude Code tool (`Bash`, `Read`, `mcp__srv__tool`): whether
Claude offers it and why not, the rules that name it (file:line:col), and for a call Claude's answer
with the gate's beside it where they differ."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from forge_tools.config.loader import LoadedConfig
    from forge_tools.runtimes import Chosen
    from forge_tools.runtimes.claude.settings import ClaudeSettings
    from forge_tools.runtimes.compare import Answers
    from forge_tools.visibility.pipeline import PipelineResult


def explanation(tool: str, call: dict[str, Any] | None, loaded: LoadedConfig, result: PipelineResult,
                chosen: Chosen, settings: ClaudeSettings | None = None,
                both: Answers | None = None) -> dict[str, Any]:
    from forge_tools.runtimes.answer import call_answers
    from forge_tools.runtimes.claude.decide import decide
    from forge_tools.runtimes.claude.mcp import no_server_why
    from forge_tools.runtimes.claude.rules import EDIT_TOOLS, READ_TOOLS, mcp_parts, tool_rule_matches
    from forge_tools.runtimes.claude.runtime import RUNTIME
    from forge_tools.runtimes.claude.tools import KNOWN, canonical, hiding_rule

    cwd = Path(loaded.cwd)
    settings = settings if settings is not None else RUNTIME.settings(cwd)
    name = canonical(tool)
    hidden = hiding_rule(settings, name)

    def names(rule_tool: str) -> bool:
        if tool_rule_matches(rule_tool, name):
            return True
        return (rule_tool == "Edit" and name in EDIT_TOOLS) or (rule_tool == "Read" and name in READ_TOOLS)

    rules = [r for r in settings.rules if names(r.tool)]
    server = mcp_parts(name)
    no_server = (no_server_why(settings, *server) if server is not None and hidden is None
                 and decide(settings, name, {}).reason_type == "not_offered" else None)
    data: dict[str, Any] = {
        "tool": tool,
        "claude_tool": name,
        "known": name in KNOWN or name.startswith("mcp__"),
        "runtime": chosen.to_json(),
        "offered": (name in KNOWN or name.startswith("mcp__")) and hidden is None and no_server is None,
        "hidden_by": hidden.to_json() if hidden is not None else None,
        "no_such_tool": no_server,
        "mcp_servers": [s.to_json() for s in settings.mcp_servers],
        "mode": settings.mode,
        "mode_origin": settings.mode_origin.to_json() if settings.mode_origin is not None else None,
        "trusted": settings.trusted,
        "files": [{"scope": f.scope, "path": str(f.path), "error": f.error} for f in settings.present_files],
        "rules": [r.to_json() for r in rules],
        "notes": list(settings.notes),
        "problems": [{"origin": o.to_json(), "message": m} for o, m in settings.problems],
        "call": None,
    }
    if call is not None:
        both = both if both is not None else call_answers(chosen, loaded, result, tool, call)
        data["call"] = both.to_json()
    return data


def render_text(data: dict[str, Any]) -> str:
    runtime = data["runtime"]
    label = f"{runtime['name']} {runtime['version']}"
    out = [f"{data['tool']}: Claude Code's tool" + ("" if data["known"] else
                                                      " (not a tool name Claude Code 2.1.332 has)")]
    if not data["known"]:
        out.append("1. Offered to the model: NO: Claude Code has no such tool")
    elif data["offered"]:
        out.append(f"1. Offered to the model: yes (mode {data['mode']}"
                   + (", workspace trusted)" if data["trusted"] else ", workspace NOT trusted)"))
    elif data["no_such_tool"]:
        out.append(f"1. Offered to the model: NO: {data['no_such_tool']}")
    else:
        rule = data["hidden_by"]
        out.append(f"1. Offered to the model: NO: the bare deny rule {rule['rule']!r} at "
                   f"{rule['origin']['description']} removes it")
    out.append("2. Rules that name it (Claude merges every file: deny > ask > allow)")
    if not data["rules"]:
        out.append("   none")
    for r in data["rules"]:
        state = "" if r["loaded"] else f"  (NOT LOADED: {r['why_not']})"
        out.append(f"   {r['behavior']:<5} {r['rule']}  {r['origin']['description']}{state}")
    call = data["call"]
    if call is not None:
        answer = call["runtime"]
        args = json.dumps(answer["args"], separators=(", ", ": "))
        out.append(f"3. Call decision: {answer['action'].upper()} for {args} ({label}'s answer; runtime "
                   f"{runtime['chosen_by']})")
        out.append(f"   {label}: {answer['reason']}")
        for check in answer.get("claude_checks", []):
            where = f" ({check['rule']['origin']['description']})" if check["rule"] else ""
            modelled = "  [modelled]" if check["fidelity"] == "modelled" else ""
            out.append(f"     {check['behavior']:<5} {check['subject']}: {check['why']}{where}{modelled}")
        if call.get("difference"):
            out.append(f"   {call['difference']}")
        gate = call["gate"]
        out.append(f"   forge-tools gate: {gate['action'].upper()}"
                   + (f" ({gate['refused']})" if gate.get("refused") else ""))
        for r in answer.get("gate_untranslated", []):
            out.append(f"     gate: {r}")
    for note in data["notes"]:
        out.append(f"note: {note}")
    for p in data["problems"]:
        out.append(f"problem: {p['origin']['description']}: {p['message']}")
    return "\n".join(out)
