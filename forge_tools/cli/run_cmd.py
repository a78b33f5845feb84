"""`forge-tools run TOOL`: one real tool call through visibility, validation, the ask gate and truncation.

The command parses options, picks the approve callback (a person on a terminal, else an explicit
policy), picks the tool (`PipelineResult.require`), runs the call in a worker thread via
`cli.relay.BackgroundRun` so the live status, the prompt and Ctrl-C stay in the main thread, then renders
the outcome. The call itself is `tools.call.run_call`; every permission decision is the gate's.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from forge_tools.cli.common import AgentOpt, FormatOpt
from forge_tools.cli.pipeline_opts import PipelineOptions, pipeline_options

if TYPE_CHECKING:
    from forge_tools.call import RunOutcome

ArgsOpt = Annotated[
    str | None,
    typer.Option("--args", "-a", metavar="JSON",
                 help="Tool input: JSON, @file.json, or - for stdin (default {}).",
                 show_default=False),
]
TimeoutOpt = Annotated[
    float | None,
    typer.Option("--timeout", metavar="SECONDS",
                 help="Seconds the call may take (overrides its own timeout); bash and "
                 "webfetch stop at it, other tools see it as ctx.timeout.", show_default=False),
]
YesOpt = Annotated[bool, typer.Option("--yes", "-y", help="Approve every permission ask.")]
ApproveOpt = Annotated[
    list[str] | None,
    typer.Option("--approve", metavar="PERMISSION[=PATTERN]",
                 help="Approve asks for PERMISSION[=PATTERN] (wildcards allowed; repeatable).",
                 show_default=False),
]
AuditOpt = Annotated[
    Path | None,
    typer.Option("--audit", metavar="FILE",
                 help="Append one JSON line per permission decision to FILE (created 0600).",
                 show_default=False),
]
SandboxOpt = Annotated[
    str | None,
    typer.Option("--sandbox", metavar="MODE",
                 help="Run bash inside a bubblewrap sandbox built from the agent's rules (docs/sandbox.md): "
                 "MODE is auto (default: where bubblewrap works), require (refuse without it) or off.",
                 show_default=False),
]
NoSandboxOpt = Annotated[
    bool, typer.Option("--no-sandbox", help="Same as --sandbox=off: the rules then bound command names, "
                       "not what the commands do.")
]
ForceHiddenOpt = Annotated[
    bool, typer.Option("--force-hidden", help="Run a tool even though layer three hides it from the agent.")
]


TALKS_TO_TERMINAL = frozenset({"question"})
class _Quit(Exception):
    """The second Ctrl-C was handled: leave the loop and exit 130."""


class _CtrlC:
    """While the tool runs, Ctrl-C is counted, not raised: a KeyboardInterrupt raised between two bytecodes
    of a lock's or a queue's own code (the loop waits on one) leaves the lock half-released ("release
    unlocked lock"), and `run` would end in an internal error instead of killing the tool. The loop reads
    `count` every tick (0.1 s). At a person's prompt (`at_prompt()`), it is raised as before, so the
    question stops at once. Outside the main thread (no signal handler can be set) nothing changes."""

    def __init__(self, at_prompt: Any) -> None:
        self.count = 0
        self.seen = 0
        self._at_prompt = at_prompt
        self._previous: Any = None

    def _handle(self, signum: int, frame: Any) -> None:
        self.count += 1
        if self._at_prompt():
            raise KeyboardInterrupt

    def __enter__(self) -> _CtrlC:
        import signal
        import threading

        if threading.current_thread() is threading.main_thread():
            self._previous = signal.signal(signal.SIGINT, self._handle)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._previous is not None:
            import signal

            signal.signal(signal.SIGINT, self._previous)
            self._previous = None


ABORT_GRACE_SECONDS = 15.0  # after Ctrl-C, how long a tool gets to stop and hand back its output


def register(app: typer.Typer) -> None:
    @app.command("run")
    @pipeline_options
    def run_command(
        tool: Annotated[str, typer.Argument(metavar="TOOL",
                                            help="Tool id, e.g. bash, read, edit, or a project tool.")],
        args: ArgsOpt = None,
        agent: AgentOpt = None,
        fmt: FormatOpt = "text",
        timeout: TimeoutOpt = None,
        yes: YesOpt = False,
        approve: ApproveOpt = None,
        audit: AuditOpt = None,
        force_hidden: ForceHiddenOpt = False,
        sandbox: SandboxOpt = None,
        no_sandbox: NoSandboxOpt = False,
        opts: PipelineOptions = PipelineOptions(),
    ) -> int:
        """Run one tool call as an agent would: visibility, validation, permission, execute, truncation."""
        setting = _sandbox_setting(sandbox, no_sandbox)
        return _run(tool, args, fmt, timeout, yes, approve or [], audit, force_hidden, opts, setting)


def _sandbox_setting(value: str | None, off: bool) -> str:
    """--sandbox / --no-sandbox as one setting (default auto); a contradiction is a usage error."""
    from forge_tools.errors import UsageError
    from forge_tools.tools.sandbox import SETTINGS

    if value is not None and value not in SETTINGS:
        raise UsageError(f"must be one of {', '.join(SETTINGS)}, got {value!r}", where="--sandbox")
    if off and value not in (None, "off"):
        raise UsageError(f"--no-sandbox contradicts --sandbox={value}", where="--no-sandbox")
    return "off" if off else (value or "auto")


def sandbox_line(outcome: RunOutcome) -> str | None:
    """One stderr line when bash ran without the sandbox it was meant to have, or with it turned off."""
    meta = outcome.result.metadata
    if meta.get("error") == "sandbox":
        return None  # refused: the error line says it
    if meta.get("sandbox") == "unavailable":
        return (f"forge-tools: note: ran without the sandbox: {meta.get('sandboxProblem')} "
                "(--sandbox=require refuses instead)")
    if meta.get("sandbox") == "off":
        return ("forge-tools: note: sandbox off (--no-sandbox): a deny bounds command names only, "
                "not what the commands do")
    return None


class _Approver:
    """`--yes`/`--approve` first; whatever they leave goes to a person on a terminal, else is rejected."""

    def __init__(self, policy: Any, prompt: Any | None) -> None:
        self.policy_approver = policy
        self.prompt = prompt
        if prompt is None:
            self.policy = policy.policy
        elif policy.policy == "reject":
            self.policy = "interactive"
        else:
            self.policy = f"{policy.policy}, then interactive"

    def __call__(self, question: Any) -> Any:
        answer = self.policy_approver(question)
        if answer.reply != "reject" or self.prompt is None:
            return answer
        return self.prompt(question)


def _run(
    tool_id: str, args_text: str | None, fmt: str, timeout: float | None, yes: bool,
    approvals: list[str], audit_path: Path | None, force_hidden: bool, opts: PipelineOptions,
    sandbox: str = "auto",
) -> int:
    from forge_tools.cli.common import check_format
    from forge_tools.errors import ForgeToolsError

    check_format(fmt, ("text", "json"))
    state: dict[str, Any] = {"input": None, "policy": None, "agent": None}
    try:
        return _run_checked(tool_id, args_text, fmt, timeout, yes, approvals, audit_path, force_hidden,
                            opts, state, sandbox)
    except ForgeToolsError as exc:
        if fmt != "json":
            raise
        _render_json_error(tool_id, state, exc.one_line(), int(exc.exit_code))
        raise


def _render_json_error(tool_id: str, state: dict[str, Any], message: str, exit_code: int) -> None:
    """The documented JSON shape for a call that never reached the tool (unknown, hidden, bad option):
    `result` is null and `error`/`exit_code` say why, so a script reading stdout always gets JSON."""
    import json
    import sys

    data: dict[str, Any] = {
        "tool": tool_id, "input": state.get("input"), "result": None, "permission": [],
        "policy": state.get("policy"), "agent": state.get("agent"), "elapsed": 0.0,
        "error": message, "exit_code": exit_code,
    }
    sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False, default=str) + "\n")
    sys.stdout.flush()


def _run_checked(
    tool_id: str, args_text: str | None, fmt: str, timeout: float | None, yes: bool,
    approvals: list[str], audit_path: Path | None, force_hidden: bool, opts: PipelineOptions,
    state: dict[str, Any], sandbox: str = "auto",
) -> int:
    import sys
    import time

    from forge_tools.call import RunSpec, run_call, runnable_tool, selection_notes
    from forge_tools.cli.args import parse_args_option, unknown_permission_warnings
    from forge_tools.cli.entry import collection_for_a_long_call
    from forge_tools.cli.pipeline_opts import resolve_options
    from forge_tools.cli.progress import wants_progress
    from forge_tools.cli.prompt import LiveStatus, PolicyApprover, TerminalPrompt, answer_stream
    from forge_tools.cli.relay import BackgroundRun
    from forge_tools.errors import ExitCode
    from forge_tools.permission.audit import AuditLog
    from forge_tools.permission.gate import INTERRUPTED_QUESTION
    from forge_tools.tools.contract import AbortSignal
    from forge_tools.visibility.pipeline import McpScope

    if timeout is not None:
        from forge_tools.cli.common import number_in_range

        number_in_range(timeout, "--timeout", "seconds", 0, 365 * 86400, above=True)  # at most a year
    policy = PolicyApprover(yes=yes, approvals=approvals)
    state["policy"] = policy.policy
    raw_args = parse_args_option(args_text, sys.stdin)
    state["input"] = raw_args
    audit = AuditLog(audit_path) if audit_path is not None else None

    # only the servers that could list this tool start, within --timeout (which covers connecting too)
    mcp = McpScope(tool_id=tool_id, start_s=timeout, start_by="the run's --timeout", sandbox=sandbox)
    project, result = resolve_options(opts, mcp=mcp, fmt=fmt)
    from forge_tools.runtimes.gate_rules import project_gate

    result = project_gate(project.config, result)[0]  # the answering agent's rules, in the gate's terms
    state["agent"] = result.agent.name
    tool = runnable_tool(result.require(tool_id, allow_hidden=force_hidden))
    if result.agent.disabled:
        name = result.agent.name
        sys.stderr.write(f"forge-tools: note: agent {name} is disabled in the config (agent.{name}.disable);"
                         " running the call as it anyway\n")
    if _fits(tool, raw_args):  # input that does not fit gets its one error line, nothing before it
        for note in selection_notes(result, tool.id, force_hidden):
            sys.stderr.write(f"forge-tools: note: {note}\n")
    from forge_tools.runtimes import runtime_for

    chosen = runtime_for(project.config)  # the one choice every command makes (issue 28)
    if chosen.runtime.name not in ("opencode", "forge"):  # run enforces forge-tools' gate, not that agent
        head = chosen.headline().splitlines()[0]
        sys.stderr.write(f"forge-tools: note: {head}; forge-tools run enforces its own gate "
                         f"(`forge-tools explain {tool.id} --call JSON` gives that agent's answer beside "
                         "it)\n")
    for problem in result.problems:
        sys.stderr.write(f"forge-tools: warning: {problem.one_line()}\n")
    for warning in unknown_permission_warnings((spec.permission for spec in policy.specs), result):
        sys.stderr.write(f"forge-tools: warning: {warning}\n")

    # answers come from stdin, or from /dev/tty when stdin is piped or carried --args -
    answers = None if yes else answer_stream(args_text == "-", sys.stdin, sys.stderr)
    try:
        interactive = answers is not None
        # `question` talks to the person itself; a status line would write over its prompt
        live = (interactive or wants_progress(fmt)) and fmt == "text" and tool.id not in TALKS_TO_TERMINAL
        status = LiveStatus(sys.stderr, _label(tool.id, raw_args), enabled=live)
        prompt = TerminalPrompt(answers, sys.stderr, status) if answers is not None else None
        approver = _Approver(policy, prompt)
        state["policy"] = approver.policy
        abort = AbortSignal()
        spec = RunSpec(tool.id, raw_args, approve=approver, policy=approver.policy,
                       force_hidden=force_hidden, timeout=timeout, audit=audit, abort=abort,
                       on_metadata=status.update, pre_approved=policy.covers,
                       sandbox=sandbox)

        def work(relay: Any) -> RunOutcome:
            spec.approve = relay
            return run_call(project.config, result, tool, spec)

        collection_for_a_long_call()  # the tool may run long (see cli.entry)
        background = BackgroundRun(work, approver).start()
        interrupted_at: float | None = None

        def stop_at_once() -> None:
            """A second Ctrl-C, wherever it landed: kill what the tool started now, in this thread."""
            abort.force("interrupted twice")
            status.clear()
            sys.stderr.write("forge-tools: stopped at once (second Ctrl-C); the tool's processes were "
                             "killed\n")
            sys.stderr.flush()

        ctrl_c = _CtrlC(lambda: background.waiting_for_answer)
        try:
            with ctrl_c:
                while True:
                    try:
                        if background.poll(0.1):
                            break
                        status.tick()
                        if ctrl_c.count > ctrl_c.seen:  # a Ctrl-C since the last one acted on
                            if interrupted_at is not None:
                                stop_at_once()
                                raise _Quit
                            raise KeyboardInterrupt  # the first: handled below, as at a prompt
                        if (interrupted_at is not None
                                and time.monotonic() - interrupted_at > ABORT_GRACE_SECONDS):
                            abort.force("did not stop in time")
                            sys.stderr.write("forge-tools: the tool did not stop within "
                                             f"{ABORT_GRACE_SECONDS:g}s; its processes were killed\n")
                            return int(ExitCode.INTERRUPTED)
                    except KeyboardInterrupt:
                        if interrupted_at is not None:
                            raise
                        interrupted_at = time.monotonic()
                        ctrl_c.seen = ctrl_c.count
                        status.clear()
                        if background.question_interrupted:
                            # the tool never started: the worker ends the call as not approved (exit 130)
                            sys.stderr.write("\n")
                            continue
                        abort.abort("interrupted")
                        sys.stderr.write("forge-tools: interrupting the tool (Ctrl-C again to quit at "
                                         "once)\n")
                        sys.stderr.flush()
        except _Quit:
            raise KeyboardInterrupt from None
        except KeyboardInterrupt:
            # a second Ctrl-C at a prompt (the only place one is raised while the tool runs)
            if interrupted_at is not None:
                stop_at_once()
            raise
        status.clear()
        outcome = background.result()
    finally:
        if answers is not None and answers is not sys.stdin:
            answers.close()
    if fmt == "json":
        _render_json(outcome)
    else:
        _render_text(outcome, stopped_at_question=outcome.error == INTERRUPTED_QUESTION)
    if outcome.interrupted:
        return int(ExitCode.INTERRUPTED)
    return int(outcome.exit_code)


def _fits(tool: Any, args: dict[str, Any]) -> bool:
    """Whether the input passes the tool's schema (the run itself reports why not)."""
    from forge_tools.tools.wrapper import InvalidInput, validate_args

    try:
        validate_args(tool, args)
    except InvalidInput:
        return False
    return True


def _label(tool_id: str, args: dict[str, Any]) -> str:
    """`bash: make test` for the live status: the tool and its most telling argument, shortened."""
    for key in ("description", "command", "filePath", "pattern", "url", "path"):
        value = args.get(key)
        if isinstance(value, str) and value.strip():
            text = " ".join(value.split())
            return f"{tool_id}: {text[:57] + '...' if len(text) > 60 else text}"
    return tool_id


def _render_json(outcome: RunOutcome) -> None:
    import json
    import sys

    sys.stdout.write(json.dumps(outcome.to_json(), indent=2, ensure_ascii=False, default=str) + "\n")


def _printable(text: str) -> str:
    """What a terminal or pipe can take: lone surrogates (undecodable bytes) become U+FFFD."""
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace") if text else text


def status_line(outcome: RunOutcome) -> list[str]:
    """The stderr summary: tool, title, ok/error (and how a command ended), elapsed, the policy that
    answered asks (only when something was asked), and where a cut output went."""
    result = outcome.result
    title = f" {result.title!r}" if result.title and result.title != outcome.tool else ""
    state = "interrupted" if outcome.interrupted else ("error" if outcome.exit_code else "ok")
    ended = _how_it_ended(result.metadata, outcome.interrupted)
    if ended:
        state += f" ({ended})"
    asked = any(d.get("action") == "ask" and d.get("answer") != "not-asked" for d in outcome.decisions)
    policy = f" (asks answered by {outcome.policy})" if asked else ""
    lines = [f"forge-tools: {outcome.tool}{title}: {state} in {outcome.elapsed:.2f}s{policy}"]
    meta = result.metadata
    if meta.get("truncated") and meta.get("removed") is None:
        # a tool that caps its own output (read, list, glob, grep) says how to see the rest itself
        where = f"; the whole file: {meta['outputPath']}" if meta.get("outputPath") else ""
        lines.append(f"forge-tools: output capped by the {outcome.tool} tool (its closing note says how to "
                     f"see the rest){where}")
    elif meta.get("truncated"):
        removed, unit = meta.get("removed"), meta.get("unit", "lines")
        end = "start" if meta.get("direction") == "tail" else "end"
        where = meta.get("outputPath") or "(not saved)"
        lines.append(
            f"forge-tools: output cut: {removed} {unit} left out from the {end}; full output: {where}"
        )
        if meta.get("outputNote"):
            lines.append(f"forge-tools: note: {meta['outputNote']}")
    elif outcome.interrupted and outcome.output_path:
        lines.append(f"forge-tools: output so far: {outcome.output_path}")
    return lines


def _how_it_ended(meta: dict[str, Any], interrupted: bool) -> str | None:
    """Why a command ended badly, in words: a timeout or an abort stops the whole process group (the
    raw status would be a negative signal number); a command killed by a signal names the signal."""
    if meta.get("timedOut"):
        seconds = meta.get("timeoutSeconds")
        after = f" after {seconds:g} s" if isinstance(seconds, int | float) else ""
        return f"timed out{after} (process group stopped)"
    if meta.get("aborted"):
        return "process group stopped" if interrupted else "aborted (process group stopped)"
    code = meta.get("exitCode")
    if not isinstance(code, int) or isinstance(code, bool) or code == 0 or interrupted:
        return None
    if code < 0:
        import signal

        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f"command killed by {name}"
    return f"command exit status {code}"


def _usage_line(outcome: RunOutcome) -> str:
    """Input that does not fit the schema, on one line: which fields and what is wrong with each (the
    model-facing text of the result lists the same, one per line)."""
    problems = outcome.result.metadata.get("errors")
    if not isinstance(problems, list) or not problems:
        return " ".join(outcome.result.output.split())
    parts = [f"{p.get('field') or '(input)'}: {p.get('problem')}" for p in problems if isinstance(p, dict)]
    return (f"--args does not fit the {outcome.tool} tool's parameters: {'; '.join(parts)} "
            f"(see `forge-tools explain {outcome.tool}` for the schema)")


_ANSWER_WORDS = {"once": "allowed once", "always": "allowed for this run", "reject": "rejected",
                 "settled": "allowed", "cancelled": "cancelled"}


def decision_line(decision: dict[str, Any], policy: str) -> str | None:
    """One stderr line for an `ask` decision (None for allow/deny): how it was answered and why, or that
    it was never asked because a deny decided the call first."""
    if decision.get("action") != "ask":
        return None
    what = f"{decision.get('permission')} {decision.get('pattern')!r}"
    answer = str(decision.get("answer"))
    reason = decision.get("reason")
    if answer == "not-asked":
        return f"forge-tools: {what}: {reason or 'not asked: a deny decided the call first'}"
    words = _ANSWER_WORDS.get(answer, answer)
    if reason:
        words += f" ({reason})"
    feedback = decision.get("feedback")
    if feedback and answer == "reject":
        words += f"; feedback: {feedback}"
    return f"forge-tools: asked {what}: {words} (policy: {policy})"


def _render_text(outcome: RunOutcome, stopped_at_question: bool = False) -> None:
    import sys

    from forge_tools.errors import ExitCode

    result = outcome.result
    refused = outcome.exit_code == ExitCode.PERMISSION or stopped_at_question
    if result.is_error and outcome.exit_code == ExitCode.USAGE:
        # the call failed before it ran (its input does not fit): the one error line says it all
        sys.stderr.write(f"forge-tools: error: {_usage_line(outcome)}\n")
        sys.stderr.flush()
        return
    if result.output and not refused:
        text = _printable(result.output)
        is_message = result.is_error and bool(result.metadata.get("error"))  # not output, a message
        stream = sys.stderr if is_message else sys.stdout
        stream.write(text if text.endswith("\n") else text + "\n")
        stream.flush()
    for decision in outcome.decisions:
        if refused and decision.get("answer") == "reject":
            continue  # the error line below says it, with how to approve it
        line = decision_line(decision, outcome.policy)
        if line is not None:
            sys.stderr.write(line + "\n")
    if not refused or stopped_at_question:  # a refused call never ran: no "error in 0.00s" for it
        for line in [sandbox_line(outcome), *status_line(outcome)]:
            if line is not None:
                sys.stderr.write(line + "\n")
    if outcome.error and stopped_at_question:
        sys.stderr.write(f"forge-tools: {outcome.error}\n")
    elif outcome.error and refused:
        rejected = any(d.get("answer") == "reject" for d in outcome.decisions)
        policy = f" (asks answered by {outcome.policy})" if rejected else ""
        sys.stderr.write(f"forge-tools: error: {outcome.error}{policy}\n")
    sys.stderr.flush()
