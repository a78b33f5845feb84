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
    from forge_tools.cli.common import LISTED_RUNTIMES, json_errors, load, runtime_files_here, runtime_listing

    def agent_listing(name: str, fmt: str) -> int:
        shown = runtime_listing(name, load(config, project), None, "layers", fmt)
        if shown is None:
            return -1
        typer.echo(shown)
        if fmt != "json":
            typer.echo("Next: `forge-tools explain TOOL --call JSON` gives this agent's answer about one "
                       "call; `forge-tools --help` lists every command.")
        return 0

    for name in LISTED_RUNTIMES:  # a project another agent answers for: that agent's own listing
        if runtime_files_here(name, project) and json_errors(agent_listing)(name, fmt=fmt) == 0:
            return 0
    if fmt == "json":
        return json_errors(show_layers)(opts, fmt=fmt)
    code = show_layers(opts, "text", default_banner=agent is None)
    typer.echo("Next: `forge-tools explain TOOL` tells one tool's whole story (try `forge-tools explain edit "
               "--agent plan`); `forge-tools --help` lists every command.")
    return code
