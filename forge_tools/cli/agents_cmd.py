"""`forge-tools agents`: every agent with its mode, description and where it was defined."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from forge_tools.cli.common import ConfigOpt, FormatOpt, ProjectOpt, json_errors

RuntimesOpt = Annotated[
    bool, typer.Option("--runtimes", help="Only the agent runtimes whose config the project holds "
                                          "(opencode, Claude Code, Codex CLI, Gemini CLI, forge-tools) "
                                          "and their files.")
]


def register(app: typer.Typer) -> None:
    @app.command("agents")
    @json_errors
    def agents_command(
        runtimes: RuntimesOpt = False,
        fmt: FormatOpt = "text",
        config: ConfigOpt = None,
        project: ProjectOpt = None,
    ) -> int:
        """List the agents in opencode's order (builtin first, then custom, each by name), the default
        one marked (`--runtimes`: the agent runtimes whose config the project holds, with their files;
        JSON always has both)."""
        import json

        from forge_tools.cli.common import check_format, load
        from forge_tools.errors import ConfigError
        from forge_tools.permission.agents import default_agent_name, listing_order, load_agents
        from forge_tools.report.table import format_table
        from forge_tools.runtimes.found import listed_runtimes

        check_format(fmt, ("text", "json"))
        loaded = load(config, project)
        found, answering = listed_runtimes(loaded)
        if runtimes and fmt == "text":
            typer.echo("\n".join(runtime_lines(found, loaded, answering)))
            return 0
        from forge_tools.runtimes import refuse_start

        refuse_start(loaded)  # opencode lists no agent when it does not start
        agents = load_agents(loaded)
        # a default_agent that names no usable agent does not stop the listing (opencode 1.18.33 lists
        # its agents and refuses only when a session needs the default): said, and no agent is marked
        problem: str | None = None
        try:
            default: str | None = default_agent_name(loaded, agents)
        except ConfigError as exc:
            default, problem = None, exc.one_line()
            typer.echo(f"forge-tools: warning: {problem}", err=True)
        ordered = listing_order(agents)
        if fmt == "json":
            payload: dict[str, object] = {
                "default_agent": default,
                "agents": [{**a.to_json(), "default": a.name == default} for a in ordered],
                "runtimes": [f.to_json(answering) for f in found],
            }
            if runtimes:
                payload = {"runtimes": payload["runtimes"]}
            if problem is not None:
                payload["default_agent_problem"] = problem
            typer.echo(json.dumps(payload, indent=2))
            return 0
        rows = []
        for a in ordered:
            marks = (("default", a.name == default), ("disabled", a.disabled), ("hidden", a.hidden))
            status = ", ".join(s for s, on in marks if on)
            origin = "builtin" if a.builtin else str(a.origin)
            if a.builtin and a.config_origin is not None:
                origin += f", configured at {a.config_origin}"
            name = a.name if a.shown == a.name else f"{a.name} (shown as {a.shown})"
            rows.append((name, a.mode, status or "-", origin, a.description or "-"))
        typer.echo(format_table(("AGENT", "MODE", "STATUS", "ORIGIN", "DESCRIPTION"), rows))
        return 0


def runtime_lines(found: list[Any], loaded: Any, answering: str | None = None) -> list[str]:
    """The agent runtimes with files here, each with its files (project ones first) and their scope."""
    from pathlib import Path

    from forge_tools.paths import home_dir
    from forge_tools.report.locations import display_path
    from forge_tools.report.table import format_table

    root, home = Path(loaded.project_root), str(home_dir())

    def shown(path: str) -> str:
        rel = display_path(path, root)
        if rel == path and path.startswith(home + "/"):
            return "~" + path[len(home):]
        return rel or path

    head = "Agent runtimes configured in this project" if any(f.in_project for f in found) else \
        "No agent runtime is configured in this project"
    lines = [f"{head} (the files each reads; docs/agents.md):"]
    rows = []
    warnings = []
    for f in sorted(found, key=lambda f: not f.in_project):
        v = f.versions()
        kept = ", ".join(m for m in v["modelled"] if m != f.version) or "-"
        have = v["installed"] or ("-" if not f.agent else "not on PATH")
        if v["version_warning"]:
            warnings.append(v["version_warning"])
        files = sorted(f.files, key=lambda c: c.scope not in ("project", "local"))
        what = "" if f.agent else " (forge-tools' own gate)"
        where = "project" if f.in_project else "personal files only" if f.files else "no file (defaults)"
        rows.append((f"{f.label}{what}", kept, have, where, "yes" if f.name == answering else "-",
                     ", ".join(f"{shown(c.path)} ({c.scope})" for c in files) or "-"))
    if rows:
        lines.append(format_table(("RUNTIME", "ALSO MODELLED", "INSTALLED", "CONFIGURED BY", "DEFAULT",
                                   "FILES"), rows))
    return lines + warnings
