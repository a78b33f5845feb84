"""`forge-tools explain TOOL`: the whole story of one tool, in pipeline order (SPEC 2, 3, 4.4)."""

# No `from __future__ import annotations` here: typer reads this module's command signatures at
# start-up, and string annotations would each be compiled and evaluated then (about 2 ms for check).

from typing import Annotated, Any

import typer

from forge_tools.cli.common import (
    AgentOpt,
    ClientOpt,
    ConfigOpt,
    FlagOpt,
    FormatOpt,
    ModelOpt,
    NoMcpOpt,
    ProjectOpt,
    PureOpt,
    SessionPermissionOpt,
    ToolsOpt,
    json_errors,
)

CallOpt = Annotated[
    str | None,
    typer.Option("--call", metavar="JSON",
                 help='Also decide one call with these JSON arguments, e.g. \'{"command": "ls"}\'.',
                 show_default=False),
]


def register(app: typer.Typer) -> None:
    @app.command("explain")
    @json_errors
    def explain_command(
        tool: Annotated[str, typer.Argument(metavar="TOOL",
                                            help="Tool id, e.g. edit, bash, or a project/plugin tool.")],
        call: CallOpt = None,
        agent: AgentOpt = None,
        fmt: FormatOpt = "text",
        model: ModelOpt = None,
        flag: FlagOpt = None,
        client: ClientOpt = None,
        session_permission: SessionPermissionOpt = None,
        tools: ToolsOpt = None,
        config: ConfigOpt = None,
        project: ProjectOpt = None,
        pure: PureOpt = False,
        no_mcp: NoMcpOpt = False,
    ) -> int:
        """Where TOOL came from, each layer's verdict, the deciding rule, its definition, and a fix."""
        from forge_tools.cli.common import check_format
        from forge_tools.cli.layers_cmd import report_problems
        from forge_tools.cli.pipeline_opts import options, resolve_options
        from forge_tools.visibility.explain import call_decision, explanation

        check_format(fmt, ("text", "json"))
        raw_call = _parse_call(call)
        opts = options(agent, model, flag, client, session_permission, tools, config, project, pure, no_mcp)
        loaded, result = resolve_options(opts, focus=tool, fmt=fmt)
        verdict = result.require(tool, allow_hidden=True)
        decision = call_decision(result, verdict, raw_call, loaded) if raw_call is not None else None
        data = explanation(result, verdict, loaded, decision)
        report_problems(result)
        if fmt == "json":
            import json

            typer.echo(json.dumps(data, indent=2, default=str))
        else:
            typer.echo(render_text(data))
        return 0


def _parse_call(text: str | None) -> Any:
    import json

    from forge_tools.errors import UsageError

    if text is None:
        return None
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UsageError(f"not valid JSON ({exc.msg} at column {exc.colno})", where="--call") from None
    if not isinstance(value, dict):
        raise UsageError("expected a JSON object of arguments", where="--call")
    return value


def _rule_text(rule: dict[str, Any] | None) -> str:
    if rule is None:
        return "no rule matches (the answer is ask)"
    if rule.get("kind") == "model":
        return f"model rule {rule['id']}: {rule['text']}"
    origin = rule.get("origin") or {}
    where = origin.get("description") or "?"
    preposition = "at" if origin.get("path") else "from"
    return f"`{rule['permission']} {rule['pattern']} {rule['action']}` {preposition} {where}"


def _check_lines(checks: list[dict[str, Any]]) -> list[str]:
    """One line per checked pattern: its action and the rule that gave it (and why an allowed pattern
    was escalated)."""
    lines = []
    for check in checks:
        if check.get("escalated_by") and check["escalated_by"]["origin"]["kind"] == "safety":
            lines.append(f"   {check['permission']} {check['pattern']!r}: {check['action']} "
                         f"(the rules allow it by {_rule_text(check['rule'])}, but {check['note']})")
        elif check.get("escalated_by"):
            from forge_tools.permission.calls import escalation_reason

            reason = escalation_reason(check.get("escalation") or "opaque", check["pattern"])
            lines.append(f"   {check['permission']} {check['pattern']!r}: {check['action']} "
                         f"(the rules allow it by {_rule_text(check['rule'])}, but {reason}, and "
                         f"{_rule_text(check['escalated_by'])} could apply to it)")
        else:
            lines.append(f"   {check['permission']} {check['pattern']!r}: {check['action']} "
                         f"(by {_rule_text(check['rule'])})")
    return lines


def render_text(data: dict[str, Any]) -> str:
    """The explanation as numbered sections a person reads top to bottom."""
    out: list[str] = []
    state = "VISIBLE" if data["visible"] else f"HIDDEN (at the {data['hidden_at']} layer)"
    flags = ", ".join(data["flags"]) or "none"
    out.append(f"{data['tool']}: {state}")
    out.append(f"  for agent {data['agent']}, model {data['model'] or 'none'}, client {data['client']}, "
               f"flags {flags}")
    if data.get("agent_disabled"):
        agent = data["agent"]
        out.append(f"  DISABLED: agent {agent} is disabled in the config (agent.{agent}.disable): it "
                   "would not be used; this shows what it would get if it were enabled")
    out.append("")
    out.append("1. Source")
    source = data["source"]
    line = f":{source['line']}" if source.get("line") and source["kind"] == "script" else ""
    out.append(f"   {source['description']}{line}")
    for s in data["shadowed"]:
        out.append(f"   shadows {s['description']} (same id; this candidate replaces it)")
    out.append("")
    out.append(f"2. Layers (permission name: {data['permission']})")
    labels = {"model": "model/provider/flags", "definition": "definition", "permission": "permission rules",
              "request": "request booleans"}
    for layer in data["layers"]:
        mark = "keep" if layer["kept"] else "DROP"
        out.append(f"   {labels[layer['layer']]:<21} {mark:<5} {layer['reason']}")
    out.append("")
    out.append("3. Deciding rule (visibility: whether the model is sent the tool)")
    out.append(f"   {_rule_text(data['deciding_rule'])}")
    any_call = data["any_call"]
    out.append(f"   calls in general (pattern `*`): {any_call['action']}, by {_rule_text(any_call['rule'])}")
    out.append("")
    out.append("4. Definition sent to the model" + ("" if data["visible"] else " (if it were visible)"))
    if data["definition"] is None:
        out.append("   unknown: the tool's code was not loaded")
    else:
        from forge_tools.visibility.definition_layer import render_definition

        out.extend(f"   {line}" for line in render_definition(data["definition"]))
    for change in data["definition_changes"]:
        out.append(f"   changed by {change['by']}:")
        out.extend(f"     {line}" for line in change["diff"].splitlines())
    for problem in data.get("definition_problems", []):
        out.append(f"   HOOK FAILED: {problem['text']}")
    if data.get("call") is not None:
        call = data["call"]
        out.append("")
        out.append(f"5. Call decision: {call['action'].upper()} for {_compact(call['args'])}")
        if call.get("refused"):
            out.append(f"   refused: {call['refused']}")
        if not data["visible"]:
            out.append("   (the tool is hidden, so the model cannot make this call in this turn)")
        if data.get("call_if_visible") is not None:
            out.append("   if the tool were visible:")
            out.extend(f"  {line}" for line in _check_lines(data["call_if_visible"]["checks"]))
        out.extend(_check_lines(call["checks"]))
    if data.get("fix"):
        out.append("")
        out.append(f"Fix: {data['fix']}")
    for note in data.get("notes", []):
        out.append(f"note: {note}")
    for override in data.get("overrides", []):
        out.append(f"note: {override['text']}")
    return "\n".join(out)


def _compact(value: Any) -> str:
    import json

    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 100 else text[:97] + "..."
