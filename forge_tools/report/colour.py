"""The colour policy, in one place: NO_COLOR wins, then FORCE_COLOR, then whether the stream is a TTY."""

from __future__ import annotations

import os
import sys
from typing import IO, Any


def use_colour(stream: IO[str] | None = None) -> bool:
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    stream = stream if stream is not None else sys.stdout
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def make_console(stderr: bool = False) -> Any:
    from rich.console import Console

    stream = sys.stderr if stderr else sys.stdout
    colour = use_colour(stream)
    console = Console(
        file=stream,
        no_color=not colour,
        force_terminal=colour,
        color_system="auto" if colour else None,
        highlight=False,
        soft_wrap=not stream.isatty() if hasattr(stream, "isatty") else True,
    )
    return pipe_safe(console)


def pipe_safe(console: Any) -> Any:
    """A rich console that raises BrokenPipeError on a closed pipe; rich itself would exit 1, and the
    CLI treats a reader that stopped reading (`| head -1`) as done, not as an error (cli/app.py)."""
    console.on_broken_pipe = _closed_pipe
    return console


def _closed_pipe() -> None:
    raise BrokenPipeError("stdout was closed by the reader")
