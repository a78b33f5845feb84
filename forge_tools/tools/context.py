"""What a running tool receives and returns (SPEC 1): its `ToolContext` (with the `AbortSignal` that
reaches it, the gate as `ask` and `peek`) and its `ToolResult`.

Kept apart from `contract.py` (the declaration side: `Tool`, `@tool`) because only a call needs them:
listing and explaining tools never imports this module.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from forge_tools.permission.calls import PatternDecision


@dataclass
class Attachment:
    """A file-like attachment a tool may return (e.g. an image read by `read`)."""

    mime: str
    url: str
    filename: str | None = None


@dataclass
class ToolResult:
    """What a tool returns: title, text output, metadata, attachments (SPEC 1)."""

    output: str
    title: str = ""
    metadata: dict[str, Any] = field(default_factory=dict)
    attachments: list[Attachment] = field(default_factory=list)
    is_error: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"title": self.title, "output": self.output, "metadata": self.metadata}


class AbortSignal:
    """Cancellation that reaches a running tool (and its subprocess), thread-safe."""

    def __init__(self) -> None:
        self._event = threading.Event()
        self._callbacks: list[Callable[[], None]] = []
        self._force_callbacks: list[Callable[[], None]] = []
        self._forced = False
        self._lock = threading.Lock()
        self.reason: str | None = None

    @property
    def aborted(self) -> bool:
        return self._event.is_set()

    def abort(self, reason: str = "aborted") -> None:
        with self._lock:
            if self._event.is_set():
                return
            self.reason = reason
            self._event.set()
            callbacks = list(self._callbacks)
        for cb in callbacks:
            cb()

    def add_callback(self, cb: Callable[[], None]) -> None:
        with self._lock:
            if not self._event.is_set():
                self._callbacks.append(cb)
                return
        cb()

    def wait(self, timeout: float | None = None) -> bool:
        return self._event.wait(timeout)

    @property
    def forced(self) -> bool:
        return self._forced

    def force(self, reason: str = "interrupted again") -> None:
        """Stop at once, in the caller's thread: abort, then run every `on_force` callback (a tool
        kills its process group there). For a second Ctrl-C: the CLI exits right after, and a graceful
        stop still under way in the worker thread would die with it."""
        self.abort(reason)
        with self._lock:
            self._forced = True
            callbacks = list(self._force_callbacks)
        for cb in callbacks:
            cb()

    def on_force(self, cb: Callable[[], None]) -> Callable[[], None]:
        """Run `cb` on `force()` (at once if it already happened); returns a function that unregisters
        it, to call once what it would stop is gone."""
        with self._lock:
            if not self._forced:
                self._force_callbacks.append(cb)
                return lambda: self._drop_force_callback(cb)
        cb()
        return lambda: None

    def _drop_force_callback(self, cb: Callable[[], None]) -> None:
        with self._lock, contextlib.suppress(ValueError):
            self._force_callbacks.remove(cb)


class PeekFn(Protocol):
    """What the gate would answer for one permission request, asking no one (for a tool that must leave
    out what a rule denies, e.g. grep results the read rules deny)."""

    def __call__(
        self, permission: str, patterns: Sequence[str], metadata: dict[str, Any] | None = None,
    ) -> list[PatternDecision]: ...


class AskFn(Protocol):
    """The permission gate as a tool sees it; raises PermissionDenied / PermissionRejected."""

    def __call__(
        self,
        permission: str,
        patterns: list[str],
        always: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> None: ...


def _allow_everything(
    permission: str, patterns: list[str], always: list[str] | None = None,
    metadata: dict[str, Any] | None = None,
) -> None:
    return None


@dataclass
class ToolContext:
    """What `execute` receives besides its arguments (SPEC 1)."""

    session_id: str = "ses_local"
    message_id: str = "msg_local"
    agent: str = "build"
    call_id: str | None = None
    project_root: Path = field(default_factory=Path.cwd)
    abort: AbortSignal = field(default_factory=AbortSignal)
    ask: AskFn = _allow_everything
    peek: PeekFn | None = None  # the gate's answer without asking; None (no gate): nothing is filtered
    on_metadata: Callable[[str | None, dict[str, Any] | None], None] | None = None
    timeout: float | None = None  # seconds; a per-run override (e.g. `run --timeout`)
    truncation: Any = None  # tools.truncation.TruncationPolicy; None means the defaults
    outputs: Any = None  # tools.outputs.OutputStore; None means the store from the environment
    hint: str = "search"  # follow-up hint kind for truncated output: "subagent" or "search" (SPEC 5.3)
    extra: dict[str, Any] = field(default_factory=dict)  # loaded config, skills dirs, ...

    def metadata(self, title: str | None = None, metadata: dict[str, Any] | None = None) -> None:
        """Write back the running tool part's title/metadata (a CLI shows it as progress)."""
        if self.on_metadata is not None:
            self.on_metadata(title, metadata)
