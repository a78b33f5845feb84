"""`forge-tools explain TOOL`: the whole story of one tool, in pipeline order (SPEC 2, 3, 4.4)."""

# No `from __future__ import annotations` here: typer reads this module's command signatures at
# start-up, and string annotations would each be compiled and evaluated then (about 2 ms for check).

from typing import TYPE_CHECKING, Annotated, Any

import typer

from forge_tools.cli.common import AgentOpt, FormatOpt, LaunchOpt, RuntimeOpt, json_errors
from forge_tools.cli.pipeline_opts import PipelineOptions, pipeline_options

if TYPE_CHECKING:
    from forge_tools.config import LoadedConfig
    from forge_tools.visibility.pipeline import PipelineResult

DefinitionOpt = Annotated[
    bool,
    typer.Option("--definition", help="Also print the definition sent to the model (its description and "
                 "JSON Schema); JSON output always has it."),
]

CallOpt = Annotated[
    str | None,
    typer.Option("--call", metavar="JSON",
                 help='Also decide one call with these JSON arguments, e.g. \'{"command": "ls"}\'.',
                 show_default=False),
]


def register(app: typer.Typer) -> None:
    @app.command("explain")
    @json_errors
    @pipeline_options
    def explain_command(
        tool: Annotated[str, typer.Argument(metavar="TOOL",
                                            help="Tool id, e.g. edit, bash, or a project/plugin tool.")],
        call: CallOpt = None,
        definition: DefinitionOpt = False,
        agent: AgentOpt = None,
        fmt: FormatOpt = "text",
        runtime: RuntimeOpt = None,
        launch: LaunchOpt = None,
        opts: PipelineOptions = PipelineOptions(),
    ) -> int:
        """The verdict on TOOL, the deciding rule and a fix first; then where it came from and each layer."""
        from forge_tools.cli.common import check_format, start_launch
        from forge_tools.cli.layers_cmd import report_problems
        from forge_tools.cli.pipeline_opts import resolve_options
        from forge_tools.explain import call_answers, call_decision, explanation

        check_format(fmt, ("text", "json"))
        raw_call = _parse_call(call)
        runtime = start_launch(launch, runtime)
        if runtime is not None and (runtime == "all" or "," in runtime):
            return _explain_across(tool, raw_call, opts, runtime, fmt)
        from forge_tools.runtimes import get_runtime, refuse_start, runtime_for
        from forge_tools.runtimes.vocabulary import shared_call

        if runtime is not None:
            get_runtime(runtime)  # an unknown name is a usage error before anything is read
        focus = shared_call(tool, raw_call or {}).tool
        project, result = resolve_options(opts, focus=focus, fmt=fmt)
        loaded = project.config
        chosen = runtime_for(loaded, runtime)
        refuse_start(loaded, runtime)  # an agent that does not start with this config answers nothing
        if chosen.runtime.name not in ("opencode", "forge"):
            return _explain_agent(chosen, loaded, result, tool, raw_call, fmt)
        from forge_tools.runtimes.across import mcp_servers
        from forge_tools.runtimes.answer import framing
        from forge_tools.runtimes.vocabulary import translate

        words = translate(chosen.runtime.name, tool, raw_call, mcp_servers(loaded))
        own = words.own.tool if words.own is not None else focus
        verdict = result.require(own, allow_hidden=True)
        own_args = words.own.args if words.own is not None and raw_call is not None else raw_call
        decision = call_decision(result, verdict, own_args, loaded) if raw_call is not None else None
        both = call_answers(result, verdict, decision, loaded, chosen) if decision is not None else None
        if both is not None:
            both = both._replace(translated=words.said)
        data = explanation(result, verdict, loaded, decision, both)
        data.update(framing(chosen, loaded, result, own, decision.args if decision else None, both,
                            words.said))
        if verdict.id in SANDBOXED_TOOLS:
            data["sandbox"] = sandbox_boundary(loaded, result)
        report_problems(result)
        if fmt == "json":
            import json

            typer.echo(json.dumps(data, indent=2, default=str))
        else:
            from forge_tools.runtimes.answer import head_lines, tail_lines

            typer.echo("\n".join([*head_lines(data), render_text(data, definition=definition),
                                  *tail_lines(data)]))
        return 0


def _explain_agent(chosen: Any, loaded: Any, result: Any, tool: str, raw_call: Any, fmt: str) -> int:
    """`explain` when Claude Code, Codex CLI or Gemini CLI answers: the tool in its words, whether it
    offers it (as `layers` says), and its answer about the call with the gate's beside it."""
    from forge_tools.runtimes.answer import framing, head_lines, tail_lines
    from forge_tools.runtimes.vocabulary import translate

    if chosen.runtime.name == "claude":
        from forge_tools.runtimes.across import mcp_servers
        from forge_tools.runtimes.answer import call_answers
        from forge_tools.runtimes.claude.explain import explanation, render_text

        words = translate("claude", tool, raw_call, mcp_servers(loaded))
        own = words.own.tool if words.own is not None else tool
        both = call_answers(chosen, loaded, result, tool, raw_call) if raw_call is not None else None
        data = explanation(own, raw_call, loaded, result, chosen, both=both)
        data.update(framing(chosen, loaded, result, tool, raw_call, both, words.said))
        text = "\n".join([*head_lines(data), render_text(data), *tail_lines(data)])
    else:
        from forge_tools.runtimes.agent_explain import explanation as agent_explanation
        from forge_tools.runtimes.agent_explain import render_text as agent_text

        data = agent_explanation(chosen, loaded, result, tool, raw_call)
        text = agent_text(data)
    if fmt == "json":
        import json

        typer.echo(json.dumps(data, indent=2, default=str))
    else:
        typer.echo(text)
    return 0


def _explain_across(tool: str, raw_call: Any, opts: Any, runtime: str, fmt: str) -> int:
    """`explain TOOL --call JSON --runtime all`: every agent runtime's answer, one line each with its
    deciding rule at file:line:col, and forge-tools' gate once beside them (runtimes/across.py)."""
    from forge_tools.cli.pipeline_opts import resolve_options
    from forge_tools.errors import UsageError
    from forge_tools.runtimes.across import answers_by_runtime, mcp_servers, parse_runtimes
    from forge_tools.runtimes.vocabulary import shared_call

    names = parse_runtimes(runtime, "--runtime")
    if raw_call is None:
        raise UsageError("answering for several runtimes needs a call: add --call JSON, e.g. "
                         f"{CALL_EXAMPLE}", where="--runtime")
    from forge_tools.cli.pipeline_opts import load_for

    # the call in the shared vocabulary first (an opencode MCP id needs the config's server names)
    shared = shared_call(tool, raw_call, mcp_servers(load_for(opts.config, opts.project)))
    project, result = resolve_options(opts, focus=shared.tool, fmt=fmt)
    loaded = project.config
    if shared.mcp is None:  # an MCP tool's server is not started: the gate refuses what it has not got
        result.require(shared.tool, allow_hidden=True)
    both = answers_by_runtime(loaded, result, tool, raw_call, names)
    if fmt == "json":
        import json

        typer.echo(json.dumps({"tool": tool, **both.to_json()}, indent=2, default=str))
    else:
        typer.echo("\n".join(both.lines()))
    return 0


CALL_EXAMPLE = """--call '{"command": "ls"}' (bash) or --call '{"filePath": "src/a.py"}' (read)"""


# ------------------------------------------------------------------------------------------ sandbox

SANDBOXED_TOOLS = frozenset({"bash"})  # the tools `run` puts in the OS sandbox (docs/sandbox.md)


def sandbox_boundary(loaded: "LoadedConfig", result: "PipelineResult") -> dict[str, Any]:
    """What `run`'s sandbox would let the agent's commands touch, beside the rules (explain, layers)."""
    from forge_tools.sources.decides import deciding_paths
    from forge_tools.tools.sandbox import agent_boundary

    return agent_boundary(result.ruleset, loaded.project_root, loaded.config_dirs,
                          deciding_paths(loaded, result))


def sandbox_section(data: dict[str, Any]) -> list[str]:
    from forge_tools.tools.sandbox import describe

    return ["Sandbox (what `run` lets bash touch, whatever the program; docs/sandbox.md)",
            *(f"   {line}" for line in describe(data))]


def _parse_call(text: str | None) -> Any:
    import json

    from forge_tools.errors import UsageError

    if text is None:
        return None
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UsageError(f"not valid JSON ({exc.msg} at column {exc.colno}); give the call's arguments as "
                         f"a JSON object, e.g. {CALL_EXAMPLE}", where="--call") from None
    if not isinstance(value, dict):
        raise UsageError(f"expected a JSON object of arguments, e.g. {CALL_EXAMPLE}", where="--call")
    return value


def _rule_text(rule: dict[str, Any] | None, action: str = "ask") -> str:
    if rule is None:  # the runtime's default: ask for opencode, what another agent does unruled
        return f"no rule matches (the answer is {action})"
    if rule.get("kind") == "model":
        return f"model rule {rule['id']}: {rule['text']}"
    origin = rule.get("origin") or {}
    where = origin.get("description") or "?"
    preposition = "at" if origin.get("path") else "from"
    keys = origin.get("key_path") or []
    written = ""
    if len(keys) >= 2 and keys[-2] == "tools" and rule["pattern"] == "*":  # a legacy tools boolean
        written = f" (the `tools` boolean {keys[-1]}: {str(rule['action'] == 'allow').lower()})"
    return f"`{rule['permission']} {rule['pattern']} {rule['action']}`{written} {preposition} {where}"


def _check_lines(checks: list[dict[str, Any]]) -> list[str]:
    """One line per checked pattern: its action and the rule that gave it (and why an allowed pattern
    was escalated)."""
    lines = []
    for check in checks:
        if check.get("escalated_by"):  # the note says why, in the decision's own words (permission.calls)
            lines.append(f"   {check['permission']} {check['pattern']!r}: {check['action']} "
                         f"(the rules allow it by {_rule_text(check['rule'])}, but {check['note']})")
        else:
            lines.append(f"   {check['permission']} {check['pattern']!r}: {check['action']} "
                         f"(by {_rule_text(check['rule'], check['action'])})")
    return lines


def render_text(data: dict[str, Any], definition: bool = False) -> str:
    """The verdict, the deciding rule and the fix first; then numbered sections in pipeline order. The
    definition sent to the model (long: a JSON Schema) only with `definition`."""
    out: list[str] = []
    if data.get("call") is not None:  # a call's answer leads: the agent's own, then the gate where it differs
        out.extend(_call_summary(data))
    state = "VISIBLE" if data["visible"] else f"HIDDEN (at the {data['hidden_at']} layer)"
    flags = ", ".join(data["flags"]) or "none"
    deciding = data["deciding_rule"]
    if data["visible"] and deciding is not None and deciding.get("action") == "deny":
        # a pattern deny decides some calls, not whether the tool is offered
        out.append(f"{data['tool']}: VISIBLE; its last rule, {_rule_text(deciding)}, denies only the calls "
                   "it matches")
    else:
        out.append(f"{data['tool']}: {state}, by {_rule_text(deciding)}")
    if data.get("fix"):
        out.append(f"Fix: {data['fix']}")
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
    elif definition:
        from forge_tools.visibility.definition_layer import render_definition

        out.extend(f"   {line}" for line in render_definition(data["definition"]))
    else:  # the description's first line and the parameters' names; the whole of both behind an option
        described = str(data["definition"].get("description") or "").strip().splitlines()
        out.append(f"   description: {described[0] if described else '(none)'}")
        schema = data["definition"].get("parameters") or {}
        names = list((schema.get("properties") or {}) if isinstance(schema, dict) else ())
        changed = f"; changed by {', '.join(c['by'] for c in data['definition_changes'])}" \
            if data["definition_changes"] else ""
        out.append(f"   parameters: {', '.join(names) or 'none'} (the whole definition with --definition"
                   f"{changed})")
    if definition:
        for change in data["definition_changes"]:
            out.append(f"   changed by {change['by']}:")
            out.extend(f"     {line}" for line in change["diff"].splitlines())
    for problem in data.get("definition_problems", []):
        out.append(f"   HOOK FAILED: {problem['text']}")
    if data.get("call") is not None:
        out.append("")
        out.extend(_call_lines(data))
    if data.get("sandbox") is not None:
        out.append("")
        out.extend(sandbox_section(data["sandbox"]))
    for note in data.get("notes", []):
        out.append(f"note: {note}")
    for override in data.get("overrides", []):
        out.append(f"note: {override['text']}")
    return "\n".join(out)


def _call_summary(data: dict[str, Any]) -> list[str]:
    """The first lines of `explain --call`: whose answer, the answer, and the gate's where it differs."""
    call = data["call"]
    runtime = call.get("runtime")
    if runtime is None or runtime["runtime"] == "forge":
        gate = call.get("gate") or call
        return [f"Call: {gate['action'].upper()} (forge-tools' gate, what forge-tools run enforces)"]
    lines = [f"Call: {runtime['action'].upper()} ({runtime['runtime']} {runtime['version']}'s answer)"]
    if call.get("difference"):
        lines.append(f"  {call['difference']}")
    lines += [f"  note: {note}" for note in runtime.get("notes", [])]  # what is modelled (Codex)
    return lines


def _call_lines(data: dict[str, Any]) -> list[str]:
    """Section 5: the runtime's answer first (what the agent does), then, where it differs, the one
    line saying what forge-tools' gate (`forge-tools run`) would do, and each answer's checks."""
    call = data["call"]
    runtime = call.get("runtime")
    gate = call.get("gate") or call  # the flat fields are the answering runtime's (issue 28)
    gate_words = "forge-tools' gate, what forge-tools run enforces"
    if runtime is None or runtime["runtime"] == "forge":
        whose = f" ({gate_words})" if runtime is not None else ""
        out = [f"5. Call decision: {gate['action'].upper()} for {_compact(gate['args'])}{whose}"]
    else:
        label = f"{runtime['runtime']} {runtime['version']}"
        out = [f"5. Call decision: {runtime['action'].upper()} for {_compact(call['args'])} "
               f"({label}'s answer; runtime {data['runtime']['chosen_by']})"]
        if call.get("difference"):
            out.append(f"   {call['difference']}")
        else:
            out.append(f"   forge-tools run gives the same answer ({gate_words})")
        out.append(f"   {label}: {runtime['reason']}")
        out.extend(f"  {line}" for line in _check_lines(runtime["checks"]))
        out.append(f"   forge-tools gate: {gate['action'].upper()}")
    indent = "  " if runtime is not None and runtime["runtime"] != "forge" else ""
    if gate.get("refused"):
        out.append(f"   refused: {gate['refused']}")
    if not data["visible"]:
        out.append("   (the tool is hidden, so the model cannot make this call in this turn)")
    if data.get("call_if_visible") is not None:
        out.append("   if the tool were visible:")
        out.extend(f"  {line}" for line in _check_lines(data["call_if_visible"]["checks"]))
    out.extend(f"{indent}{line}" for line in _check_lines(gate["checks"]))
    return out


def _compact(value: Any) -> str:
    import json

    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 100 else text[:97] + "..."
