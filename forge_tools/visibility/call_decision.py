"""The one decision of a call without running it (SPEC 4.4, 4.5; issue 8): `decide_call`.

`explain --call`, `check --expect` (and `diff`'s expectations) and the library's `decide_call` all
ask it; `run` asks the same gate for real, after the same refusal of a hidden tool (`PipelineResult.
require`). A call never reaches the gate when its tool is unknown or hidden in the turn (the model is
not offered a hidden tool, so it cannot make the call) or when its arguments do not fit: such a call is
a deny, with the reason. Otherwise the call's permission requests go to a dry gate, which answers as
`run`'s gate would, minus the person.
"""

from __future__ import annotations

import difflib
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from forge_tools.permission.calls import CallDecision, PermissionRequest
from forge_tools.rule import Rule

if TYPE_CHECKING:
    from forge_tools.permission.gate import PermissionGate
    from forge_tools.visibility.pipeline import PipelineResult, ToolVerdict


def decide_call(result: PipelineResult, tool_id: str, args: dict[str, Any], project_root: Path,
                gate: PermissionGate | None = None, *, as_if_visible: bool = False) -> CallDecision:
    """What the gate decides for this call in this turn, without running the tool: the call's requests
    go to a dry gate (`permission.gate.dry_decide`). An unknown or hidden tool, or arguments that do
    not fit, are a deny before any pattern is checked. `as_if_visible` decides a hidden tool's call
    as the gate would if the tool were offered (`explain` shows it beside the refusal)."""
    from forge_tools.permission.gate import dry_decide, dry_gate
    from forge_tools.tools.arguments import default_permission_requests, permission_requests_for
    from forge_tools.tools.contract import ToolContext

    refusal = refused_call(result, tool_id, args, project_root, as_if_visible=as_if_visible)
    if refusal is not None:
        return refusal
    verdict = result.get(tool_id)
    assert verdict is not None
    tool = verdict.tool
    requests: list[PermissionRequest]
    if tool is not None and tool.permission_requests is not None:
        value, problem = validated_args(result, tool_id, args)
        if problem is not None:
            return CallDecision(args=args, refused=problem)
        try:
            ctx = ToolContext(agent=result.agent.name, project_root=project_root)
            requests = permission_requests_for(tool, value, ctx)
        except Exception as exc:
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            return CallDecision(args=args,
                                refused=f"the call's arguments are not valid for {tool_id}: {first}")
    elif tool is not None:
        requests = default_permission_requests(tool)
    else:
        requests = [PermissionRequest(verdict.permission, ("*",))]
    return dry_decide(gate if gate is not None else dry_gate(result.ruleset), requests, args)


def refused_call(result: PipelineResult, tool_id: str, args: dict[str, Any], project_root: Path, *,
                 as_if_visible: bool = False) -> CallDecision | None:
    """The deny of a call that cannot be made in this turn (an unknown or hidden tool: the model is not
    offered it), or None. Every runtime refuses these alike (`runtimes/*` ask it too)."""
    verdict = result.get(tool_id)
    if verdict is None:
        unknown = f"unknown tool {tool_id!r}{did_you_mean(tool_id, result.ids)}"
        return CallDecision(args=args, refused=unknown)
    if not verdict.visible and not as_if_visible:
        deciding = verdict.deciding
        rule = deciding.rule if deciding is not None and isinstance(deciding.rule, Rule) else None
        return CallDecision(args=args, refused=hidden_words(verdict, project_root), refused_by=rule)
    return None


def args_problem(result: PipelineResult, tool_id: str, args: dict[str, Any]) -> str | None:
    """Why `args` do not fit the tool's parameters (None when they do, or the tool is not loaded)."""
    return validated_args(result, tool_id, args)[1]


def validated_args(result: PipelineResult, tool_id: str, args: dict[str, Any]) -> tuple[Any, str | None]:
    """(the arguments as the tool validates them, None), or (None, why they do not fit); (None, None)
    when the tool is unknown or not loaded."""
    from forge_tools.tools.arguments import decision_args

    verdict = result.get(tool_id)
    if verdict is None or verdict.tool is None:
        return None, None
    try:
        return decision_args(verdict.tool, args), None
    except Exception as exc:
        return None, _args_problem(verdict.tool, tool_id, args, exc)


def _args_problem(tool: Any, tool_id: str, args: dict[str, Any], exc: Exception) -> str:
    from forge_tools.tools.wrapper import InvalidInput

    if isinstance(exc, InvalidInput):
        names = _parameter_names(tool)
        unused = [n for n in names if n not in args] or names  # a typo most likely stands for a missing one
        fields = "; ".join(
            f"{d.get('field')}: {d.get('problem')}"
            + (did_you_mean(str(d.get("field")), unused) if _is_extra(d, args) else "")
            for d in exc.details)
        return f"the arguments do not fit {tool_id}'s parameters ({fields or exc.text})"
    # a broken schema of a loaded tool: say so, do not crash the check
    return f"the arguments of {tool_id} cannot be validated: {exc}"


def _parameter_names(tool: Any) -> list[str]:
    """The tool's top-level parameter names (none when its schema cannot be read)."""
    try:
        properties = tool.json_schema().get("properties")
    except Exception:  # a broken schema of a loaded tool: no suggestions, the problem is still said
        return []
    return [str(n) for n in properties] if isinstance(properties, dict) else []


def _is_extra(detail: dict[str, Any], args: dict[str, Any]) -> bool:
    """An argument the tool has no parameter for (a top-level name the call gave)."""
    return detail.get("field") in args and "extra" in str(detail.get("problem", "")).lower()


def hidden_words(verdict: ToolVerdict, root: Path | None) -> str:
    """Why a tool is hidden: the hiding rule and where it was written (the project-relative path), or
    the layer's own reason when no permission rule did it."""
    deciding = verdict.deciding
    rule = deciding.rule if deciding is not None else None
    if isinstance(rule, Rule):
        return (f"{verdict.id} is hidden at the {verdict.hidden_at} layer: the last rule for "
                f"{verdict.permission} is {rule_origin_words(rule, root)}")
    return f"{verdict.id} is hidden at the {verdict.hidden_at} layer: {verdict.reason}"


def rule_origin_words(rule: Rule | None, root: Path | None = None) -> str:
    if rule is None:
        return "no rule matched (the default is ask)"
    from forge_tools.report.locations import describe

    return f"rule {rule.permission} {json.dumps(rule.pattern)} {rule.action} ({describe(rule.origin, root)})"


def did_you_mean(name: str, names: list[str]) -> str:
    close = difflib.get_close_matches(name, names, n=3)
    return f" (did you mean {', '.join(repr(c) for c in close)}?)" if close else ""
