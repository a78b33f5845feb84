"""One tool call through the real path (`forge-tools run` and `forge_tools.run_call`).

The caller has resolved the pipeline and picked the tool (`PipelineResult.require`); `run_call` builds
the execute context from config, hands the call to the wrapper (validate -> hooks -> the gate ->
execute -> truncate) with the permission gate as `ctx.ask`, and turns what happened into a `RunOutcome`
with an exit code. Every permission decision is the gate's (permission/gate.py); this module only
builds the gate for the turn and reads what it recorded. The core never prompts: `RunSpec.approve`
answers the gate's questions.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from forge_tools.errors import ExitCode, ForgeToolsError, PermissionDenied, PermissionRejected
from forge_tools.origin import Origin
from forge_tools.rule import Rule
from forge_tools.tools.contract import AbortSignal, Tool, ToolContext, ToolResult

if TYPE_CHECKING:
    from forge_tools.config.loader import LoadedConfig
    from forge_tools.permission.gate import Approve, GateDecision, PermissionGate, PermissionSession
    from forge_tools.visibility.pipeline import PipelineResult, Request, ToolVerdict

MetadataFn = Callable[[str | None, dict[str, Any] | None], None]

FORCE_HIDDEN_ORIGIN = Origin("cli", name="--force-hidden")


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
    approve: Approve
    policy: str = "reject"
    force_hidden: bool = False
    timeout: float | None = None
    audit: Callable[[Mapping[str, Any]], None] | None = None
    abort: AbortSignal = field(default_factory=AbortSignal)
    on_metadata: MetadataFn | None = None
    # Which (permission, pattern) pairs the non-interactive policy approves (`--yes`, `--approve`): the
    # gate then asks a request's patterns in two groups, so approval and refusal are per pattern.
    pre_approved: Callable[[str, str], bool] | None = None
    # A session shared with earlier calls (its `always` answers apply); None: a fresh one for this call.
    session: PermissionSession | None = None
    # `run`'s OS sandbox for commands (tools/sandbox.py): require, auto (where bubblewrap works) or off.
    sandbox: str = "auto"


def runnable_tool(verdict: ToolVerdict) -> Tool:
    """The tool of a picked verdict, or why it cannot be run by hand (internal, code not loaded)."""
    tool = verdict.tool
    if tool is not None and tool.internal:
        raise ForgeToolsError(
            f"tool {verdict.id!r} is where a malformed model call is routed; it is not for direct use"
        )
    if tool is None:
        raise ForgeToolsError(f"tool {verdict.id!r} was found but its code was not loaded")
    return tool


def selection_notes(result: PipelineResult, tool_id: str, force_hidden: bool = False) -> list[str]:
    """What a person should know about running this tool by hand (a model-layer drop, a forced run)."""
    from forge_tools.visibility.pipeline import LAYER_THREE

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


def call_ruleset(result: PipelineResult, tool_id: str, force_hidden: bool = False) -> tuple[Rule, ...]:
    """The rules the gate checks calls against.

    A tool is hidden only when the last rule for its permission is `* deny`, which would also deny
    every call; so `--force-hidden` adds `<permission> * ask` after it: each call is then asked (and
    can be approved with --yes/--approve or at the prompt) instead of denied. Nothing else changes.
    """
    from forge_tools.visibility.pipeline import LAYER_THREE

    ruleset = tuple(result.ruleset)
    if not force_hidden:
        return ruleset
    verdict = result.get(tool_id)
    if verdict is None or verdict.hidden_at not in LAYER_THREE:
        return ruleset
    return (*ruleset, Rule(verdict.permission, "*", "ask", FORCE_HIDDEN_ORIGIN))


def _hint_kind(result: PipelineResult) -> str:
    from forge_tools.permission.agents import can_dispatch

    return "subagent" if can_dispatch(result.agent) else "search"


def build_context(loaded: LoadedConfig, result: PipelineResult, spec: RunSpec,
                  ask: Callable[..., None]) -> ToolContext:
    """The execute context for a run, with truncation limits, store and hint from config."""
    from forge_tools.sources.decides import deciding_paths
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
        hint=_hint_kind(result),
        extra={"loaded": loaded, "pipeline": result, "config_dirs": list(loaded.config_dirs),
               # found only when a sandbox is built (bash, a local MCP server): most calls need none
               "decides": lambda: deciding_paths(loaded, result)},
    )



def run_tool(loaded: LoadedConfig, request: Request, spec: RunSpec) -> RunOutcome:
    """Resolve the turn, pick the tool (refusing a hidden one unless forced), and run the call."""
    from forge_tools.visibility.pipeline import McpScope, resolve

    # a local MCP server started to list the tool runs in the call's sandbox, as under `forge-tools run`
    result = resolve(loaded, request, mcp=McpScope(tool_id=spec.tool_id, sandbox=spec.sandbox))
    tool = runnable_tool(result.require(spec.tool_id, allow_hidden=spec.force_hidden))
    return run_call(loaded, result, tool, spec)


def run_call(loaded: LoadedConfig, result: PipelineResult, tool: Tool, spec: RunSpec) -> RunOutcome:
    """Run an already picked tool through the wrapper with the gate as its `ask`."""
    from forge_tools.permission.audit import audit_record
    from forge_tools.permission.gate import PermissionGate
    from forge_tools.tools.wrapper import call_tool

    decisions: list[dict[str, Any]] = []

    def record(decision: GateDecision) -> None:
        data = audit_record(decision, tool.id, spec.policy)
        decisions.append(data)
        if spec.audit is not None:
            spec.audit(data)

    ruleset = call_ruleset(result, tool.id, spec.force_hidden)
    gate = PermissionGate(ruleset, spec.approve, record,
                          session=spec.session, pre_approved=spec.pre_approved, tool=tool.id)
    ctx = build_context(loaded, result, spec, gate)
    ctx.peek = gate.peek  # tools that must leave out what a rule denies (grep/glob/list and read)
    ctx.extra.update(sandbox=spec.sandbox, ruleset=ruleset)  # the sandbox is built from the same rules
    started = time.monotonic()
    try:
        tool_result = call_tool(tool, spec.args, ctx, hooks=result.hooks)
        raised: ForgeToolsError | None = None
    except (PermissionDenied, PermissionRejected) as exc:
        raised = exc
        tool_result = ToolResult(output=exc.one_line(), title=tool.id, is_error=True)
    elapsed = time.monotonic() - started
    if gate.refusals:
        _record_unasked_requests(gate, tool, spec, ctx)
    refusal = raised or (gate.refusals[-1] if gate.refusals else None)
    exit_code, error, interrupted = _ending(refusal, tool_result, spec.abort)
    return RunOutcome(tool=tool.id, input=spec.args, result=tool_result, decisions=decisions,
                      elapsed=elapsed, exit_code=exit_code, policy=spec.policy, error=error,
                      interrupted=interrupted, agent=result.agent.name)


def _ending(refusal: ForgeToolsError | None, tool_result: ToolResult,
            abort: AbortSignal) -> tuple[ExitCode, str | None, bool]:
    """The exit code, the error line and whether the call was interrupted."""
    from forge_tools.permission.gate import QuestionInterrupted

    interrupted = abort.aborted or isinstance(refusal, QuestionInterrupted)
    if isinstance(refusal, QuestionInterrupted):
        return ExitCode.INTERRUPTED, refusal.one_line(), interrupted
    if abort.aborted:
        return ExitCode.INTERRUPTED, f"aborted: {abort.reason or 'interrupted'}", interrupted
    if refusal is not None:
        return refusal.exit_code, _refusal_text(refusal), interrupted
    if not tool_result.is_error:
        return ExitCode.OK, None, interrupted
    exit_code = _error_exit_code(tool_result)
    text = tool_result.output.strip()
    if exit_code == ExitCode.USAGE:  # the schema problems follow the first line: keep them all
        return exit_code, text or "the input does not fit the tool's parameters", interrupted
    return exit_code, text.splitlines()[0] if text else "tool failed", interrupted


def _refusal_text(refusal: ForgeToolsError) -> str:
    """A policy's reject reads as the policy's explanation; a person's keeps their feedback."""
    question = getattr(refusal, "question", None)
    answer = getattr(question, "answer", None)
    feedback = getattr(answer, "feedback", None)
    if question is not None and getattr(answer, "by_policy", False) and feedback:
        return f"{question.describe()}: {feedback}"
    return refusal.one_line()


def _record_unasked_requests(gate: PermissionGate, tool: Tool, spec: RunSpec, ctx: ToolContext) -> None:
    """The wrapper stops at the first refusal; the gate logs the requests after it as cancelled. Best
    effort: if the requests cannot be worked out again, nothing is added."""
    from forge_tools.tools.wrapper import permission_requests_for, validate_args

    try:
        requests = permission_requests_for(tool, validate_args(tool, spec.args), ctx)
    except Exception:
        return
    gate.record_unasked(requests)


def _error_exit_code(result: ToolResult) -> ExitCode:
    """Validation failures are usage errors (2); every other failed call is a failed tool (1)."""
    kind = result.metadata.get("error")
    if kind in ("validation", "invalid_input", "input"):
        return ExitCode.USAGE
    return ExitCode.FINDINGS
