"""One call without the CLI (call.py): --args parsing, approve policies, the audit file, the worker
thread relay."""

from __future__ import annotations

import io
import json
import os
import stat
import threading
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from forge_tools.call import RunSpec, run_call
from forge_tools.cli.args import parse_args_option
from forge_tools.cli.prompt import ApproveSpec, LiveStatus, PolicyApprover, TerminalPrompt, progress_bytes
from forge_tools.cli.relay import BackgroundRun
from forge_tools.errors import ExitCode, PermissionRejected, UsageError
from forge_tools.origin import Origin
from forge_tools.permission.audit import AuditLog
from forge_tools.permission.gate import Answer, Question
from forge_tools.rule import Rule
from forge_tools.tools.contract import PermissionRequest, ToolContext, ToolResult, tool

# -- --args ------------------------------------------------------------------------------------------


def test_args_absent_is_empty_object() -> None:
    assert parse_args_option(None) == {}


def test_args_inline_file_and_stdin(tmp_path: Path) -> None:
    assert parse_args_option('{"command": "ls"}') == {"command": "ls"}
    f = tmp_path / "a.json"
    f.write_text('{"filePath": "x"}')
    assert parse_args_option(f"@{f}") == {"filePath": "x"}
    assert parse_args_option("-", io.StringIO('{"n": 1}')) == {"n": 1}


def test_args_malformed_names_option_and_position() -> None:
    with pytest.raises(UsageError) as info:
        parse_args_option('{"command": "ls",}')
    line = info.value.one_line()
    assert line.startswith("--args")
    assert "line 1 column" in line
    assert "\n" not in line
    assert info.value.exit_code == ExitCode.USAGE


def test_args_must_be_an_object_and_file_must_exist(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="object"):
        parse_args_option("[1, 2]")
    with pytest.raises(UsageError, match="does not exist"):
        parse_args_option(f"@{tmp_path / 'missing.json'}")


# -- policies ----------------------------------------------------------------------------------------

ASK_RULE = Rule("bash", "*", "ask", Origin("file", "/p/forge.json", 4, 7))


def _question(permission: str, *patterns: str) -> Question:
    return Question("q1", permission, tuple(patterns), (), {"tool": permission}, (ASK_RULE,) * len(patterns))


def test_yes_approves_everything() -> None:
    assert PolicyApprover(yes=True)(_question("bash", "rm -rf x")).reply == "once"


def test_approve_spec_with_and_without_pattern() -> None:
    policy = PolicyApprover(approvals=["edit", "bash=git *"])
    assert policy(_question("edit", "src/a.py")).reply == "once"
    assert policy(_question("bash", "git status", "git log")).reply == "once"
    answer = policy(_question("bash", "git status", "rm -rf x"))
    assert answer.reply == "reject"
    assert "rm -rf x" in (answer.feedback or "")
    assert policy.policy == "--approve"


def test_reject_says_which_rule_asked_and_how_to_approve() -> None:
    answer = PolicyApprover()(_question("bash", "make deploy"))
    assert answer.reply == "reject"
    text = answer.feedback or ""
    assert "/p/forge.json:4:7" in text
    assert "--approve 'bash=make deploy'" in text
    assert "--yes" in text


def test_bad_approve_spec() -> None:
    with pytest.raises(UsageError) as info:
        ApproveSpec.parse("=x")
    assert info.value.one_line().startswith("--approve")


def test_terminal_prompt_answers() -> None:
    err = io.StringIO()
    assert TerminalPrompt(io.StringIO("a\n"), err)(_question("bash", "ls")).reply == "always"
    assert "forge.json:4:7" in err.getvalue()
    answer = TerminalPrompt(io.StringIO("what\nr\nuse git instead\n"), io.StringIO())(_question("bash", "ls"))
    assert answer == Answer("reject", "use git instead")
    assert TerminalPrompt(io.StringIO(""), io.StringIO())(_question("bash", "ls")).reply == "reject"


def test_live_status_waits_for_delay_and_shows_bytes() -> None:
    out = io.StringIO()
    status = LiveStatus(out, "bash", delay=0.0)
    status.update(None, {"bytes": 2_500_000})
    status.tick()
    assert "2.5 MB so far" in out.getvalue()
    status.clear()
    late = io.StringIO()
    LiveStatus(late, "bash", delay=60.0).tick()
    assert late.getvalue() == ""
    assert progress_bytes({"output": "abc"}) == 3


# -- the audit file ----------------------------------------------------------------------------------


def test_audit_file_is_private_and_appends(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    log = AuditLog(path)
    log({"permission": "bash", "answer": "once"})
    AuditLog(path)({"permission": "edit"})
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert [entry["permission"] for entry in lines] == ["bash", "edit"]


def test_audit_unwritable_is_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError) as info:
        AuditLog(tmp_path / "no" / "such" / "dir" / "audit.jsonl")
    assert info.value.one_line().startswith("--audit")


# -- run_call with a hand-made pipeline result -----------------------------------------------------


def _pipeline(rules: list[Rule], task_denied: bool = False) -> Any:
    from forge_tools.permission.agents import Agent

    ruleset = (Rule("*", "*", "allow", Origin("default")), *rules)
    if task_denied:
        ruleset = (*ruleset, Rule("task", "*", "deny", Origin("default")))
    agent = Agent("build", "primary", "", Origin("builtin-agent", name="build"), ruleset, True)
    return SimpleNamespace(agent=agent, ruleset=ruleset, hooks=None)


def _loaded(project: Path) -> Any:
    from forge_tools.config import LoadOptions, load_config

    return load_config(LoadOptions(cwd=project))


@tool(description="Says what it got")
def echo(text: str, ctx: ToolContext) -> str:
    return f"{ctx.hint}:{text}"


def _gated_tool(permission: str) -> Any:
    @tool(description="needs a permission")
    def gated(target: str) -> str:
        return f"did {target}"

    gated.permission_requests = lambda args, ctx: [PermissionRequest(permission, (args.target,), ())]
    return gated


def test_run_call_ok_and_hint_follows_task_permission(project: Path) -> None:
    loaded = _loaded(project)
    spec = RunSpec("echo", {"text": "hi"}, approve=PolicyApprover())
    assert run_call(loaded, _pipeline([]), echo, spec).result.output == "subagent:hi"
    spec = RunSpec("echo", {"text": "hi"}, approve=PolicyApprover())
    outcome = run_call(loaded, _pipeline([], task_denied=True), echo, spec)
    assert outcome.result.output == "search:hi"
    assert outcome.exit_code == ExitCode.OK


def test_run_call_validation_error_is_usage(project: Path) -> None:
    spec = RunSpec("echo", {"txt": 1}, PolicyApprover())
    outcome = run_call(_loaded(project), _pipeline([]), echo, spec)
    assert outcome.exit_code == ExitCode.USAGE
    assert "text" in outcome.result.output


def test_run_call_ask_rejected_then_approved(project: Path, tmp_path: Path) -> None:
    loaded = _loaded(project)
    ask = Rule("deploy", "*", "ask", Origin("file", "/p/forge.toml", 3, 1))
    gated = _gated_tool("deploy")
    audit_path = tmp_path / "audit.jsonl"
    spec = RunSpec("gated", {"target": "prod"}, PolicyApprover(), audit=AuditLog(audit_path))
    rejected = run_call(loaded, _pipeline([ask]), gated, spec)
    assert rejected.exit_code == ExitCode.PERMISSION
    assert "/p/forge.toml:3:1" in (rejected.error or "")
    assert "--approve deploy=prod" in (rejected.error or "")
    record = json.loads(audit_path.read_text().splitlines()[-1])
    assert record["tool"] == "gated" and record["pattern"] == "prod" and record["answer"] == "reject"
    assert record["rule"]["origin"]["path"] == "/p/forge.toml"
    assert "T" in record["time"]
    approved = run_call(loaded, _pipeline([ask]), gated,
                            RunSpec("gated", {"target": "prod"}, PolicyApprover(approvals=["deploy"]),
                                    policy="--approve"))
    assert approved.exit_code == ExitCode.OK and approved.result.output == "did prod"
    assert approved.decisions[0]["answer"] == "once"
    assert approved.to_json()["permission"][0]["policy"] == "--approve"


def test_run_call_deny_names_rule(project: Path) -> None:
    deny = Rule("deploy", "prod*", "deny", Origin("file", "/p/forge.yaml", 9, 3))
    outcome = run_call(_loaded(project), _pipeline([deny]), _gated_tool("deploy"),
                           RunSpec("gated", {"target": "prod-eu"}, PolicyApprover(yes=True)))
    assert outcome.exit_code == ExitCode.PERMISSION
    assert "/p/forge.yaml:9:3" in (outcome.error or "")
    assert outcome.decisions[0]["action"] == "deny"


def test_run_call_tool_that_raises(project: Path) -> None:
    @tool(description="fails")
    def broken() -> str:
        raise RuntimeError("disk on fire")

    outcome = run_call(_loaded(project), _pipeline([]), broken, RunSpec("broken", {}, PolicyApprover()))
    assert outcome.exit_code == ExitCode.FINDINGS
    assert "disk on fire" in (outcome.error or "")
    assert "error" in outcome.to_json()


def _opaque_tool() -> Any:
    @tool(description="runs something only known at run time")
    def dyn(command: str) -> str:
        return f"ran {command}"

    dyn.permission_requests = lambda args, ctx: [
        PermissionRequest("bash", (args.command,), ("$RM *",), {"opaque": [args.command]})
    ]
    return dyn


RM_DENY = Rule("bash", "rm *", "deny", Origin("file", "/p/forge.json", 4, 28))


def test_opaque_command_is_asked_when_a_narrower_deny_could_apply(project: Path) -> None:
    loaded = _loaded(project)
    outcome = run_call(loaded, _pipeline([RM_DENY]), _opaque_tool(),
                           RunSpec("dyn", {"command": "$RM x"}, PolicyApprover()))
    assert outcome.exit_code == ExitCode.PERMISSION
    assert "only when it runs" in (outcome.error or "") and "/p/forge.json:4:28" in (outcome.error or "")
    assert outcome.decisions[0]["action"] == "ask"
    assert outcome.decisions[0]["rule"]["origin"]["kind"] == "safety"
    approved = run_call(loaded, _pipeline([RM_DENY]), _opaque_tool(),
                            RunSpec("dyn", {"command": "$RM x"}, PolicyApprover(approvals=["bash"])))
    assert approved.exit_code == ExitCode.OK and approved.result.output == "ran $RM x"


def test_opaque_command_runs_when_no_narrower_rule_exists(project: Path) -> None:
    loaded = _loaded(project)
    for rules in ([], [RM_DENY, Rule("bash", "*", "allow", Origin("file", "/p/forge.json", 5, 3))]):
        outcome = run_call(loaded, _pipeline(rules), _opaque_tool(),
                               RunSpec("dyn", {"command": "$RM x"}, PolicyApprover()))
        assert outcome.exit_code == ExitCode.OK, outcome.error


def test_opaque_command_always_answer_is_not_asked_again(project: Path) -> None:
    from forge_tools.permission.gate import PermissionGate

    answers: list[str] = []

    def approve(question: Any) -> Answer:
        answers.append(question.patterns[0])
        return Answer("always")

    gate = PermissionGate(_pipeline([RM_DENY]).ruleset, approve)
    for _ in range(2):
        gate("bash", ["$RM x"], ["$RM *"], {"opaque": ["$RM x"]})
    assert answers == ["$RM x"]


# -- the worker thread relays questions ---------------------------------------------------------------


def test_background_run_wakes_the_owner_when_done() -> None:
    """The end of the call is a message on the same queue as questions, so a waiting `poll` returns at
    once instead of sleeping out its timeout (that cost every `run` up to 0.1 s)."""
    run = BackgroundRun(lambda relay: "done", lambda q: "once").start()
    run.result()
    assert run._questions.get_nowait() is None
    assert run.poll(0) is True


def test_background_run_asks_in_owner_thread() -> None:
    asked_in: list[str] = []

    def approve(question: Any) -> str:
        asked_in.append(threading.current_thread().name)
        return "once"

    def work(relay: Any) -> Any:
        return relay("q")

    run = BackgroundRun(work, approve).start()
    while not run.poll(0.05):
        pass
    assert run.result() == "once"
    assert asked_in == [threading.main_thread().name]


def test_background_run_interrupted_prompt_rejects_in_worker() -> None:
    def approve(question: Any) -> str:
        raise KeyboardInterrupt

    seen: list[BaseException] = []

    def work(relay: Any) -> Any:
        try:
            relay("q")
        except PermissionRejected as exc:
            seen.append(exc)
        return "done"

    run = BackgroundRun(work, approve).start()
    with pytest.raises(KeyboardInterrupt):
        while not run.poll(0.05):
            pass
    deadline = time.monotonic() + 5
    while not run.done and time.monotonic() < deadline:
        time.sleep(0.01)
    assert run.result() == "done" and seen


def test_tool_result_json_shape() -> None:
    from forge_tools.call import RunOutcome

    outcome = RunOutcome("t", {"a": 1}, ToolResult("out", "title", {"truncated": False}), [], 0.1,
                         ExitCode.OK, "reject")
    data = outcome.to_json()
    assert set(data) >= {"tool", "input", "result", "permission"}
    assert data["result"] == {"title": "title", "output": "out", "metadata": {"truncated": False}}
    assert "error" not in data


# -- review fixes: Ctrl-C at a question, feedback and cancelled records, where answers come from -----


def test_ctrl_c_at_the_question_stops_the_call_with_130_and_runs_nothing(project: Path) -> None:
    from forge_tools.permission.gate import INTERRUPTED_QUESTION

    ran: list[str] = []

    @tool(description="needs a permission")
    def gated(target: str) -> str:
        ran.append(target)
        return "did it"

    gated.permission_requests = lambda args, ctx: [PermissionRequest("deploy", (args.target,), ())]
    ask = Rule("deploy", "*", "ask", Origin("file", "/p/forge.toml", 3, 1))
    loaded = _loaded(project)

    def approve(question: Any) -> Answer:
        raise KeyboardInterrupt

    spec = RunSpec("gated", {"target": "prod"}, approve)

    def work(relay: Any) -> Any:
        spec.approve = relay
        return run_call(loaded, _pipeline([ask]), gated, spec)

    run = BackgroundRun(work, approve).start()
    with pytest.raises(KeyboardInterrupt):
        while not run.poll(0.05):
            pass
    assert run.question_interrupted
    while not run.poll(0.05):
        pass
    outcome = run.result()
    assert ran == []
    assert outcome.exit_code == ExitCode.INTERRUPTED and outcome.interrupted
    assert outcome.error == INTERRUPTED_QUESTION and "nothing ran" in outcome.error
    assert [(d["pattern"], d["answer"]) for d in outcome.decisions] == [("prod", "cancelled")]


def test_a_reject_feedback_is_in_the_decision_and_later_permissions_are_cancelled(project: Path) -> None:
    @tool(description="needs two permissions")
    def two(target: str) -> str:
        return "did it"

    two.permission_requests = lambda args, ctx: [
        PermissionRequest("external_directory", ("/elsewhere/*",), ()),
        PermissionRequest("deploy", (args.target,), ()),
    ]
    rules = [Rule("external_directory", "*", "ask", Origin("default")),
             Rule("deploy", "*", "ask", Origin("default"))]
    spec = RunSpec("two", {"target": "prod"}, lambda q: Answer("reject", "not outside the project"))
    outcome = run_call(_loaded(project), _pipeline(rules), two, spec)
    assert outcome.exit_code == ExitCode.PERMISSION
    first, second = outcome.decisions
    assert (first["permission"], first["answer"], first["feedback"]) == (
        "external_directory", "reject", "not outside the project")
    assert (second["permission"], second["pattern"], second["answer"]) == ("deploy", "prod", "cancelled")
    assert "rejected" in second["reason"]


def test_a_group_after_a_rejected_one_is_logged_cancelled(project: Path) -> None:
    rules = [Rule("deploy", "*", "ask", Origin("default"))]

    @tool(description="asks two patterns")
    def pair(a: str, b: str) -> str:
        return "did it"

    pair.permission_requests = lambda args, ctx: [PermissionRequest("deploy", (args.a, args.b), ())]
    # the policy says it covers `b`, but the answer given rejects: `b`'s group is never put to anyone
    spec = RunSpec("pair", {"a": "x", "b": "y"}, lambda q: Answer("reject"),
                   pre_approved=lambda permission, pattern: pattern == "x")
    outcome = run_call(_loaded(project), _pipeline(rules), pair, spec)
    answers = {d["pattern"]: d["answer"] for d in outcome.decisions}
    assert answers == {"x": "reject", "y": "cancelled"}


def test_validation_error_keeps_the_whole_message(project: Path) -> None:
    outcome = run_call(_loaded(project), _pipeline([]), echo, RunSpec("echo", {}, PolicyApprover()))
    assert outcome.exit_code == ExitCode.USAGE
    assert outcome.error is not None and len(outcome.error.splitlines()) > 1 and "text" in outcome.error
    assert outcome.error == outcome.result.output.strip()
    assert outcome.to_json()["exit_code"] == 2


class _Stream(io.StringIO):
    def __init__(self, tty: bool, text: str = "") -> None:
        super().__init__(text)
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


def test_answers_come_from_stdin_or_dev_tty() -> None:
    from forge_tools.cli.prompt import answer_stream

    tty_in, tty_err, piped = _Stream(True), _Stream(True), _Stream(False)
    dev_tty = _Stream(True)
    opened: list[int] = []

    def open_tty() -> Any:
        opened.append(1)
        return dev_tty

    assert answer_stream(False, tty_in, tty_err, open_tty) is tty_in and opened == []
    assert answer_stream(True, tty_in, tty_err, open_tty) is dev_tty  # stdin carried --args -
    assert answer_stream(False, piped, tty_err, open_tty) is dev_tty  # stdin is a pipe
    assert answer_stream(True, piped, tty_err, lambda: None) is None  # no controlling terminal
    assert answer_stream(False, tty_in, _Stream(False), open_tty) is None  # nowhere to show the question


def test_prompt_heading_is_one_form_and_always_lists_what_is_asked() -> None:
    err = io.StringIO()
    question = Question("q1", "external_directory", ("/tmp/*",), ("/tmp/*",), {"tool": "edit"})
    TerminalPrompt(io.StringIO("o\n"), err)(question)
    TerminalPrompt(io.StringIO("o\n"), err)(Question("q2", "edit", ("a.txt",), ("*",), {"tool": "edit"}))
    headings = [line for line in err.getvalue().splitlines() if line.endswith(":") and "asks" in line]
    assert headings == ["edit asks for permission external_directory:", "edit asks for permission edit:"]
