"""The `forge-tools hook --runtime NAME` process: read the agent's payload, decide with the gate, answer
in the agent's form, log the decision; and one outer guard, so it cannot fail open.

Every agent runs the call when its hook crashes, times out or prints what it cannot read
(agent-hooks.md), so every way this process can end prints a deny that agent honours: an exception
anywhere, a payload that is not JSON or is cut short, a known tool whose input cannot be read, a
decision that passes the internal deadline (`--deadline`, default 10 s, well inside the 30 s the
installed entries give), or an audit log that cannot be written. Only when even that cannot be
printed does it exit 2 with the reason on stderr, which Claude Code, Codex CLI and Gemini CLI all
take as a deny. Neither a traceback nor any environment value is ever printed or logged.

`FORGE_TOOLS_HOOK_TEST_FAULT` is reserved for tests: `raise` makes the decision fail, `sleep` makes
it overrun the deadline.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import time
from importlib import import_module
from pathlib import Path
from typing import Any

from forge_tools.named_tuple import NamedTuple

# the C module behind `signal` (the same functions and numbers), without the enum classes `signal`
# builds at import (about 3 M of one decision's ~229 M instructions, callgrind)
_signal: Any = __import__("_signal")

PROTOCOLS = {"claude": "forge_tools.hook.claude", "codex": "forge_tools.hook.codex",
             "gemini": "forge_tools.hook.gemini", "opencode": "forge_tools.hook.opencode"}
DEFAULT_DEADLINE = 10.0
MAX_PAYLOAD = 16 * 1024 * 1024
FAULT_VARIABLE = "FORGE_TOOLS_HOOK_TEST_FAULT"
USAGE = "usage: forge-tools hook --runtime claude|codex|gemini|opencode [--deadline SECONDS] [--sandbox]"


class Deadline(Exception):
    """The internal deadline passed."""


class Options(NamedTuple):
    runtime: str
    deadline: float = DEFAULT_DEADLINE
    sandbox: bool = False  # an allowed shell call is rewritten to run inside `run`'s sandbox


def parse(argv: list[str]) -> Options:
    runtime: str | None = None
    deadline = DEFAULT_DEADLINE
    sandbox = False
    items = list(argv)
    while items:
        item = items.pop(0)
        name, eq, value = item.partition("=")
        if item == "--sandbox":
            sandbox = True
        elif name in ("--runtime", "--deadline"):
            if not eq:
                if not items:
                    raise ValueError(f"{name} needs a value")
                value = items.pop(0)
            if name == "--runtime":
                runtime = value
            else:
                deadline = float(value)
                if not 0 < deadline <= 600:
                    raise ValueError("--deadline is seconds, more than 0 and at most 600")
        else:
            raise ValueError(f"unknown argument {item!r}")
    if runtime not in PROTOCOLS:
        raise ValueError(f"--runtime must be one of {', '.join(PROTOCOLS)}"
                         + (f" (got {runtime!r})" if runtime is not None else ""))
    return Options(runtime, deadline, sandbox)


def main(argv: list[str]) -> int:
    """The hook process; returns its exit code (see the module)."""
    try:
        options = parse(argv)
    except ValueError as exc:
        sys.stderr.write(f"forge-tools hook: refused: {exc}\n{USAGE}\n")
        return 2  # a deny (with its reason on stderr) on Claude Code, Codex CLI and Gemini CLI
    try:
        protocol = import_module(PROTOCOLS[options.runtime])
        answer = guarded(protocol, options.runtime, options.deadline, sys.stdin.buffer, options.sandbox)
        sys.stdout.write(answer.stdout)
        sys.stdout.flush()
        if answer.stderr:
            sys.stderr.write(answer.stderr)
        return answer.code
    except BaseException as exc:  # nothing could be printed: the deny every command-hook agent honours
        with contextlib.suppress(BaseException):  # stderr gone too: exit 2 alone still denies on Claude
            sys.stderr.write(f"forge-tools hook: refused: could not answer ({type(exc).__name__})\n")
        return 2


def _on_alarm(signum: int, frame: Any) -> None:
    raise Deadline()


def guarded(protocol: Any, runtime: str, deadline: float, stream: Any, sandbox: bool = False) -> Any:
    """The verdict in the agent's form, or its deny on every failure (see the module)."""
    started = time.monotonic()
    old = _signal.signal(_signal.SIGALRM, _on_alarm)
    _signal.setitimer(_signal.ITIMER_REAL, deadline)
    record: dict[str, Any] = {"runtime": runtime}
    try:
        try:
            answer = _decide(protocol, runtime, stream, record, sandbox)
        finally:
            _signal.setitimer(_signal.ITIMER_REAL, 0)
    except BaseException as exc:
        _signal.setitimer(_signal.ITIMER_REAL, 0)
        why = _failure(exc, deadline)
        record.update(action="deny", reason=why, error=type(exc).__name__)
        answer = protocol.deny(f"forge-tools hook refused the call: {why}")
        _log_quietly(record, started)
        return answer
    finally:
        _signal.signal(_signal.SIGALRM, old)
    try:
        _log(record, started)
    except BaseException as exc:  # every decision is logged, or the call is refused
        return protocol.deny(f"forge-tools hook refused the call: its audit log cannot be written "
                             f"({type(exc).__name__})")
    return answer


def _failure(exc: BaseException, deadline: float) -> str:
    from forge_tools.hook.protocol import Unreadable
    from forge_tools.runtimes.hook_gate import Unreadable as BadInput

    if isinstance(exc, Deadline):
        return f"no decision within its {deadline:g} s deadline"
    if isinstance(exc, (Unreadable, BadInput)):
        return f"unreadable call: {exc}"
    if isinstance(exc, KeyboardInterrupt):
        return "interrupted"
    return f"internal error ({type(exc).__name__})"


def _decide(protocol: Any, runtime: str, stream: Any, record: dict[str, Any], sandbox: bool = False) -> Any:
    from forge_tools.hook.protocol import Unreadable

    data = stream.read(MAX_PAYLOAD + 1)
    if len(data) > MAX_PAYLOAD:
        raise Unreadable(f"the payload is larger than {MAX_PAYLOAD} bytes")
    try:
        payload = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise Unreadable(f"the payload is not JSON ({type(exc).__name__}: "
                         f"{getattr(exc, 'msg', 'not UTF-8')})") from None
    call = protocol.read(payload)
    if call is None:
        record.update(action="none", reason="not a pre-tool call")
        return protocol.answer(None, "")
    record.update(tool=call.tool, cwd=str(call.cwd), subject=_subject(call.input))
    fault = os.environ.get(FAULT_VARIABLE)
    if fault == "raise":
        raise RuntimeError("forced by " + FAULT_VARIABLE)
    if fault == "sleep":
        time.sleep(3600)
    if runtime == "opencode":  # the one agent whose files go through the config schema's validator
        _remember_clean()
    from forge_tools.runtimes.hook_gate import decide

    verdict = decide(runtime, call.tool, call.input, Path(call.cwd))
    record.update(verdict.to_json())
    if verdict.action == "ask" and not protocol.ASKS:
        reason = (f"forge-tools: {verdict.reason}; {protocol.LABEL} cannot ask from a hook, so it is "
                  f"refused. To allow exactly this call, allow it in that rule's file"
                  + (f" ({verdict.rule.origin})" if verdict.rule is not None else "") + " or run it yourself")
        return protocol.answer("deny", reason)
    if sandbox and verdict.action in (None, "ask") and verdict.tool == "bash":
        # an ask (Claude Code) asks about the sandboxed line: approved, it runs inside the sandbox too
        return _sandboxed(protocol, runtime, call, record,
                          f"forge-tools: {verdict.reason}" if verdict.action == "ask" else None)
    return protocol.answer(verdict.action, f"forge-tools: {verdict.reason}")


def _remember_clean() -> None:
    """The config trees the validator found clean are remembered between hook processes (beside the
    audit log), so an unchanged config is not validated again with pydantic_core before every call
    (`config/validation.py`)."""
    from forge_tools.config.validation import remember_clean

    remember_clean(audit_path().with_name("hook-validated.json"))


def _sandboxed(protocol: Any, runtime: str, call: Any, record: dict[str, Any], ask: str | None = None) -> Any:
    """`--sandbox`: the allowed (or, where the agent asks, asked) shell call rewritten to run inside
    `run`'s sandbox, in the agent's rewrite field; refused when the sandbox cannot be built here (asked
    for, it is never dropped silently)."""
    from forge_tools.runtimes.hook_gate import NoSandbox, agent_allows, sandboxed

    cwd = Path(call.cwd)
    try:
        command = sandboxed(runtime, call.tool, call.input, cwd)
    except NoSandbox as exc:
        reason = f"forge-tools hook --sandbox refused the call: the sandbox cannot start here ({exc})"
        record.update(action="deny", reason=reason)
        return protocol.deny(reason)
    allows = ask is None and agent_allows(runtime, call.tool, call.input, cwd)
    answer = protocol.rewrite(call.input, command, allows, ask)
    if answer is None:  # Codex takes a rewrite only with an allow, and would not allow this itself
        record.update(sandbox="not rewritten", note=f"{protocol.LABEL} would not run it without asking, "
                      "and takes a rewrite only with an allow: its own approval decides the original")
        return protocol.answer(None, "")
    record.update(sandbox="rewritten", agent_allows=allows)
    return answer


def _subject(args: Any) -> str | None:
    """What the call is about, for the log: its command or path (never the environment)."""
    if not isinstance(args, dict):
        return None
    for key in ("command", "cmd", "file_path", "filePath", "notebook_path", "path", "url", "prompt",
                "pattern"):
        if isinstance(args.get(key), str):
            return str(args[key])[:2000]
    return None


def audit_path() -> Path:
    """Where every hook decision is logged: `hook-audit.jsonl` in forge-tools' data directory
    (`FORGE_DATA_DIR`, else `$XDG_DATA_HOME/forge`, else `~/.local/share/forge`), owner-only."""
    from forge_tools.paths import data_dir

    return data_dir() / "hook-audit.jsonl"


def _log(record: dict[str, Any], started: float) -> None:
    from forge_tools.permission.audit import AuditLog, now_iso

    path = audit_path()
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    record = {"time": now_iso(), "elapsed_ms": round((time.monotonic() - started) * 1000, 1), **record}
    AuditLog(path)(record)


def _log_quietly(record: dict[str, Any], started: float) -> None:
    with contextlib.suppress(BaseException):  # the deny stands whether or not it could be logged
        _log(record, started)
