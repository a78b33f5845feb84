"""`forge-tools agents`: every agent with its mode, description and where it was defined."""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer

from forge_tools.cli.common import ConfigOpt, FormatOpt, ProjectOpt

if TYPE_CHECKING:
    pass


def register(app: typer.Typer) -> None:
    @app.command("agents")
    def agents_command(
        fmt: FormatOpt = "text",
        config: ConfigOpt = None,
        project: ProjectOpt = None,
    ) -> int:
        """List the agents (builtin first, then custom in config order), the default one marked."""
        import json

        from forge_tools.cli.common import check_format, format_table, load
        from forge_tools.permission.agents import default_agent_name, load_agents

        check_format(fmt, ("text", "json"))
        loaded = load(config, project)
        agents = load_agents(loaded)
        default = default_agent_name(loaded, agents)
        if fmt == "json":
            payload = {
                "default_agent": default,
                "agents": [{**a.to_json(), "default": a.name == default} for a in agents.values()],
            }
            typer.echo(json.dumps(payload, indent=2))
            return 0
        rows = []
        for a in agents.values():
            marks = (("default", a.name == default), ("disabled", a.disabled), ("hidden", a.hidden))
            status = ", ".join(s for s, on in marks if on)
            origin = "builtin" if a.builtin else str(a.origin)
            if a.builtin and a.config_origin is not None:
                origin += f", configured at {a.config_origin}"
            rows.append((a.name, a.mode, status or "-", origin, a.description or "-"))
        typer.echo(format_table(("AGENT", "MODE", "STATUS", "ORIGIN", "DESCRIPTION"), rows))
        return 0
