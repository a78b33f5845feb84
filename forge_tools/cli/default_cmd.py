"""What bare `forge-tools` does: the layers table for the default agent, then a pointer to `explain`.

It works with no config at all (the embedded default), so the first thing a new user runs answers the
tool's main question: which tools would the model be sent, and why not the others.
"""

from __future__ import annotations


def run_default() -> int:
    import typer

    from forge_tools.cli.layers_cmd import show_layers
    from forge_tools.cli.pipeline_opts import PipelineOptions

    code = show_layers(PipelineOptions(), "text", default_banner=True)
    typer.echo("Next: `forge-tools explain TOOL` tells one tool's whole story (try `forge-tools explain edit "
               "--agent plan`); `forge-tools --help` lists every command.")
    return code
