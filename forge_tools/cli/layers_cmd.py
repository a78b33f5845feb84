"""`forge-tools layers`: every candidate tool's fate through the three visibility layers (SPEC 3)."""

# No `from __future__ import annotations` here: typer reads this module's command signatures at
# start-up, and string annotations would each be compiled and evaluated then (about 2 ms for check).

from typing import TYPE_CHECKING, Annotated, Any

import typer

from forge_tools.cli.common import AgentOpt, FormatOpt, LaunchOpt, RuntimeOpt, json_errors
from forge_tools.cli.pipeline_opts import PipelineOptions, pipeline_options

if TYPE_CHECKING:
    from forge_tools.config import LoadedConfig
    from forge_tools.visibility.pipeline import PipelineResult, ToolVerdict

WideOpt = Annotated[
    bool, typer.Option("--wide", help="On a terminal, print every cell whole (rows may wrap) instead of "
                                      "cutting SOURCE and RESULT to the width with an ellipsis.")
]

MatrixOpt = Annotated[
    bool, typer.Option("--matrix", help="Every agent by every tool: allow, ask, limited (visible but `*` "
                                 "denied) or hidden.")
]


RuntimesOpt = Annotated[
    bool, typer.Option("--runtimes", help="With --matrix: a column for each other agent runtime whose "
                                          "config the project holds (Claude Code, Gemini CLI), tools in the "
                                          "shared vocabulary (docs/agents.md).")
]


def register(app: typer.Typer) -> None:
    @app.command("layers")
    @json_errors
    @pipeline_options
    def layers_command(
        agent: AgentOpt = None,
        matrix: MatrixOpt = False,
        runtimes: RuntimesOpt = False,
        wide: WideOpt = False,
        fmt: FormatOpt = "text",
        runtime: RuntimeOpt = None,
        launch: LaunchOpt = None,
        opts: PipelineOptions = PipelineOptions(),
    ) -> int:
        """Show each candidate tool, its source, every layer's verdict and whether the model sees it.
        For Claude Code (`--runtime claude`, or a project with only .claude settings) and Gemini CLI
        (`--runtime gemini`, or only .gemini files): the tools it offers the model and the rule that
        hides one."""
        from forge_tools.cli.common import check_format, start_launch

        check_format(fmt, ("text", "json"))
        runtime = start_launch(launch, runtime)
        from forge_tools.cli.common import LISTED_RUNTIMES, load, runtime_files_here, runtime_listing

        if runtime is not None and (runtime == "all" or "," in runtime):
            return show_runtimes(opts, runtime, fmt)
        if runtime is not None:
            from forge_tools.runtimes import get_runtime

            get_runtime(runtime)  # an unknown name is a usage error; opencode and forge: the table below
        for name in LISTED_RUNTIMES:
            if runtime == name or (runtime is None and not matrix and runtime_files_here(name, opts.project)):
                shown = runtime_listing(name, load(list(opts.config), opts.project), runtime, "layers", fmt)
                if shown is not None:
                    typer.echo(shown)
                    return 0
        if runtimes and not matrix:
            from forge_tools.errors import UsageError

            raise UsageError("--runtimes adds columns to the matrix: give --matrix too", where="--runtimes")
        if matrix:
            return show_matrix(opts, fmt, runtimes)
        return show_layers(opts, fmt, wide=wide, runtime=runtime)


# ------------------------------------------------------------------------------------------ layers


def show_runtimes(opts: PipelineOptions, runtime: str, fmt: str) -> int:
    """`layers --runtime all` (or NAME,NAME): each agent runtime's own listing in turn (every agent
    runtime the project configures for `all`), opencode's as the layers table."""
    from forge_tools.cli.common import LISTED_RUNTIMES, load, runtime_listing
    from forge_tools.runtimes.across import agent_runtimes, parse_runtimes

    loaded = load(list(opts.config), opts.project)
    names = parse_runtimes(runtime, "--runtime")
    found = [f.name for f in agent_runtimes(loaded, names)]
    shown: list[str] = []
    for name in found:
        if name in LISTED_RUNTIMES:
            listing = runtime_listing(name, loaded, name, "layers", fmt)
            if listing is not None:
                shown.append(listing)
    opencode = next((n for n in found if n in ("opencode", "forge")), None)
    if fmt == "json":
        import json

        payloads = [json.loads(s) for s in shown]
        if opencode is not None:
            from forge_tools.cli.pipeline_opts import resolve_options

            _project, result = resolve_options(opts, fmt=fmt)
            payloads.append({"runtime": {"name": opencode}, **result.to_json()})
        typer.echo(json.dumps({"runtimes": payloads}, indent=2))
        return 0
    typer.echo("\n\n".join(shown))
    if opencode is not None:
        typer.echo("")
        return show_layers(opts, fmt, runtime=opencode)
    return 0


def show_layers(opts: PipelineOptions, fmt: str, default_banner: bool = False, wide: bool = False,
                runtime: str | None = None) -> int:
    from forge_tools.cli.explain_cmd import sandbox_boundary, sandbox_section
    from forge_tools.cli.pipeline_opts import resolve_options
    from forge_tools.runtimes import refuse_start

    project, result = resolve_options(opts, fmt=fmt)
    loaded = project.config
    refuse_start(loaded)
    report_problems(result)
    sandbox = sandbox_boundary(loaded, result)
    if fmt == "json":
        import json

        typer.echo(json.dumps({**result.to_json(), "sandbox": sandbox}, indent=2))
        return 0
    from forge_tools.cli.common import console

    out = console()
    from forge_tools.runtimes import runtime_for

    out.print(runtime_for(loaded, runtime).headline(), markup=False)
    out.print(header(loaded, result, default_banner), markup=False)
    render_layers(out, result, loaded.project_root, wide=wide)
    visible = len(result.visible_ids)
    out.print(f"{visible} of {len(result.tools)} candidate tools are sent to the model "
              f"(~{result.definition_tokens} tokens of definitions).", markup=False)
    for warning in result.warnings:
        out.print(f"warning: {warning}", markup=False)
    for line in shadow_lines(result, loaded.project_root):
        out.print(line, markup=False)
    for note in result.notes:
        out.print(f"note: {note}", markup=False)
    import textwrap

    width = getattr(out, "width", 0)  # a terminal's (rich); plain output to a pipe keeps whole lines
    for line in sandbox_section(sandbox):
        indent = " " * (len(line) - len(line.lstrip()) + 2)
        parts = textwrap.wrap(line, width=max(width, 40), subsequent_indent=indent) if width else [line]
        for part in parts or [""]:
            out.print(part, markup=False)
    return 0


def runtime_legend(extra: list[Any]) -> str:
    """The matrix's other runtimes, each with its own name for bash (`Codex CLI 0.171.0 (bash is
    exec_command)`): their columns are each agent's own answer for calls in general, in its tool names."""
    from forge_tools.runtimes.vocabulary import SharedCall, own_call

    if not extra:
        return "none"
    named = []
    for found, _ in extra:
        own = own_call(found.name, SharedCall("bash", {}))
        named.append(f"{found.label} (bash is {own.tool})" if own is not None else found.label)
    return (", ".join(named) + " (their columns are each agent's own answer for calls in general, in its "
            "tool names)")


def config_label(loaded: "LoadedConfig") -> str:
    paths = [s.describe() for s in loaded.sources]
    return ", ".join(paths) if paths else "none (the embedded default)"


def header(loaded: "LoadedConfig", result: "PipelineResult", default_banner: bool = False) -> str:
    agent = result.agent
    flags = ", ".join(sorted(result.flags)) or "none"
    model = result.model or "none (set `model` in config or --model)"
    lines = []
    if default_banner:
        lines.append("forge-tools: what the model would be sent, for the default agent")
    lines.append(f"agent {agent.name} ({agent.mode}) · model {model} · client {result.client} · "
                 f"flags {flags}")
    if result.disabled_note:
        lines.append(f"DISABLED: {result.disabled_note}")
    lines.append(f"config: {config_label(loaded)}")
    if result.session_rules:
        lines.append(f"session overlay: {len(result.session_rules)} rule(s) from --session-permission")
    if result.request_rules:
        lines.append("request booleans: " + ", ".join(
            f"{r.permission}={'true' if r.action == 'allow' else 'false'}" for r in result.request_rules))
    return "\n".join(lines)


def _cell(kept: bool) -> str:
    return "keep" if kept else "drop"


def short_reason(verdict: "ToolVerdict", root: Any = None) -> str:
    """The reason in a few words, quoting the rule (for the table; `explain` has the whole story)."""
    deciding = verdict.deciding
    if deciding is None:
        return ""
    from forge_tools.rule import Rule

    rule = deciding.rule
    if not isinstance(rule, Rule):
        text = str(getattr(rule, "text", deciding.reason))
        return text.split(" (", 1)[0]  # the condition's detail is in `explain`
    if deciding.layer == "request" and rule.origin.kind == "cli":
        return f"--tools {rule.permission}: false"
    return f"{rule.permission} * deny ({display_origin(rule.origin, root)})"


def display_origin(origin: Any, root: Any = None) -> str:
    """`forge.toml:4:1` rather than an absolute path when the file is inside the project."""
    from forge_tools.paths import relative_to_root

    text = str(origin)
    path = getattr(origin, "path", None)
    if path and root is not None:
        rel = relative_to_root(str(path), str(root))  # resolved once per file, not once per row
        if rel is not None:
            text = text.replace(path, rel, 1)
    return text


def display_source(source: Any, root: Any = None) -> str:
    """`script .forge/tools/x.py` rather than an absolute path when it is inside the project."""
    from forge_tools.paths import relative_to_root

    text = str(source)
    path = getattr(source, "path", None)
    if path and root is not None:
        rel = relative_to_root(str(path), str(root))
        if rel is not None:
            text = text.replace(str(path), rel)
    return text


LAYER_HEADER = ("TOOL", "SOURCE", "MODEL", "DEFINITION", "PERMISSION", "TOKENS", "RESULT")


def layer_rows(result: "PipelineResult", root: Any = None) -> list[tuple[str, ...]]:
    """One row of plain cells per candidate, in source order."""
    show_request = bool(result.request_rules)
    rows: list[tuple[str, ...]] = []
    for v in result.tools:
        model, permission, request = (v.layer(n) for n in ("model", "permission", "request"))
        definition_cell = ("hook failed" if v.definition_outcome.problems
                           else "changed" if v.definition_changes
                           else "unknown" if v.tool is None else "keep")
        perm_cell = _cell(permission.kept)
        if show_request and (request.kept != permission.kept or v.hidden_at == "request"):
            perm_cell += f", --tools: {_cell(request.kept)}"
        source = display_source(v.source, root)
        if v.shadowed:
            source += f" (shadows {', '.join(display_source(s, root) for s in v.shadowed)})"
        result_cell = "visible" if v.visible else f"hidden at {v.hidden_at}: {short_reason(v, root)}"
        tokens = v.tokens
        tokens_cell = f"~{tokens}" if tokens is not None else ("?" if v.visible else "")
        rows.append((v.id, source, _cell(model.kept), definition_cell, perm_cell, tokens_cell, result_cell))
    return rows


def render_layers(out: Any, result: "PipelineResult", root: Any = None, wide: bool = False) -> None:
    """A rich table on a terminal (hidden rows dimmed), one line per tool: SOURCE and RESULT are cut
    to the width with an ellipsis (`wide`: every cell whole); plain aligned columns in a pipe or file."""
    rows = layer_rows(result, root)
    if not out.is_terminal:
        from forge_tools.report.table import format_table

        out.print(format_table(LAYER_HEADER, rows), markup=False, highlight=False, soft_wrap=True)
        return
    from rich.table import Table
    from rich.text import Text

    widths = [max(len(cell) for cell in column) for column in zip(LAYER_HEADER, *rows, strict=True)]
    needed = sum(widths) + 2 * (len(widths) - 1)  # one space of padding each side of a gap
    table = Table(box=None, pad_edge=False, show_edge=False, header_style="bold")
    source, result_at = LAYER_HEADER.index("SOURCE"), LAYER_HEADER.index("RESULT")
    if not wide and needed > out.width:  # ids and verdict words stay whole; SOURCE and RESULT share the rest
        room = max(out.width - (needed - widths[source] - widths[result_at]), 16)
        widths[source] = min(widths[source], max(8, room // 4))
        widths[result_at] = max(room - widths[source], 8)
    for name, width in zip(LAYER_HEADER, widths, strict=True):
        table.add_column(name, no_wrap=True, overflow="ellipsis", width=width)
    for v, row in zip(result.tools, rows, strict=True):
        style = "" if v.visible else "dim"
        cells = [Text(cell, style=style) for cell in row]
        cells[0].stylize("bold" if v.visible else "dim")
        cells[-1].stylize("green" if v.visible else "dim red")
        table.add_row(*cells)
    if wide:  # every cell whole: the table as wide as its longest row, which the terminal may wrap
        width = out.width
        out.width = max(width, needed)
        try:
            out.print(table)
        finally:
            out.width = width
        return
    out.print(table)
    if needed > out.width:
        out.print("(cells cut to the terminal's width: --wide or --format json for the whole text)",
                  markup=False, style="dim")


def shadow_lines(result: "PipelineResult", root: Any = None) -> list[str]:
    return [f"shadowed: {s.id}: {display_source(s.by, root)} replaces {display_source(s.shadowed, root)}"
            for s in result.shadowings]


def report_problems(result: "PipelineResult") -> None:
    """Script and plugin failures go to stderr (they are not fatal: the rest still loaded)."""
    seen: set[str] = set()
    for problem in result.problems:
        line = problem.one_line()
        if line not in seen:
            seen.add(line)
            typer.echo(f"forge-tools: warning: {line}", err=True)


# ------------------------------------------------------------------------------------------ matrix

MATRIX_STATES = {
    "allow": "visible, calls allowed",
    "ask": "visible, calls ask first (`*` evaluates to ask)",
    "limited": "visible, but `*` is denied: only calls some rule allows or asks for go through",
    "hidden": "not sent to the model",
}


def matrix_state(result: "PipelineResult", verdict: "ToolVerdict") -> str:
    from forge_tools.permission.evaluate import evaluate

    if not verdict.visible:
        return "hidden"
    action = evaluate(verdict.permission, "*", result.ruleset).action
    return {"allow": "allow", "ask": "ask"}.get(action, "limited")


RUNTIME_STATES = {
    "-": "the agent has no such tool (for an MCP tool: it starts no server of that name)",
}


def show_matrix(opts: PipelineOptions, fmt: str, runtimes: bool = False) -> int:
    from forge_tools.cli.pipeline_opts import read_project, warn_unknown_tools
    from forge_tools.cli.progress import TerminalStatus, wants_progress
    from forge_tools.permission.agents import load_agents, select_agent
    from forge_tools.visibility.pipeline import McpScope, resolve_all

    project, request = read_project(opts)
    loaded = project.config
    agents = load_agents(loaded)
    only = [select_agent(agents, opts.agent, loaded).name] if opts.agent is not None else None
    with TerminalStatus("loading the tools", wants_progress(fmt)) as status:
        results = resolve_all(loaded, request, agents=agents, names=only,
                              mcp=McpScope(progress=status.update), session=project.session_rules)
    names = list(results)
    first = next(iter(results.values()))
    report_problems(first)
    warn_unknown_tools(first)
    tool_ids = first.ids
    grid = {name: {t.id: matrix_state(r, t) for t in r.tools} for name, r in results.items()}
    extra: list[Any] = []
    if runtimes:
        from forge_tools.runtimes.across import runtime_columns

        extra = runtime_columns(loaded, tool_ids)
    if fmt == "json":
        import json

        payload: dict[str, Any] = {
            "agents": [{"name": n, "mode": agents[n].mode, "model": results[n].model} for n in names],
            "tools": tool_ids,
            "matrix": grid,
            "legend": MATRIX_STATES,
            "disabled": [a.name for a in agents.values() if a.disabled],
        }
        if runtimes:
            payload["runtimes"] = [{**found.to_json(), "matrix": states} for found, states in extra]
            payload["legend"] = {**MATRIX_STATES, **RUNTIME_STATES}
        typer.echo(json.dumps(payload, indent=2))
        return 0
    from forge_tools.cli.common import console
    from forge_tools.report.table import format_table

    out = console()
    out.print(f"config: {config_label(loaded)} · client {request.client} · flags "
              f"{', '.join(sorted(request.flags)) or 'none'}", markup=False)
    columns = ["TOOL", *(f"{name} ({agents[name].mode})" for name in names),
               *(found.label for found, _ in extra)]
    cells = {tool_id: [*(grid[n][tool_id] for n in names), *(states[tool_id] for _, states in extra)]
             for tool_id in tool_ids}
    if out.is_terminal:
        from rich.table import Table
        from rich.text import Text

        styles = {"allow": "green", "ask": "yellow", "limited": "magenta", "hidden": "dim", "-": "dim",
                  "?": "dim"}
        table = Table(box=None, pad_edge=False, show_edge=False, header_style="bold")
        for column in columns:
            table.add_column(column)
        for tool_id in tool_ids:
            table.add_row(tool_id, *(Text(c, style=styles[c]) for c in cells[tool_id]))
        out.print(table)
    else:
        rows = [(tool_id, *cells[tool_id]) for tool_id in tool_ids]
        out.print(format_table(columns, rows), markup=False, soft_wrap=True)
    legend = {**MATRIX_STATES, **RUNTIME_STATES} if runtimes else MATRIX_STATES
    out.print("legend:\n" + "\n".join(f"  {k:<8} {v}" for k, v in legend.items()), markup=False)
    if runtimes:
        out.print(f"other agent runtimes configured here: {runtime_legend(extra)}", markup=False)
    models = {n: results[n].model or "none" for n in names}
    if len(set(models.values())) == 1:
        out.print(f"model: {next(iter(models.values()))} (every agent)", markup=False)
    else:
        out.print("models: " + ", ".join(f"{n} {m}" for n, m in models.items()), markup=False)
    for name in names:
        note = results[name].disabled_note
        if note:
            out.print(f"DISABLED: {note}", markup=False)
    disabled = [a.name for a in agents.values() if a.disabled and a.name not in names]
    if disabled:
        out.print(f"disabled agents (not shown): {', '.join(disabled)}", markup=False)
    return 0
