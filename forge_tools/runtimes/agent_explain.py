"""`explain TOOL [--call JSON]` when Codex CLI or Gemini CLI answers: whether the agent offers the tool
(the row `layers` shows for it, from the same listing), the call's answer beside forge-tools' gate, and
what every answer says around itself (`answer.framing`). Claude Code's is `runtimes/claude/explain.py`;
opencode's and forge-tools' own are `forge_tools.explain`."""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from forge_tools.config.loader import LoadedConfig
    from forge_tools.runtimes import Chosen
    from forge_tools.visibility.pipeline import PipelineResult


def offered_row(name: str, loaded: LoadedConfig, own_tool: str) -> dict[str, Any]:
    """`layers`' row for `own_tool` of runtime `name` (`listing.layers_payload`): `state` (offered,
    hidden, limited, ask, allow, or `not listed`) and `why`."""
    from forge_tools.runtimes import RUNTIMES

    listing = import_module(f"{RUNTIMES[name]}.listing")
    settings = getattr(listing, f"settings_if_{name}")(loaded, name)
    payload = listing.layers_payload(settings)
    if payload.get("start_error"):
        return {"state": "hidden", "why": f"the agent does not start: {payload['start_error']}"}
    row = next((t for t in payload["tools"] if t["tool"] == own_tool), None)
    if row is None:
        files = import_module(f"{RUNTIMES[name]}.files")
        state = files.tool_states(loaded, [own_tool])[own_tool]
        if state == "?":
            return {"state": "not listed", "why": payload.get("mcp", "")}
        return {"state": state, "why": "not among the tools the agent offers" if state == "hidden" else ""}
    if "state" in row:  # Codex: modelled from sandbox_mode and approval_policy
        return {"state": row["state"], "why": "modelled from sandbox_mode and approval_policy"}
    if row.get("offered"):
        return {"state": "offered", "why": ""}
    rule = row.get("hidden_by")
    if rule is not None:
        where = (rule.get("location") or {}).get("description", "")
        return {"state": "hidden", "why": f"by {rule.get('text') or rule.get('toolName')} at {where}"}
    return {"state": "hidden", "why": "no rule matches and the default denies"}


def explanation(chosen: Chosen, loaded: LoadedConfig, result: PipelineResult, tool: str,
                call: dict[str, Any] | None) -> dict[str, Any]:
    from forge_tools.runtimes.across import mcp_servers
    from forge_tools.runtimes.answer import call_answers, framing
    from forge_tools.runtimes.vocabulary import translate

    name = chosen.runtime.name
    words = translate(name, tool, call or {}, mcp_servers(loaded))
    own = words.own
    row = (offered_row(name, loaded, own.tool) if own is not None
           else {"state": "no such tool", "why": words.said or ""})
    both = call_answers(chosen, loaded, result, tool, call) if call is not None else None
    return {"tool": tool, "own_tool": own.tool if own is not None else None, **row,
            **framing(chosen, loaded, result, tool, call, both, words.said),
            "call": both.to_json() if both is not None else None}


def render_text(data: dict[str, Any]) -> str:
    from forge_tools.runtimes.answer import head_lines, tail_lines

    out = head_lines(data)
    call = data["call"]
    label = data["runtime"]["display"]
    if call is not None:
        out.append(f"Call: {call['action'].upper()} ({label}'s answer)")
        if call.get("difference"):
            out.append(f"  {call['difference']}")
    shown = data["own_tool"] or data["tool"]
    state = data["state"].upper() if data["state"] in ("hidden", "no such tool") else data["state"]
    out.append(f"{shown}: {state}" + (f" ({data['why']})" if data["why"] else ""))
    if call is not None:
        answer = call["runtime"]
        out.append(f"Call decision: {answer['action'].upper()} for {answer['args']} ({label}'s answer; "
                   f"runtime {data['runtime']['chosen_by']})")
        out.append(f"   {label}: {answer['reason']}")
        out += [f"   note: {n}" for n in answer.get("notes", [])]
        out += [f"     {c['permission']} {c['pattern']!r}: {c['action']} ({_rule_words(c)})"
                for c in answer.get("checks", [])]
        gate = call["gate"]
        out.append(f"   forge-tools gate (what forge-tools run enforces): {gate['action'].upper()}"
                   + (f" ({gate['refused']})" if gate.get("refused") else ""))
    out += tail_lines(data)
    return "\n".join(out)


def _rule_words(check: dict[str, Any]) -> str:
    rule = check.get("rule")
    if rule is None:
        return f"no rule matches (the answer is {check['action']})"
    where = (rule.get("origin") or {}).get("description", "")
    return f"by {rule['pattern']} {rule['action']} at {where}"
