"""`forge-tools agents`: every agent with its mode, description and where it was defined."""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer

from forge_tools.cli.common import ConfigOpt, FormatOpt, ProjectOpt, json_errors

if TYPE_CHECKING:
    pass


def register(app: typer.Typer) -> None:
    @app.command("agents")
    @json_errors
    def agents_command(
        fmt: FormatOpt = "text",
        config: ConfigOpt = None,
        project: ProjectOpt = None,
    ) -> int:
        """List the agents in opencode's order (builtin first, then custom, each by name), the default
        one marked; then the agent runtimes whose files the repository holds (opencode, forge-tools,
        Claude Code) and which answers by default."""
        import json

        from forge_tools.cli.common import check_format, format_table, load
        from forge_tools.errors import ConfigError
        from forge_tools.permission.agents import default_agent_name, listing_order, load_agents

        check_format(fmt, ("text", "json"))
        loaded = load(config, project)
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
        from forge_tools.runtimes import found_runtimes

        runtimes = found_runtimes(loaded)
        if fmt == "json":
            payload: dict[str, object] = {
                "default_agent": default,
                "agents": [{**a.to_json(), "default": a.name == default} for a in ordered],
                "runtimes": runtimes,
            }
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
        typer.echo("")
        typer.echo("agent runtimes in this repository (whose files answer `explain --call` and `check`):")
        typer.echo(format_table(("RUNTIME", "VERSION", "DEFAULT", "FILES"), [
            (r["name"], r["version"], "yes" if r["default"] else "-",
             ", ".join(r["files"]) or "-") for r in runtimes]))
        return 0
