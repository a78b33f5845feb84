"""The core of `forge-tools run`: one tool call through the real path, importable without the CLI.

A run resolves the pipeline for the agent, refuses tools that layer three hides (unless forced), then
hands the call to the wrapper (validate -> hooks -> ask gate -> execute -> truncate) with a context
built from config. The core never prompts: the caller injects the `approve` callback. `BackgroundRun`
runs a call in a worker thread and relays approval questions to the caller's thread, so the CLI can
keep its live status, its prompt and Ctrl-C in the main thread.
"""

from __future__ import annotations

import json
import os
import queue
import sys
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from forge_tools.errors import (
    ExitCode,
    ForgeToolsError,
    PermissionDenied,
    PermissionRejected,
    UnknownNameError,
    UsageError,
)
from forge_tools.origin import Origin
from forge_tools.permission.model import Rule
from forge_tools.tools.contract import AbortSignal, Tool, ToolContext, ToolResult

if TYPE_CHECKING:
    from forge_tools.visibility.pipeline import PipelineResult, Request, ToolVerdict

ApproveFn = Callable[[Any], Any]
"""The gate's approve callback: given a question, returns the answer (see permission/gate.py)."""

MetadataFn = Callable[[str | None, dict[str, Any] | None], None]


class ToolHidden(PermissionDenied):
    """The tool is not in this agent's table: layer three (or a request boolean) hides it."""


class QuestionInterrupted(PermissionRejected):
    """Ctrl-C at a permission question: nothing was approved, so the call stopped there (exit 130)."""

    exit_code = ExitCode.INTERRUPTED

    def __init__(self) -> None:
        super().__init__(INTERRUPTED_QUESTION)


INTERRUPTED_QUESTION = (
    "the permission question was interrupted (Ctrl-C); nothing was approved, so nothing ran"
)


# -- input ------------------------------------------------------------------------------------------


def parse_args_option(value: str | None, stdin: IO[str] | None = None) -> dict[str, Any]:
    """`--args JSON`, `--args @file.json` or `--args -` (stdin) into a dict; `{}` when absent."""
    if value is None:
        return {}
    source = "--args"
    if value == "-":
        stream = stdin if stdin is not None else sys.stdin
        text = stream.read()
        source = "--args - (stdin)"
    elif value.startswith("@"):
        if not value[1:].strip():
            raise UsageError("--args @FILE needs a file name, e.g. --args @call.json")
        path = Path(value[1:]).expanduser()
        source = f"--args @{path}"
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise UsageError(f"file {str(path)!r} does not exist", where="--args") from None
        except IsADirectoryError:
            raise UsageError(f"{str(path)!r} is a directory; --args @FILE needs a JSON file",
                             where="--args") from None
        except (OSError, UnicodeDecodeError) as exc:
            reason = getattr(exc, "strerror", None) or str(exc)
            raise UsageError(f"cannot read {str(path)!r}: {reason}", where="--args") from None
    else:
        text = value
    if not text.strip():
        return {}
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UsageError(
            f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}; "
            "give a JSON object such as '{\"command\": \"ls\"}'",
            where=source,
        ) from None
    if not isinstance(data, dict):
        raise UsageError(
            f"expected a JSON object of arguments, got {type(data).__name__}", where=source
        )
    return data


def unknown_permission_warnings(permissions: Iterable[str], result: PipelineResult) -> list[str]:
    """A warning for each `--approve` permission that matches no permission name a call could ask
    (`bsah`): builtin ids, the permission-only names (edit, external_directory, doom_loop, ...), and
    the loaded tools' ids and permissions. Only a warning: a project tool may ask for any name."""
    from forge_tools.permission.names import known_permission_names
    from forge_tools.permission.wildcard import wildcard_match

    known = known_permission_names()
    for tool in getattr(result, "tools", ()) or ():
        known.add(str(tool.id))
        if getattr(tool, "permission", None):
            known.add(str(tool.permission))
    warnings: list[str] = []
    for name in dict.fromkeys(permissions):
        if any(wildcard_match(k, name) for k in known):
            continue
        hint = _suggest(name, sorted(known))
        maybe = f" (did you mean {', '.join(repr(h) for h in hint)}?)" if hint else ""
        warnings.append(f"--approve {name!r} matches no permission a call could ask{maybe}")
    return warnings


# -- choosing the tool ------------------------------------------------------------------------------


def _suggest(name: str, names: list[str]) -> list[str]:
    from difflib import get_close_matches

    return get_close_matches(name, names, n=3, cutoff=0.5)


def _origin_text(rule: Any) -> str:
    origin = getattr(rule, "origin", None)
    return str(origin) if origin is not None else "unknown origin"


LAYER_THREE = ("permission", "request")
"""The layers whose drop `run` refuses: the agent's rules and the request booleans. A tool dropped only
by layer one (model, provider, flags) still runs, with a note: that layer decides what the model is
offered, not what a person may run by hand."""


def select_tool(result: PipelineResult, tool_id: str, force_hidden: bool = False) -> Tool:
    """The tool to run, or a one-line refusal: unknown (did-you-mean), internal, hidden, not loaded."""
    from forge_tools.visibility.model_layer import REGISTRATION_GATES

    verdict: ToolVerdict | None = result.get(tool_id)
    if verdict is None and tool_id in REGISTRATION_GATES:
        # a real builtin that needs a flag to be registered at all: say which, not "did you mean"
        gate = REGISTRATION_GATES[tool_id]
        raise ForgeToolsError(f"tool {tool_id!r} is not a candidate for this turn: {gate}")
    if verdict is None:
        raise UnknownNameError("tool", tool_id, _suggest(tool_id, [t.id for t in result.tools]))
    tool = verdict.tool
    if tool is not None and tool.internal:
        raise ForgeToolsError(
            f"tool {tool_id!r} is where a malformed model call is routed; it is not for direct use"
        )
    if verdict.hidden_at in LAYER_THREE and not force_hidden:
        raise ToolHidden(_hidden_message(result, verdict))
    if tool is None:
        raise ForgeToolsError(f"tool {tool_id!r} was found but its code was not loaded")
    return tool


def selection_notes(result: PipelineResult, tool_id: str, force_hidden: bool = False) -> list[str]:
    """What a person should know about running this tool by hand (a model-layer drop, a forced run)."""
    verdict = result.get(tool_id)
    if verdict is None:
        return []
    notes: list[str] = []
    model_verdict = next((lv for lv in verdict.layers if lv.layer == "model"), None)
    if model_verdict is not None and not model_verdict.kept:
        notes.append(f"the model layer would not offer {tool_id!r} to the model: {model_verdict.reason}")
    if force_hidden and verdict.hidden_at in LAYER_THREE:
        notes.append(
            f"running {tool_id!r} although it is hidden ({verdict.reason}); --force-hidden turns its "
            "deny into an ask for this run"
        )
    return notes


def _hidden_message(result: PipelineResult, verdict: ToolVerdict) -> str:
    agent = result.agent.name
    layer = verdict.hidden_at or "a layer"
    rule = next(
        (lv.rule for lv in verdict.layers if lv.layer in LAYER_THREE and not lv.kept and lv.rule is not None),
        None,
    )
    reason = verdict.reason or "hidden"
    where = ""
    if isinstance(rule, Rule) and _origin_text(rule) not in reason:
        where = f"; rule {rule.permission} {rule.pattern!r} {rule.action} at {_origin_text(rule)}"
    return (
        f"tool {verdict.id!r} is hidden from agent {agent!r} by the {layer} layer: {reason}{where} "
        "(use --force-hidden to run it anyway)"
    )


# -- the audit trail --------------------------------------------------------------------------------


class AuditLog:
    """Appends one JSON line per permission decision to a private file (created 0600)."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        try:
            fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        except OSError as exc:
            raise UsageError(
                f"cannot open {str(self.path)!r} for appending: {exc.strerror or exc}", where="--audit"
            ) from None
        os.close(fd)

    def __call__(self, record: Mapping[str, Any]) -> None:
        line = json.dumps(dict(record), ensure_ascii=False, default=str) + "\n"
        with self._lock:
            fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
            try:
                os.write(fd, line.encode("utf-8", "replace"))
            finally:
                os.close(fd)


def now_iso(timestamp: float | None = None) -> str:
    """ISO-8601 UTC with milliseconds, e.g. 2026-11-30T08:30:00.123Z."""
    moment = datetime.now(UTC) if timestamp is None else datetime.fromtimestamp(timestamp, UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


# -- the run ----------------------------------------------------------------------------------------


@dataclass
class RunOutcome:
    """Everything a renderer needs about one call."""

    tool: str
    input: dict[str, Any]
    result: ToolResult
    decisions: list[dict[str, Any]]
    elapsed: float
    exit_code: ExitCode
    policy: str
    error: str | None = None
    interrupted: bool = False
    agent: str = ""

    @property
    def truncated(self) -> bool:
        return bool(self.result.metadata.get("truncated"))

    @property
    def output_path(self) -> str | None:
        path = self.result.metadata.get("outputPath")
        return str(path) if path else None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "tool": self.tool,
            "input": self.input,
            "result": self.result.to_json(),
            "permission": self.decisions,
            "policy": self.policy,
            "agent": self.agent,
            "elapsed": round(self.elapsed, 3),
            "exit_code": int(self.exit_code),
        }
        if self.error is not None:
            data["error"] = self.error
        if self.interrupted:
            data["interrupted"] = True
        return data


@dataclass
class RunSpec:
    """What to run and how; `approve` answers the gate's questions (the core never prompts)."""

    tool_id: str
    args: dict[str, Any]
    approve: ApproveFn
    policy: str = "reject"
    force_hidden: bool = False
    timeout: float | None = None
    audit: Callable[[Mapping[str, Any]], None] | None = None
    abort: AbortSignal = field(default_factory=AbortSignal)
    on_metadata: MetadataFn | None = None
    # Which (permission, pattern) pairs the non-interactive policy approves (`--yes`, `--approve`): the
    # call's patterns are then asked in two groups, so approval and refusal are per pattern.
    pre_approved: Callable[[str, str], bool] | None = None


def _hint_kind(agent: Any) -> str:
    from forge_tools.permission.agents import can_dispatch

    return "subagent" if can_dispatch(agent) else "search"


def build_context(loaded: Any, result: PipelineResult, spec: RunSpec, ask: Any) -> ToolContext:
    """The execute context for a CLI run, with truncation limits, store and hint from config."""
    from forge_tools.tools.outputs import OutputStore
    from forge_tools.tools.truncation import TruncationPolicy

    return ToolContext(
        session_id=f"ses_run_{os.getpid()}",
        message_id="msg_run",
        call_id=f"call_{int(time.time() * 1000)}",
        agent=result.agent.name,
        project_root=Path(loaded.project_root),
        abort=spec.abort,
        ask=ask,
        on_metadata=spec.on_metadata,
        timeout=spec.timeout,
        truncation=TruncationPolicy.from_config(loaded),
        outputs=OutputStore.from_config(loaded),
        hint=_hint_kind(result.agent),
        extra={"loaded": loaded, "pipeline": result,
               "config_dirs": list(getattr(loaded, "config_dirs", []) or [])},
    )


FORCE_HIDDEN_ORIGIN = Origin("cli", name="--force-hidden")


def gate_ruleset(result: PipelineResult, tool_id: str, force_hidden: bool = False) -> tuple[Rule, ...]:
    """The rules the gate checks calls against.

    A tool is hidden only when the last rule for its permission is `* deny`, which would also deny
    every call; so `--force-hidden` adds `<permission> * ask` after it: each call is then asked (and
    can be approved with --yes/--approve or at the prompt) instead of denied. Nothing else changes.
    """
    ruleset = tuple(result.ruleset)
    get = getattr(result, "get", None)
    verdict = get(tool_id) if callable(get) else None
    if not force_hidden or verdict is None or verdict.hidden_at not in LAYER_THREE:
        return ruleset
    return (*ruleset, Rule(verdict.permission, "*", "ask", FORCE_HIDDEN_ORIGIN))


def escalate_opaque(gate: Any, permission: str, metadata: Mapping[str, Any] | None) -> None:
    """Fail closed on patterns that cannot be pinned down (`metadata["opaque"]`, `["linked"]`): one the
    rules would allow is asked instead when a narrower rule could apply to what it really is. The ask is
    a session rule whose origin says why, so the question, the audit line and a non-interactive refusal
    all name the rule that could apply."""
    from forge_tools.permission.calls import ESCALATIONS, escalation_reason, opaque_escalation

    session = gate.session
    for kind in ESCALATIONS:
        for pattern in (metadata or {}).get(kind) or ():
            decision = session.evaluate(permission, pattern)
            answered = decision.rule is not None and decision.rule.origin.kind == "session"
            if decision.action != "allow" or answered:
                continue  # not allowed anyway, or allowed by a person's `always` answer in this run
            rules = [r for r in (*session.base.rules, *session.rules) if r.origin.kind != "safety"]
            risk = opaque_escalation(permission, pattern, rules, kind)
            if risk is None:
                continue
            why = (f"{escalation_reason(kind, pattern)}, and rule {risk.permission} {risk.pattern!r} "
                   f"{risk.action} ({risk.origin}) could apply to it")
            session.rules.append(Rule(permission, pattern, "ask", Origin("safety", name=why)))


def approval_groups(
    gate: Any, permission: str, patterns: list[str], covered: Callable[[str, str], bool] | None,
) -> list[list[str]]:
    """The patterns a policy covers, then the rest, each asked as its own question: `--approve
    'bash=git *'` then approves `git log -1` of `git log -1 && echo x`, and a refusal names only `echo
    x`. A deny anywhere keeps one group, so the gate reports every denied pattern at once."""
    if covered is None or len(patterns) < 2:
        return [list(patterns)]
    if any(gate.session.evaluate(permission, p).action == "deny" for p in patterns):
        return [list(patterns)]
    yes = [p for p in patterns if covered(permission, p)]
    no = [p for p in patterns if not covered(permission, p)]
    return [group for group in (yes, no) if group]


def _decision_json(record: Any) -> dict[str, Any]:
    if isinstance(record, Mapping):
        return dict(record)
    to_json = getattr(record, "to_json", None)
    if callable(to_json):
        data = to_json()
        return dict(data) if isinstance(data, Mapping) else {"decision": data}
    return {"decision": str(record)}


def run_tool(loaded: Any, request: Request, spec: RunSpec) -> RunOutcome:
    """Resolve, refuse or run one call; permission failures and tool errors become the outcome."""
    from forge_tools.visibility.pipeline import resolve

    result = resolve(loaded, request)
    tool = select_tool(result, spec.tool_id, spec.force_hidden)
    return run_selected(loaded, result, tool, spec)


def run_selected(loaded: Any, result: PipelineResult, tool: Tool, spec: RunSpec) -> RunOutcome:
    """Run an already selected tool (the pipeline is resolved) through the wrapper and the gate."""
    from forge_tools.permission.gate import PermissionGate
    from forge_tools.tools.wrapper import call_tool

    decisions: list[dict[str, Any]] = []
    refusals: list[ForgeToolsError] = []
    asks_made = 0

    def record(decision: Any) -> None:
        data = _decision_json(decision)
        stamp = data.get("time")
        data["time"] = now_iso(stamp if isinstance(stamp, int | float) else None)
        data.setdefault("tool", tool.id)
        data.setdefault("policy", spec.policy)
        decisions.append(data)
        if spec.audit is not None:
            spec.audit(data)

    gate = PermissionGate(gate_ruleset(result, tool.id, spec.force_hidden), spec.approve, record)

    def ask(
        permission: str, patterns: list[str], always: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> None:
        nonlocal asks_made
        asks_made += 1
        escalate_opaque(gate, permission, metadata)
        groups = approval_groups(gate, permission, patterns, spec.pre_approved)
        for index, group in enumerate(groups):
            try:
                gate(permission, group, always, {"tool": tool.id, **(metadata or {})})
            except (PermissionDenied, PermissionRejected) as exc:
                refusals.append(exc)
                later = [p for rest in groups[index + 1:] for p in rest]
                if later:  # never put to anyone: still one line each, saying why
                    gate.record_cancelled(permission, later, f"not asked: {_refusal_reason(exc)}")
                raise

    ctx = build_context(loaded, result, spec, ask)
    ctx.peek = gate.peek  # tools that must leave out what a rule denies (grep/glob/list and read)
    hooks = getattr(result, "hooks", None)
    started = time.monotonic()
    try:
        tool_result = call_tool(tool, spec.args, ctx, hooks=hooks)
        raised: ForgeToolsError | None = None
    except (PermissionDenied, PermissionRejected) as exc:
        raised = exc
        tool_result = ToolResult(output=exc.one_line(), title=tool.id, is_error=True)
    elapsed = time.monotonic() - started

    exit_code = ExitCode.OK
    error: str | None = None
    refusal = raised or (refusals[-1] if refusals else None)
    if refusals:
        _record_unasked_requests(gate, tool, spec, ctx, asks_made, refusals[-1])
    interrupted = spec.abort.aborted or isinstance(refusal, QuestionInterrupted)
    if isinstance(refusal, QuestionInterrupted):
        exit_code = ExitCode.INTERRUPTED
        error = refusal.one_line()
    elif spec.abort.aborted:
        exit_code = ExitCode.INTERRUPTED
        error = f"aborted: {spec.abort.reason or 'interrupted'}"
    elif refusal is not None:
        exit_code = refusal.exit_code
        error = _refusal_text(refusal)
    elif tool_result.is_error:
        exit_code = _error_exit_code(tool_result)
        text = tool_result.output.strip()
        if exit_code == ExitCode.USAGE:  # the schema problems follow the first line: keep them all
            error = text or "the input does not fit the tool's parameters"
        else:
            error = text.splitlines()[0] if text else "tool failed"
    return RunOutcome(
        tool=tool.id,
        input=spec.args,
        result=tool_result,
        decisions=decisions,
        elapsed=elapsed,
        exit_code=exit_code,
        policy=spec.policy,
        error=error,
        interrupted=interrupted,
        agent=result.agent.name,
    )


def _refusal_text(refusal: ForgeToolsError) -> str:
    """A policy's reject reads as the policy's explanation; a person's keeps their feedback."""
    question = getattr(refusal, "question", None)
    answer = getattr(question, "answer", None)
    feedback = getattr(answer, "feedback", None)
    if question is not None and getattr(answer, "by_policy", False) and feedback:
        return f"{question.describe()}: {feedback}"
    return refusal.one_line()


def _record_unasked_requests(
    gate: Any, tool: Tool, spec: RunSpec, ctx: ToolContext, asks_made: int, refusal: ForgeToolsError,
) -> None:
    """The wrapper asks a call's permissions in order (external_directory, then bash ...) and stops at
    the first refusal; the permissions after it are logged as cancelled, so the audit has one line per
    permission the call needed. Best effort: if the requests cannot be worked out again, nothing is added."""
    from forge_tools.tools.wrapper import permission_requests_for, validate_args

    try:
        requests = permission_requests_for(tool, validate_args(tool, spec.args), ctx)
    except Exception:
        return
    for req in list(requests)[asks_made:]:
        gate.record_cancelled(req.permission, list(req.patterns), f"not asked: {_refusal_reason(refusal)}")


def _refusal_reason(exc: ForgeToolsError) -> str:
    """Why later patterns of a call were not asked, for their audit lines."""
    if isinstance(exc, QuestionInterrupted):
        return "the question before it was interrupted"
    if isinstance(exc, PermissionDenied):
        return "a deny decided the call first"
    question = getattr(exc, "question", None)
    which = f" ({question.id})" if question is not None else ""
    return f"an earlier question of the call{which} was rejected"


def _error_exit_code(result: ToolResult) -> ExitCode:
    """Validation failures are usage errors (2); every other failed call is a failed tool (1)."""
    kind = result.metadata.get("error")
    if kind in ("validation", "invalid_input", "input"):
        return ExitCode.USAGE
    return ExitCode.FINDINGS


# -- running in a worker thread ---------------------------------------------------------------------


@dataclass
class _Question:
    question: Any
    answered: threading.Event = field(default_factory=threading.Event)
    answer: Any = None
    error: BaseException | None = None


class BackgroundRun:
    """Runs a call in a worker thread; approval questions come back to the owner's thread.

    The owner calls `poll(timeout)` in a loop: it answers pending questions with `approve` (in the
    owner's thread, so a prompt and Ctrl-C live there), and returns True once the call is done.
    """

    def __init__(self, work: Callable[[ApproveFn], RunOutcome], approve: ApproveFn) -> None:
        self._approve = approve
        self._questions: queue.Queue[_Question | None] = queue.Queue()  # None: the call finished
        self._outcome: RunOutcome | None = None
        self._error: BaseException | None = None
        self._done = threading.Event()
        self._work = work
        self._thread = threading.Thread(target=self._main, name="forge-tools-run", daemon=True)
        self.waiting_for_answer = False
        self.question_interrupted = False  # Ctrl-C came while a person was being asked

    def start(self) -> BackgroundRun:
        self._thread.start()
        return self

    def _relay(self, question: Any) -> Any:
        pending = _Question(question)
        self._questions.put(pending)
        while not pending.answered.wait(0.1):
            if self._done.is_set():  # pragma: no cover - the owner went away
                break
        if pending.error is not None:
            raise pending.error
        return pending.answer

    def _main(self) -> None:
        try:
            self._outcome = self._work(self._relay)
        except BaseException as exc:
            self._error = exc
        finally:
            self._done.set()
            self._questions.put(None)  # wakes a `poll` that is waiting, so the owner sees the end at once

    def poll(self, timeout: float = 0.1) -> bool:
        """Answer one pending question if there is one; True when the call has finished."""
        try:
            pending = self._questions.get(timeout=timeout)
        except queue.Empty:
            return self._done.is_set()
        if pending is None:
            return True
        self.waiting_for_answer = True
        try:
            pending.answer = self._approve(pending.question)
        except BaseException as exc:
            if isinstance(exc, Exception):
                pending.error = exc
            else:  # Ctrl-C at the prompt: the worker stops the call without running it
                self.question_interrupted = True
                pending.error = QuestionInterrupted()
            pending.answered.set()
            raise
        finally:
            self.waiting_for_answer = False
        pending.answered.set()
        return self._done.is_set()

    @property
    def done(self) -> bool:
        return self._done.is_set()

    def result(self) -> RunOutcome:
        """The outcome (re-raising what the worker raised); call after `poll` returned True."""
        self._done.wait()
        if self._error is not None:
            raise self._error
        assert self._outcome is not None
        return self._outcome
