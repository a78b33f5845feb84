"""`bash`: run a command line with `/bin/bash -c`, streaming, with bounded memory (SPEC 5.4).

The command runs in its own process group, so a timeout or an abort ends everything it started
(SIGTERM to the group, SIGKILL a few seconds later). Output (stdout and stderr merged) is read as it
comes: while it fits the shared byte limit it stays in memory; past that, everything so far and
everything after goes to a file in the truncation directory and only a bounded tail is kept, so a
command printing gigabytes costs the same memory as one printing a page. The model gets the tail that
fits the shared limit, a note saying how much was cut, and the path of the exact, complete output.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import select
import signal
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, model_validator

from forge_tools.tools.builtins import requests
from forge_tools.tools.builtins._arg_checks import command_text, drop_description
from forge_tools.tools.builtins._common import (
    posix,
    resolve_path,
)
from forge_tools.tools.builtins.bash_requests import permission_requests
from forge_tools.tools.contract import Tool, ToolContext, ToolResult

if TYPE_CHECKING:
    from forge_tools.tools.outputs import OutputFile
    from forge_tools.tools.sandbox import SandboxedCommand
    from forge_tools.tools.truncation import HintKind, TruncationPolicy

DEFAULT_TIMEOUT_S = 120.0
KILL_GRACE_S = 3.0  # between SIGTERM and SIGKILL
PROGRESS_INTERVAL_S = 0.25
LINGER_S = 0.5  # how long to wait for the pipe to close after the command itself exited
CHUNK = 1024 * 1024
PIPE_BUFFER = 1024 * 1024
SHELL = "/bin/bash"

DESCRIPTION = """Run a bash command line in the project root (or in `workdir`) and return its output.

- `command`: the command line, run with `/bin/bash -c`. Chains (`&&`, `;`), pipes and substitutions
  work; every simple command in it is checked against the permission rules separately.
- `workdir`: directory to run in (default: the project root). Prefer this over `cd dir && ...`.
- `timeout`: in milliseconds (default 120000 = 2 minutes). On timeout the command and everything it
  started are stopped.
- stdout and stderr come back merged. A long output is cut to its last part (the end is where errors
  and summaries usually are); the complete output is saved to a file whose path is given, which you
  can search with grep or read in pages.
- Use the dedicated tools to read, search, list and edit files rather than cat, grep, find or sed."""


class BashArgs(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)

    command: Annotated[str, AfterValidator(command_text),
                       Field(description="The command line to run with bash.")]
    timeout: Annotated[
        int | None, Field(ge=1, description="Timeout in milliseconds (default 120000).")
    ] = None
    workdir: Annotated[
        str | None, Field(description="Directory to run in (default: the project root).")
    ] = None

    # the checks are plain functions, so the shipped validator can name them (tools/schema_cache.py)
    _drop_description = model_validator(mode="before")(classmethod(drop_description))  # type: ignore[arg-type]


@dataclass
class _Capture:
    """Output so far: all of it in memory until it passes the limit, then a file plus a bounded tail."""

    limit: int
    tail_keep: int
    tool_id: str = "bash"
    store: Any = None
    memory: bytearray = field(default_factory=bytearray)
    file: OutputFile | None = None
    file_error: str | None = None
    total: int = 0
    newlines: int = 0

    def add(self, data: bytes | bytearray, size: int | None = None) -> None:
        """Take the first `size` bytes of `data` (all of it by default). `data` may be the reader's
        reused buffer: nothing here keeps a reference to it."""
        size = len(data) if size is None else size
        chunk = memoryview(data)[:size]
        self.total += size
        self.newlines += data.count(b"\n", 0, size)
        if self.file is None and self.file_error is None and len(self.memory) + len(chunk) > self.limit:
            self._spill()
        if self.file is not None:
            self.file.write(chunk)
        self.memory += chunk
        if self.spilled and len(self.memory) > self.tail_keep:
            del self.memory[: len(self.memory) - self.tail_keep]

    @property
    def spilled(self) -> bool:
        return self.file is not None or self.file_error is not None

    def _spill(self) -> None:
        try:
            self.file = self.store.create(self.tool_id)
            self.file.write(bytes(self.memory))
        except OSError as exc:
            self.file = None
            self.file_error = f"the full output could not be saved ({exc.strerror or exc})"

    def close(self) -> None:
        if self.file is not None:
            self.file.close()


def _kill_group(proc: subprocess.Popen[bytes], grace: float) -> None:
    """SIGTERM the process group, SIGKILL it if the leader has not exited after `grace` seconds."""
    try:
        os.killpg(proc.pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=grace)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)


def _kill_group_now(proc: subprocess.Popen[bytes]) -> None:
    """SIGKILL the whole process group at once (it may ignore SIGTERM)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)


def _policy(ctx: ToolContext) -> TruncationPolicy:
    from forge_tools.tools.truncation import TruncationPolicy

    policy = ctx.truncation if ctx.truncation is not None else TruncationPolicy()
    return policy.with_direction("tail")


def _store(ctx: ToolContext) -> Any:
    if ctx.outputs is not None:
        return ctx.outputs
    from forge_tools.tools.outputs import OutputStore

    return OutputStore.from_env()


def execute(args: BashArgs, ctx: ToolContext) -> ToolResult:
    cwd = resolve_path(args.workdir, ctx) if args.workdir else resolve_path(None, ctx)
    title = args.command  # opencode titles a bash call with its command
    if not cwd.is_dir():
        return ToolResult(f"workdir {posix(cwd)} does not exist or is not a directory.", title=title,
                          metadata={"truncated": False}, is_error=True)
    if ctx.timeout is not None:
        timeout = float(ctx.timeout)
    elif args.timeout is not None:
        timeout = args.timeout / 1000.0
    else:
        timeout = DEFAULT_TIMEOUT_S
    policy = _policy(ctx)
    capture = _Capture(limit=policy.max_bytes, tail_keep=2 * policy.max_bytes + 4096, store=_store(ctx))
    command = _sandboxed([SHELL, "-c", args.command], cwd, args, ctx)
    if command.refusal is not None:
        return ToolResult(command.refusal, title=title, is_error=True,
                          metadata={"truncated": False, "error": "sandbox", **command.state})
    started = time.monotonic()
    try:
        proc = subprocess.Popen(
            command.argv, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, start_new_session=True,
        )
    except OSError as exc:
        command.finish()
        return ToolResult(f"could not start {SHELL}: {exc.strerror or exc}", title=title,
                          metadata={"truncated": False}, is_error=True)
    ended_by: str | None = None
    # a forced stop (second Ctrl-C) kills the group from the CLI's thread, without the grace period
    unregister = ctx.abort.on_force(lambda: _kill_group_now(proc))
    try:
        ended_by = _pump(proc, capture, ctx, started + timeout)
    finally:
        if proc.poll() is None:
            _kill_group(proc, KILL_GRACE_S)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=KILL_GRACE_S)
        unregister()
        command.finish()  # the sandbox's processes have ended (its PID namespace dies with bash)
        if proc.stdout is not None:
            proc.stdout.close()
        capture.close()
    if ended_by is None and ctx.abort.forced:
        ended_by = "abort"  # killed by the forced stop before the pump saw the abort
    code = proc.returncode
    if command.state.get("sandbox") == "on" and code is not None and 128 < code < 160:
        code = 128 - code  # bwrap reports a killed command as 128+N, as a shell does: name the signal
    result = _result(args, ctx, capture, policy, code, ended_by, timeout, time.monotonic() - started)
    result.metadata.update(command.state)
    return result


def _sandboxed(argv: list[str], cwd: Path, args: BashArgs, ctx: ToolContext) -> SandboxedCommand:
    """The command inside the sandbox `run` asked for (tools/sandbox.py); as it is when none was."""
    from forge_tools.tools.sandbox import SandboxedCommand, for_call, setting_of

    if setting_of(ctx.extra) == "off":  # asked for ("off" said so), or a context without a run's rules
        return SandboxedCommand(argv, {"sandbox": "off"} if ctx.extra.get("sandbox") == "off" else {})
    return for_call(argv, cwd, ctx.extra, ctx.project_root, permission_requests(args, ctx))


def _grow_pipe(fd: int) -> None:
    """A bigger pipe buffer (Linux) means fewer, larger reads for commands that print a lot."""
    set_size = getattr(fcntl, "F_SETPIPE_SZ", None)
    if set_size is not None:
        with contextlib.suppress(OSError):
            fcntl.fcntl(fd, set_size, PIPE_BUFFER)


def _pump(proc: subprocess.Popen[bytes], capture: _Capture, ctx: ToolContext, deadline: float) -> str | None:
    """Read until EOF; returns "timeout" or "abort" when the run had to be ended, else None."""
    assert proc.stdout is not None
    fd = proc.stdout.fileno()
    _grow_pipe(fd)
    buffer = bytearray(CHUNK)
    last_progress = 0.0
    exited_at: float | None = None
    ended_by: str | None = None
    while True:
        now = time.monotonic()
        if ended_by is None:
            if ctx.abort.aborted:
                ended_by = "abort"
            elif now >= deadline:
                ended_by = "timeout"
            if ended_by is not None:
                _kill_group(proc, KILL_GRACE_S)
                exited_at = time.monotonic()
        if exited_at is None and proc.poll() is not None:
            exited_at = now
        if exited_at is not None and time.monotonic() - exited_at > LINGER_S:
            break  # a background process still holds the pipe; do not wait for it
        wait = 0.05 if ended_by is not None else max(0.0, min(0.1, deadline - now))
        ready, _, _ = select.select([fd], [], [], wait)
        if not ready:
            continue
        size = os.readv(fd, [buffer])  # into one reused buffer: no new 1 MB object per read
        if not size:
            break
        capture.add(buffer, size)
        if now - last_progress >= PROGRESS_INTERVAL_S:
            last_progress = now
            ctx.metadata(metadata={"bytes": capture.total})
    # The pipe is closed, but the command may still be running (it can close its own stdout).
    while ended_by is None and proc.poll() is None:
        if ctx.abort.aborted:
            ended_by = "abort"
        elif time.monotonic() >= deadline:
            ended_by = "timeout"
        else:
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=max(0.0, min(0.1, deadline - time.monotonic())))
            continue
        _kill_group(proc, KILL_GRACE_S)
    return ended_by


def _shell_notes(ended_by: str | None, timeout: float) -> list[str]:
    """opencode 1.18.33's words for a command it had to end (its exit code is never in the text)."""
    if ended_by == "timeout":
        return [f"shell tool terminated command after exceeding timeout {round(timeout * 1000)} ms. If this "
                "command is expected to take longer and is not waiting for interactive input, retry with a "
                "larger timeout value in milliseconds."]
    if ended_by == "abort":
        return ["User aborted the command"]
    return []


def _result(
    args: BashArgs, ctx: ToolContext, capture: _Capture, policy: TruncationPolicy, code: int | None,
    ended_by: str | None, timeout: float, elapsed: float,
) -> ToolResult:
    from forge_tools.tools.truncation import preview_lines, render_truncated

    data = bytes(capture.memory)
    text = data.decode("utf-8", "replace")
    hint: HintKind = "subagent" if ctx.hint == "subagent" else "search"
    metadata: dict[str, Any] = {}
    if not capture.spilled:
        lines = text.split("\n")
        kept, removed, unit = preview_lines(lines, policy, "tail")
        if removed == 0:
            body = text
            metadata["truncated"] = False
        else:
            path, note = _save_whole(ctx, data)
            out = render_truncated("\n".join(kept), removed, unit, "tail", hint, path, note, shell=True)
            body = out.content
            metadata.update(out.metadata())
    else:
        lines = text.split("\n")
        if capture.total > len(data):
            lines = lines[1:]  # the first piece of the kept tail is most likely a partial line
        kept, cut, unit = preview_lines(lines, policy, "tail")
        if capture.total > len(data) and cut == 0 and len(kept) < policy.max_lines:
            # Everything after the dropped piece fits, so the line before it stopped the keeping: that
            # line is longer than the piece, which alone passes the byte limit (tail_keep > max_bytes).
            unit = "bytes"
        kept_bytes = sum(len(line.encode("utf-8")) for line in kept) + max(len(kept) - 1, 0)
        total_lines = capture.newlines + 1
        removed = capture.total - kept_bytes if unit == "bytes" else total_lines - len(kept)
        path = posix(capture.file.path) if capture.file is not None else None
        note = capture.file.fallback_note if capture.file is not None else capture.file_error
        out = render_truncated("\n".join(kept), removed, unit, "tail", hint, path, note, shell=True)
        body = out.content
        metadata.update(out.metadata())
    if not body:
        body = "(no output)"
    notes = _shell_notes(ended_by, timeout)
    if notes:
        body += "\n\n<shell_metadata>\n" + "\n".join(notes) + "\n</shell_metadata>"
    metadata.update({
        "exitCode": code,
        "timedOut": ended_by == "timeout",
        "timeoutSeconds": timeout,
        "aborted": ended_by == "abort",
        "bytes": capture.total,
        "elapsed": round(elapsed, 3),
    })
    failed = ended_by is not None
    return ToolResult(body, title=args.command, metadata=metadata, is_error=failed)


def _save_whole(ctx: ToolContext, data: bytes) -> tuple[str | None, str | None]:
    try:
        with _store(ctx).create("bash") as f:
            f.write(data)
        return posix(Path(f.path)), f.fallback_note
    except OSError as exc:
        return None, f"the full output could not be saved ({exc.strerror or exc})"


TOOL = Tool(
    id="bash",
    description=DESCRIPTION,
    parameters=BashArgs,
    execute=execute,
    permission_requests=requests.bash,
)
