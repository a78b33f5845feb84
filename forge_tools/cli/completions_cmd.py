"""`forge-tools completions`: shell completion scripts generated from the CLI's own command tree.

Commands, options and choices are static in the scripts; only the values of `--agent` and the tool
argument of `explain`/`run` also ask `forge-tools __complete agents|tools` for the project's own names
(it reads the config and the scripts' syntax trees, never runs project code, and prints nothing on an
error). The copies in `completions/` are regenerated with `forge-tools completions --write completions`
and a test fails when they are stale.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

SHELLS = ("bash", "zsh", "fish")


def register(app: typer.Typer) -> None:
    app.command(
        "completions",
        help="Print a shell completion script (bash, zsh, fish), or write all three with --write DIR.",
    )(completions)


def completions(
    shell: Annotated[str | None, typer.Argument(metavar="SHELL",
                                                help="bash, zsh or fish.", show_default=False)] = None,
    write: Annotated[
        Path | None, typer.Option("--write", metavar="DIR",
                                  help="Write all three scripts into DIR.", show_default=False)
    ] = None,
) -> int:
    from forge_tools.cli.completion_scripts import FILE_NAMES, render
    from forge_tools.errors import UsageError

    if write is not None:
        write.mkdir(parents=True, exist_ok=True)
        for name in SHELLS:
            (write / FILE_NAMES[name]).write_text(render(name), encoding="utf-8")
            typer.echo(f"wrote {write / FILE_NAMES[name]}")
        return 0
    if shell is None:
        raise UsageError("name a shell (bash, zsh or fish), or use --write DIR", where="SHELL")
    if shell not in SHELLS:
        raise UsageError(f"unknown shell {shell!r}; use bash, zsh or fish", where="SHELL")
    typer.echo(render(shell), nl=False)
    return 0
