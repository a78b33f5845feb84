"""`forge-tools config`: the merged config, optionally with the origin of every value."""

from __future__ import annotations

from typing import Annotated

import click
import typer

from forge_tools.cli.common import ConfigOpt, ProjectOpt


def register(app: typer.Typer) -> None:
    @app.command("config")
    def config_command(
        show_origin: Annotated[
            bool, typer.Option("--show-origin", help="Show where each value was written (file:line:col).")
        ] = False,
        fmt: Annotated[
            str, typer.Option("--format", "-f", click_type=click.Choice(("text", "json", "yaml", "toml")),
                              help="Output format: text, json, yaml or toml.")
        ] = "text",
        config: ConfigOpt = None,
        project: ProjectOpt = None,
    ) -> int:
        """Print the merged config: every config file and variable in load order, then --config overlays."""
        import sys

        from forge_tools.cli.common import check_format, load
        from forge_tools.config.render import FORMATS, render

        check_format(fmt, FORMATS)
        loaded = load(config, project)
        sys.stdout.write(render(loaded, fmt, show_origin))
        return 0
