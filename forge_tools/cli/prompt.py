"""The approve callbacks `run` gives the ask gate, and its live status line.

The core never prompts (STYLE point 3): on a terminal the person answers; without one the run follows
an explicit policy (`--yes`, `--approve`, else reject) and never waits. Both write to stderr only, so a
tool's output on stdout stays clean for pipes.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import IO, Any

from forge_tools.errors import UsageError
from forge_tools.named_tuple import NamedTuple
from forge_tools.permission.gate import Answer, Question


def is_interactive(stdin: IO[str] | None = None, stderr: IO[str] | None = None) -> bool:
    """A person can answer only when both stdin and stderr are terminals."""
    for stream in (stdin or sys.stdin, stderr or sys.stderr):
        try:
            if not stream.isatty():
                return False
        except (AttributeError, ValueError):
            return False
    return True


def _isatty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):
        return False


def open_dev_tty() -> IO[str] | None:
    """The controlling terminal for reading answers, or None when there is none."""
    try:
        return open("/dev/tty", encoding="utf-8", errors="replace")  # the caller closes it
    except OSError:
        return None


def answer_stream(
    args_from_stdin: bool,
    stdin: IO[str] | None = None,
    stderr: IO[str] | None = None,
    open_tty: Callable[[], IO[str] | None] = open_dev_tty,
) -> IO[str] | None:
    """Where a person's answers are read from, or None when nobody can be asked.

    The question is written on stderr, so stderr must be a terminal. Answers come from stdin when it is
    a terminal not used for `--args -`; otherwise (stdin piped, or it carried the arguments) from
    /dev/tty when it can be opened, so `... | forge-tools run bash --args -` still asks. The caller
    closes a stream that is not `stdin`.
    """
    stdin = stdin if stdin is not None else sys.stdin
    if not _isatty(stderr if stderr is not None else sys.stderr):
        return None
    if not args_from_stdin and _isatty(stdin):
        return stdin
    return open_tty()


def describe_rule(rule: Any) -> str:
    """`rule bash '*' ask at forge.json:3:5`, or the default when no rule matched."""
    if rule is None:
        return "no rule matched (the default is ask)"
    return f"rule {rule.permission} {rule.pattern!r} {rule.action} at {rule.origin}"


def _asking_rules(question: Question) -> list[str]:
    seen: list[str] = []
    for rule in question.rules or (None,):
        text = describe_rule(rule)
        if text not in seen:
            seen.append(text)
    return seen


def _shell_quote(text: str) -> str:
    import shlex

    return shlex.quote(text)


# -- non-interactive ---------------------------------------------------------------------------------


class ApproveSpec(NamedTuple):
    """One `--approve PERMISSION[=PATTERN]`; both sides may hold wildcards; no pattern means any."""

    permission: str
    pattern: str | None = None

    @classmethod
    def parse(cls, text: str) -> ApproveSpec:
        permission, sep, pattern = text.partition("=")
        permission = permission.strip()
        if not permission:
            raise UsageError(
                f"{text!r} names no permission; use PERMISSION or PERMISSION=PATTERN, e.g. bash='git *'",
                where="--approve",
            )
        return cls(permission, pattern if sep else None)

    def covers(self, permission: str, pattern: str) -> bool:
        from forge_tools.permission.wildcard import wildcard_match

        if not wildcard_match(permission, self.permission):
            return False
        return self.pattern is None or wildcard_match(pattern, self.pattern)


@dataclass(frozen=True)
class PolicyRejection(Answer):
    """A reject given by the non-interactive policy (not a person); its feedback explains the fix."""

    by_policy: bool = True


class PolicyApprover:
    """Answers without waiting: `--yes` approves all, `--approve` what it covers, the rest is rejected.

    A rejection's feedback says which rule asked and which option would approve the call.
    """

    def __init__(self, yes: bool = False, approvals: Sequence[str] = ()) -> None:
        self.yes = yes
        self.specs = [ApproveSpec.parse(a) for a in approvals]

    @property
    def policy(self) -> str:
        if self.yes:
            return "--yes"
        if self.specs:
            return "--approve"
        return "reject"

    def covers(self, permission: str, pattern: str) -> bool:
        """Whether this policy approves one pattern (the runner asks covered patterns apart)."""
        return self.yes or any(spec.covers(permission, pattern) for spec in self.specs)

    def __call__(self, question: Question) -> Answer:
        if all(self.covers(question.permission, p) for p in question.patterns):
            return Answer("once")
        return PolicyRejection("reject", self.rejection(question))

    def rejection(self, question: Question) -> str:
        uncovered = [
            p for p in question.patterns if not self.covers(question.permission, p)
        ] or list(question.patterns)
        how = " ".join(
            f"--approve {question.permission}" if p == "*" else
            f"--approve {_shell_quote(question.permission + '=' + p)}"
            for p in uncovered
        )
        why = "no terminal to ask on" if not self.specs else "no --approve covers it"
        return (
            f"not approved ({why}; {'; '.join(_asking_rules(question))}): "
            f"approve it with {how} (or --yes for every ask)"
        )


# -- interactive -------------------------------------------------------------------------------------


class TerminalPrompt:
    """Asks a person on stderr/stdin: allow once, allow always (for this run), or reject with feedback."""

    policy = "interactive"

    def __init__(self, stdin: IO[str] | None = None, stderr: IO[str] | None = None,
                 status: LiveStatus | None = None) -> None:
        self.stdin = stdin or sys.stdin
        self.stderr = stderr or sys.stderr
        self.status = status

    def _write(self, text: str) -> None:
        self.stderr.write(text)
        self.stderr.flush()

    def _read(self, prompt: str) -> str | None:
        self._write(prompt)
        line = self.stdin.readline()
        return None if line == "" else line.strip()

    def __call__(self, question: Question) -> Answer:
        if self.status is not None:
            self.status.pause()
        try:
            return self._ask(question)
        finally:
            if self.status is not None:
                self.status.resume()

    def _ask(self, question: Question) -> Answer:
        tool = question.metadata.get("tool") or question.permission
        self._write(f"\n{tool} asks for permission {question.permission}:\n")
        for pattern in question.patterns:
            self._write(f"  {pattern}\n")
        for text in _asking_rules(question):
            self._write(f"  ({text})\n")
        always = ", ".join(question.always or question.patterns)
        while True:
            reply = self._read(f"Allow? [o]nce, [a]lways for this run ({always}), [r]eject: ")
            if reply is None:
                self._write("\n")
                return Answer("reject", "no answer (end of input)")
            choice = reply.lower()
            if choice in ("o", "once", "y", "yes"):
                return Answer("once")
            if choice in ("a", "always"):
                return Answer("always")
            if choice in ("r", "reject", "n", "no"):
                feedback = self._read("Feedback for the model (optional, Enter to skip): ")
                return Answer("reject", feedback or None)
            self._write("Please answer o, a or r.\n")


# -- live status -------------------------------------------------------------------------------------


def _human_bytes(n: int) -> str:
    size = float(n)
    for unit in ("B", "KB", "MB", "GB"):
        if size < 1000 or unit == "GB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1000
    return f"{n} B"  # pragma: no cover


_BYTE_KEYS = ("bytes", "bytesSoFar", "bytes_so_far", "bytesRead", "totalBytes", "size")


def progress_bytes(metadata: dict[str, Any] | None) -> int | None:
    """Bytes produced so far, from whatever progress key a tool reports (or its output's length)."""
    if not metadata:
        return None
    for key in _BYTE_KEYS:
        value = metadata.get(key)
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    output = metadata.get("output")
    if isinstance(output, str):
        return len(output.encode("utf-8", "replace"))
    return None


class LiveStatus:
    """A carriage-return status line on stderr (elapsed, bytes so far), shown after `delay` seconds.

    Tools report progress from their worker thread through `update`; the owner's thread calls `tick`.
    """

    def __init__(self, stream: IO[str], tool_id: str, delay: float = 1.0, enabled: bool = True) -> None:
        from forge_tools.report.terminal import raw_stream

        self.stream = raw_stream(stream)  # its own carriage returns; the line itself is escaped
        self.tool_id = tool_id
        self.delay = delay
        self.enabled = enabled
        self.started = time.monotonic()
        self._lock = threading.Lock()
        self._bytes: int | None = None
        self._title: str | None = None
        self._shown = False
        self._paused = 0
        self._width = 0

    def update(self, title: str | None = None, metadata: dict[str, Any] | None = None) -> None:
        found = progress_bytes(metadata)
        with self._lock:
            if title:
                self._title = title
            if found is not None:
                self._bytes = found

    def line(self) -> str:
        with self._lock:
            title, size = self._title, self._bytes
        elapsed = time.monotonic() - self.started
        parts = [f"{self.tool_id}" + (f" ({title})" if title else ""), f"{elapsed:.1f}s"]
        if size is not None:
            parts.append(f"{_human_bytes(size)} so far")
        from forge_tools.report.terminal import escape_controls

        text = escape_controls(" · ".join(parts) + "  (Ctrl-C to stop)")
        return text[:200]

    def tick(self) -> None:
        if not self.enabled or self._paused or time.monotonic() - self.started < self.delay:
            return
        import shutil

        text = self.line()[: max(shutil.get_terminal_size((80, 24)).columns - 1, 20)]
        pad = max(self._width - len(text), 0)
        self.stream.write("\r" + text + " " * pad)
        self.stream.flush()
        self._width = len(text)
        self._shown = True

    def clear(self) -> None:
        if self._shown:
            self.stream.write("\r" + " " * self._width + "\r")
            self.stream.flush()
            self._shown = False
            self._width = 0

    def pause(self) -> None:
        self._paused += 1
        self.clear()

    def resume(self) -> None:
        self._paused = max(self._paused - 1, 0)
