"""What bare `forge-tools` does: the layers table for the default agent, then a pointer to `explain`.

It works with no config at all (the embedded default), so the first thing a new user runs answers the
tool's main question: which tools would the model be sent, and why not the others.
"""

from __future__ import annotations

from pathlib import Path


def run_default(agent: str | None = None, fmt: str = "text", config: list[Path] | None = None,
                project: Path | None = None) -> int:
    """The layers table (`layers` with the same --agent, --format, --config and --project)."""
    import typer

    from forge_tools.cli.layers_cmd import show_layers
    from forge_tools.cli.pipeline_opts import options

    opts = options(agent=agent, model=None, flag=None, client="cli", session_permission=None, tools=None,
                   config=config, project=project, pure=False)
    if fmt == "json":
        from forge_tools.cli.common import json_errors

        return json_errors(show_layers)(opts, fmt=fmt)
    code = show_layers(opts, "text", default_banner=agent is None)
    typer.echo("Next: `forge-tools explain TOOL` tells one tool's whole story (try `forge-tools explain edit "
               "--agent plan`); `forge-tools --help` lists every command.")
    return code
