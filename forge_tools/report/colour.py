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


class PlainConsole:
    """What the commands use of a rich console, for a stream that is not a terminal and gets no colour
    (a pipe, a file, a test): text is written as given, and rich is never imported."""

    is_terminal = False

    def __init__(self, file: IO[str]) -> None:
        self.file = file

    def print(self, *objects: Any, sep: str = " ", end: str = "\n", **_options: Any) -> None:
        self.file.write(sep.join(str(o) for o in objects) + end)


def _is_tty(stream: IO[str]) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def make_console(stderr: bool = False) -> Any:
    """A rich console for a terminal or forced colour; a `PlainConsole` otherwise (callers give plain
    text there: `markup=False` and no tables when `is_terminal` is false)."""
    stream = sys.stderr if stderr else sys.stdout
    colour = use_colour(stream)
    if not colour and not _is_tty(stream):
        return PlainConsole(stream)
    from forge_tools.report.terminal import safe_rich_console

    console = safe_rich_console(
        stream,
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
