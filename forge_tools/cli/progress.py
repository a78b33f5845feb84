"""A transient status line on stderr while a command waits (MCP servers starting, a long `check`).

Shown only when stderr is a terminal and the output is not `--format json`, and only once the wait has
lasted `delay` seconds, so quick commands never flash it; rich (imported only then) draws and erases it.
The core reports progress through a plain `Callable[[str], None]` (`TerminalStatus.update`) and never
knows whether anybody is watching.
"""

from __future__ import annotations

import os
import sys
import threading
from types import TracebackType
from typing import Any

DELAY_S = 0.5


def wants_progress(fmt: str = "text", stream: Any = None) -> bool:
    """A person is watching: stderr is a terminal (not dumb), and the output is not JSON."""
    stream = sys.stderr if stream is None else stream
    if fmt == "json" or os.environ.get("TERM") == "dumb":
        return False
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):
        return False


class TerminalStatus:
    """`with TerminalStatus(text, enabled) as status: ... status.update("now this")`; a no-op when not
    enabled. Safe to update from any thread."""

    def __init__(self, text: str, enabled: bool, delay: float = DELAY_S) -> None:
        self.text = text
        self.enabled = enabled
        self.delay = delay
        self._lock = threading.Lock()
        self._status: Any = None
        self._timer: threading.Timer | None = None
        self._done = False

    def __enter__(self) -> TerminalStatus:
        if self.enabled:
            self._timer = threading.Timer(self.delay, self._show)
            self._timer.daemon = True
            self._timer.start()
        return self

    def _show(self) -> None:
        from rich.console import Console

        from forge_tools.report.colour import use_colour

        with self._lock:
            if self._done or self._status is not None:
                return
            # a terminal (checked by `wants_progress`) even under NO_COLOR, which only drops the colour
            colour = use_colour(sys.stderr)
            console = Console(file=sys.stderr, force_terminal=True, no_color=not colour,
                              color_system="auto" if colour else None, highlight=False)
            self._status = console.status(self.text)
            self._status.start()

    def update(self, text: str) -> None:
        with self._lock:
            self.text = text
            if self._status is not None:
                self._status.update(text)

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        with self._lock:
            self._done = True
            if self._timer is not None:
                self._timer.cancel()
            if self._status is not None:
                self._status.stop()
                self._status = None
