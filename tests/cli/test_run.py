"""`forge-tools run TOOL` from the command line: the real path, bad input and faults (issue 3)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from forge_tools.errors import ExitCode

needs_bash = pytest.mark.skipif(shutil.which("bash") is None, reason="needs a POSIX shell")


def write_config(project: Path, data: dict[str, Any]) -> Path:
    path = project / "forge.json"
    path.write_text(json.dumps(data, indent=2) + "\n")
    return path


def line_of(path: Path, needle: str) -> int:
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        if needle in line:
            return number
    raise AssertionError(f"{needle!r} not in {path}")


def full_output_path(err: str) -> Path:
    """The full-output file named in the status lines on stderr."""
    found = [line.split("full output:")[1].strip() for line in err.splitlines() if "full output:" in line]
    assert found, err
    return Path(found[0])


# -- the happy paths of "Done when" ------------------------------------------------------------------


def test_read_a_file(cli: Any, project: Path) -> None:
    (project / "README.md").write_text("# Hello\nsecond line\n")
    code, out, err = cli("run", "read", "--args", '{"filePath": "README.md"}')
    assert code == 0, err
    assert "Hello" in out and "second line" in out
    assert "read" in err and "ok" in err


@needs_bash
def test_seq_shows_tail_and_full_file(cli: Any, project: Path) -> None:
    code, out, err = cli("run", "bash", "--args", '{"command": "seq 1 100000"}')
    assert code == 0, err
    assert out.rstrip().endswith("100000")
    assert "\n1\n" not in out
    path = full_output_path(err)
    full = path.read_text()
    assert full.startswith("1\n2\n") and full.rstrip().endswith("100000")
    assert len(full.splitlines()) == 100000


def test_edit_asked_then_approved(cli: Any, project: Path) -> None:
    write_config(project, {"permission": {"edit": "ask"}})
    target = project / "notes.txt"
    target.write_text("colour: red\n")
    args = json.dumps({"filePath": "notes.txt", "oldString": "red", "newString": "blue"})
    code, _, err = cli("run", "edit", "--args", args)
    assert code == 4
    assert "--approve" in err and "forge.json:" in err
    assert "not approved" in err and len(err.strip().splitlines()) == 1  # one line, not three
    assert target.read_text() == "colour: red\n"
    code, _, err = cli("run", "edit", "--args", args, "--approve", "edit")
    assert code == 0, err
    assert target.read_text() == "colour: blue\n"
    assert "--approve" in err


@needs_bash
def test_bash_deny_rm_refuses_chain(cli: Any, project: Path) -> None:
    config = write_config(project, {"permission": {"bash": {"rm *": "deny"}}})
    (project / "x").mkdir()
    code, out, err = cli("run", "bash", "--args", '{"command": "ls && rm -rf x"}', "--yes")
    assert code == 4
    assert "rm *" in err
    assert f"forge.json:{line_of(config, 'rm *')}" in err
    assert (project / "x").is_dir()
    assert out == ""


@needs_bash
@pytest.mark.parametrize("command", ["RM=rm; $RM -rf x", "echo 'rm -rf x' | sh", "r\\\nm -rf x",
                                     "ls | ls | ls\nrm -rf x && ls"])
def test_bash_deny_rm_is_not_bypassed(cli: Any, project: Path, command: str) -> None:
    write_config(project, {"permission": {"bash": {"*": "allow", "rm *": "deny"}}})
    (project / "x").mkdir()
    code, out, err = cli("run", "bash", "--args", json.dumps({"command": command}))
    assert code == 4, (out, err)
    assert "rm *" in err
    assert (project / "x").is_dir()


def test_project_tool_script(cli: Any, project: Path) -> None:
    tools = project / ".forge" / "tools"
    tools.mkdir(parents=True)
    (tools / "greet.py").write_text(
        "from forge_tools import tool\n\n"
        "@tool(description='Greet someone')\n"
        "def greet(name: str) -> str:\n"
        "    return f'hello {name}'\n"
    )
    code, out, err = cli("run", "greet", "--args", '{"name": "Ada"}')
    assert code == 0, err
    assert out.strip() == "hello Ada"


# -- bad input and faults ----------------------------------------------------------------------------


def test_malformed_args_json(cli: Any) -> None:
    bad = '{"filePath": }'
    code, out, err = cli("run", "read", "--args", bad)
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1
    assert "--args" in lines[0] and f"line 1 column {bad.index('}') + 1}" in lines[0]
    assert out == ""


def test_args_from_stdin_and_file(cli: Any, project: Path, tmp_path: Path) -> None:
    (project / "a.txt").write_text("alpha\n")
    code, out, _ = cli("run", "read", "--args", "-", input='{"filePath": "a.txt"}')
    assert code == 0 and "alpha" in out
    args_file = tmp_path / "args.json"
    args_file.write_text('{"filePath": "a.txt"}')
    code, out, _ = cli("run", "read", "--args", f"@{args_file}")
    assert code == 0 and "alpha" in out


def test_args_failing_validation(cli: Any) -> None:
    code, _, err = cli("run", "read", "--args", '{"filePath": 5, "bogus": true}')
    assert code == 2
    error = [line for line in err.splitlines() if line.startswith("forge-tools: error:")]
    assert len(error) == 1 and "filePath" in error[0] and "bogus" in error[0] and "--args" in error[0]
    assert not any(line.startswith("- ") for line in err.splitlines())


def test_unknown_tool_did_you_mean(cli: Any) -> None:
    code, _, err = cli("run", "bsh")
    assert code == 1
    assert "'bash'" in err and "did you mean" in err


def test_invalid_is_not_for_direct_use(cli: Any) -> None:
    code, _, err = cli("run", "invalid")
    assert code == 1
    assert "not for direct use" in err


def test_tool_that_raises(cli: Any, project: Path) -> None:
    tools = project / ".forge" / "tools"
    tools.mkdir(parents=True)
    (tools / "boom.py").write_text(
        "from forge_tools import tool\n\n"
        "@tool(description='Always fails')\n"
        "def boom() -> str:\n"
        "    raise ValueError('the flux capacitor is empty')\n"
    )
    code, _, err = cli("run", "boom")
    assert code == 1
    assert "the flux capacitor is empty" in err
    assert "Traceback" not in err
    code, out, _ = cli("run", "boom", "--format", "json")
    assert code == 1
    data = json.loads(out)
    assert "flux capacitor" in data["error"]
    assert data["result"]["metadata"]["error"] == "exception"


@needs_bash
def test_non_utf8_output(cli: Any, project: Path) -> None:
    command = "seq 1 20000; printf 'bad \\377\\376 end\\n'"
    code, out, err = cli("run", "bash", "--args", json.dumps({"command": command}))
    assert code == 0, err
    assert "bad \ufffd\ufffd end" in out
    path = full_output_path(err)
    assert b"bad \xff\xfe end\n" in path.read_bytes()


@needs_bash
def test_unwritable_truncation_dir_falls_back(cli: Any, project: Path, tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("a file where the data dir should be")
    monkeypatch.setenv("FORGE_DATA_DIR", str(blocker))
    fallback_root = tmp_path / "tmp"
    fallback_root.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(fallback_root))
    code, _, err = cli("run", "bash", "--args", '{"command": "seq 1 100000"}')
    assert code == 0, err
    assert "could not be written" in err and str(fallback_root) in err
    path = full_output_path(err)
    assert not str(path).startswith(str(blocker))
    assert path.read_text().rstrip().endswith("100000")


@needs_bash
def test_two_runs_at_once_never_share_a_file(project: Path) -> None:
    from forge_tools.call import RunSpec, run_tool
    from forge_tools.cli.prompt import PolicyApprover
    from forge_tools.config import LoadOptions, load_config
    from forge_tools.visibility.pipeline import Request

    loaded = load_config(LoadOptions(cwd=project))
    outcomes: dict[str, Any] = {}

    def go(tag: str) -> None:
        spec = RunSpec("bash", {"command": f"seq 1 30000; echo {tag}"}, PolicyApprover())
        outcomes[tag] = run_tool(loaded, Request(), spec)

    threads = [threading.Thread(target=go, args=(tag,)) for tag in ("first", "second")]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    paths = {tag: outcomes[tag].output_path for tag in ("first", "second")}
    assert None not in paths.values()
    assert paths["first"] != paths["second"]
    for tag, path in paths.items():
        assert Path(path).read_text().rstrip().endswith(tag)


def test_hidden_tool_is_refused_with_rule(cli: Any, project: Path) -> None:
    config = write_config(project, {"permission": {"read": "deny"}})
    (project / "a.txt").write_text("alpha\n")
    code, out, err = cli("run", "read", "--args", '{"filePath": "a.txt"}')
    assert code == 4
    assert f"forge.json:{line_of(config, 'read')}" in err
    assert "--force-hidden" in err
    assert out == ""


def test_force_hidden_turns_the_deny_into_an_ask(cli: Any, project: Path) -> None:
    write_config(project, {"permission": {"read": "deny"}})
    (project / "a.txt").write_text("alpha\n")
    code, _, err = cli("run", "read", "--force-hidden", "--args", '{"filePath": "a.txt"}')
    assert code == 4
    assert "--force-hidden" in err and "--approve" in err
    code, out, err = cli("run", "read", "--force-hidden", "--yes", "--args", '{"filePath": "a.txt"}')
    assert code == 0, err
    assert "alpha" in out


def test_hidden_by_agent_rules(cli: Any) -> None:
    code, _, err = cli("run", "edit", "--agent", "explore", "--args", "{}")
    assert code == 4
    assert "explore" in err


def test_json_output_shape(cli: Any, project: Path) -> None:
    (project / "a.txt").write_text("alpha\n")
    code, out, err = cli("run", "read", "--format", "json", "--args", '{"filePath": "a.txt"}')
    assert code == 0, err
    data = json.loads(out)
    assert data["tool"] == "read"
    assert data["input"] == {"filePath": "a.txt"}
    assert set(data["result"]) == {"title", "output", "metadata"}
    assert "alpha" in data["result"]["output"]
    assert isinstance(data["permission"], list)
    assert "error" not in data


def test_audit_records_each_decision(cli: Any, project: Path, tmp_path: Path) -> None:
    write_config(project, {"permission": {"edit": "ask"}})
    (project / "n.txt").write_text("a\n")
    audit = tmp_path / "audit.jsonl"
    args = json.dumps({"filePath": "n.txt", "oldString": "a", "newString": "b"})
    code, _, err = cli("run", "edit", "--args", args, "--yes", "--audit", str(audit))
    assert code == 0, err
    assert oct(audit.stat().st_mode & 0o777) == oct(0o600)
    records = [json.loads(line) for line in audit.read_text().splitlines()]
    asked = [r for r in records if r["action"] == "ask"]
    assert asked and asked[0]["permission"] == "edit" and asked[0]["pattern"] == "n.txt"
    assert asked[0]["answer"] == "once" and asked[0]["tool"] == "edit"
    assert asked[0]["rule"]["origin"]["path"].endswith("forge.json")


@needs_bash
def test_timeout_stops_the_command(cli: Any) -> None:
    code, out, err = cli("run", "bash", "--timeout", "0.3", "--format", "json",
                         "--args", '{"command": "echo begun; sleep 20"}')
    assert code == 1, err
    data = json.loads(out)
    assert data["result"]["metadata"]["timedOut"] is True
    assert "begun" in data["result"]["output"]
    assert "error" in data


def test_bad_timeout_and_format(cli: Any) -> None:
    assert cli("run", "read", "--timeout", "0")[0] == 2
    assert cli("run", "read", "--format", "yaml")[0] == 2


# -- Ctrl-C ------------------------------------------------------------------------------------------


@needs_bash
@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_ctrl_c_aborts_and_keeps_output(project: Path, tmp_path: Path) -> None:
    env = dict(os.environ, FORGE_DATA_DIR=str(tmp_path / "data"), PYTHONUNBUFFERED="1")
    command = "seq 1 50000; echo started; sleep 31.25"
    proc = subprocess.Popen(
        [sys.executable, "-m", "forge_tools", "run", "bash", "--args", json.dumps({"command": command})],
        cwd=project, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    out_dir = tmp_path / "data" / "tool-output"
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and proc.poll() is None:
        files = list(out_dir.glob("tool_*")) if out_dir.is_dir() else []
        if files and files[0].stat().st_size > 200_000:  # spilling: the command is well under way
            break
        time.sleep(0.05)
    time.sleep(0.3)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=20)
    assert proc.returncode == 130, err
    saved = full_output_path(err)
    kept = saved.read_bytes()
    assert kept.startswith(b"1\n2\n3\n") and len(kept) > 200_000
    left = subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True).stdout.splitlines()
    assert not [line for line in left if line.strip() == "sleep 31.25"]


def test_self_capped_output_status_line(cli: Any, project: Path) -> None:
    (project / "big.txt").write_text("".join(f"{i}\n" for i in range(3000)))
    code, out, err = cli("run", "read", "--args", '{"filePath": "big.txt"}')
    assert code == 0, err
    assert "None" not in err and "capped by the read tool" in err and str(project / "big.txt") in err
    assert "offset=2001" in out


# -- walkthrough fixes ---------------------------------------------------------------------------------


@needs_bash
@pytest.mark.parametrize("command", [
    "echo v | xargs /bin/rm", "env /bin/rm v", "timeout 5 /bin/rm v", "nice /bin/rm v",
    "command /bin/rm v", "find . -name v -exec /bin/rm {} +", "sudo env /usr/bin/rm v",
])
def test_a_deny_on_rm_stops_rm_by_path_behind_a_wrapper(cli: Any, project: Path, command: str) -> None:
    write_config(project, {"permission": {"bash": {"*": "allow", "rm *": "deny"}}})
    (project / "v").write_text("keep me\n")
    code, _, err = cli("run", "bash", "--args", json.dumps({"command": command}))
    assert code == 4, err
    assert "'rm *' deny" in err
    assert (project / "v").read_text() == "keep me\n"


def test_approve_is_per_pattern_and_names_only_the_uncovered(cli: Any, project: Path) -> None:
    write_config(project, {"permission": {"bash": "ask"}})
    code, out, err = cli("run", "bash", "--approve", "bash=git *", "--format", "json",
                       "--args", json.dumps({"command": "git log -1 && echo x"}))
    assert code == 4, err
    answers = {d["pattern"]: d["answer"] for d in json.loads(out)["permission"] if d["action"] == "ask"}
    assert answers == {"git log -1": "once", "echo x": "reject"}
    code, _, err = cli("run", "bash", "--approve", "bash=git *",
                       "--args", json.dumps({"command": "git log -1 && echo x"}))
    error = next(line for line in err.splitlines() if line.startswith("forge-tools: error:"))
    assert "'echo x'" in error and "git log" not in error, error
    assert "--approve 'bash=echo x'" in error
    assert "asked bash 'git log -1': rejected" not in err


@needs_bash
def test_approvals_that_cover_every_pattern_run_the_call(cli: Any, project: Path) -> None:
    write_config(project, {"permission": {"bash": "ask"}})
    code, out, err = cli("run", "bash", "--approve", "bash=echo *", "--approve", "bash=true",
                         "--args", json.dumps({"command": "true && echo hi"}))
    assert code == 0, err
    assert "hi" in out


@pytest.mark.parametrize(("tool", "flag"), [("lsp", "--flag lsp"), ("plan_exit", "--flag plan")])
def test_a_flag_gated_tool_says_which_flag_registers_it(cli: Any, project: Path, tool: str,
                                                        flag: str) -> None:
    code, _, err = cli("run", tool)
    assert code == 1
    assert flag in err and "did you mean" not in err, err


@needs_bash
def test_a_timeout_is_named_not_a_signal_number(cli: Any) -> None:
    code, _, err = cli("run", "bash", "--timeout", "0.3", "--args", '{"command": "sleep 20"}')
    assert code == 1, err
    assert "timed out after 0.3 s (process group stopped)" in err
    assert "-15" not in err and "exit status" not in err


@needs_bash
def test_a_command_killed_by_a_signal_names_it(cli: Any) -> None:
    code, _, err = cli("run", "bash", "--args", '{"command": "kill -KILL $$"}')
    assert code == 0, err  # as for a non-zero exit status: the tool worked, the command failed
    assert "killed by SIGKILL" in err and "-9" not in err


def test_status_line_names_the_policy_only_when_something_was_asked(cli: Any, project: Path) -> None:
    (project / "a.txt").write_text("alpha\n")
    code, _, err = cli("run", "read", "--args", '{"filePath": "a.txt"}')
    assert code == 0, err
    assert "policy" not in err, err
    write_config(project, {"permission": {"read": "ask"}})
    code, _, err = cli("run", "read", "--yes", "--args", '{"filePath": "a.txt"}')
    assert code == 0, err
    assert "asks answered by --yes" in err


@pytest.mark.parametrize(("tool", "args"), [("bash", {"commandx": "ls"}), ("websearch", {})])
def test_input_that_does_not_fit_gets_one_error_line(cli: Any, tool: str, args: dict[str, Any]) -> None:
    # websearch is offered only with flag exa (or parallel) for this model; hidden, it is refused first
    code, out, err = cli("run", tool, "--yes", "--flag", "exa", "--args", json.dumps(args))
    assert code == 2
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("forge-tools: error: --args does not fit"), err


def test_a_tool_the_model_layer_hides_is_refused_as_check_and_explain_deny_its_calls(
        cli: Any, project: Path) -> None:
    """A hidden tool's call is a deny in every command: the model is not offered the tool. `run`
    refuses it before anything runs (exit 4), `--force-hidden` runs it with a note."""
    write_config(project, {"model": "anthropic/claude-sonnet-4"})  # no config: opencode's own provider
    args = json.dumps({"query": "forge"})
    code, out, err = cli("run", "websearch", "--args", args)
    assert code == int(ExitCode.PERMISSION) and out == ""
    assert "hidden from agent 'build' by the model layer" in err and "--force-hidden" in err, err
    code, out, _ = cli("explain", "websearch", "--call", args, "--format", "json")
    assert code == 0
    data = json.loads(out)
    assert data["call"]["action"] == "deny" and "hidden at the model layer" in data["call"]["refused"]
    assert data["call_if_visible"]["action"] == "allow"  # what the rules alone would say
    (project / "expect.json").write_text(json.dumps([
        {"agent": "build", "call": {"tool": "websearch", "args": {"query": "forge"}}, "expect": "deny"}]))
    code, out, _ = cli("check", "--expect", "expect.json", "--format", "json")
    assert [r["passed"] for r in json.loads(out)["expectations"]["results"]] == [True]
    code, _, err = cli("run", "websearch", "--force-hidden", "--args", args)
    assert "the model layer would not offer 'websearch'" in err and "hidden from agent" not in err, err


@pytest.mark.parametrize("value", ["@", "@ "])
def test_args_at_without_a_file_name(cli: Any, value: str) -> None:
    code, _, err = cli("run", "bash", "--args", value)
    assert code == 2
    assert "--args @FILE needs a file name" in err and "directory" not in err, err


def test_args_at_a_directory(cli: Any, project: Path) -> None:
    (project / "d").mkdir()
    code, _, err = cli("run", "bash", "--args", "@d")
    assert code == 2 and "is a directory" in err and "needs a JSON file" in err


def test_an_approve_naming_no_known_permission_warns(cli: Any, project: Path) -> None:
    (project / "a.txt").write_text("alpha\n")
    code, _, err = cli("run", "read", "--approve", "bsah", "--approve", "ed*", "--approve", "read=*.txt",
                       "--args", '{"filePath": "a.txt"}')
    assert code == 0, err
    warnings = [line for line in err.splitlines() if "warning" in line]
    assert len(warnings) == 1, err
    assert "'bsah'" in warnings[0] and "did you mean 'bash'" in warnings[0]


# -- review fixes ------------------------------------------------------------------------------------


class _Answers:
    """Stands in for the terminal a person answers on: readline gives `lines`, then Ctrl-C."""

    def __init__(self, *lines: str) -> None:
        self.lines = list(lines)
        self.closed = False

    def readline(self) -> str:
        if not self.lines:
            raise KeyboardInterrupt
        return self.lines.pop(0)

    def isatty(self) -> bool:
        return True

    def close(self) -> None:
        self.closed = True


def _answer_with(monkeypatch: pytest.MonkeyPatch, answers: _Answers) -> list[bool]:
    import forge_tools.cli.prompt as prompt

    seen: list[bool] = []

    def fake(args_from_stdin: bool, *rest: Any) -> Any:
        seen.append(args_from_stdin)
        return answers

    monkeypatch.setattr(prompt, "answer_stream", fake)
    return seen


@needs_bash
def test_ctrl_c_at_the_question_exits_130_and_says_nothing_ran(
    cli: Any, project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    write_config(project, {"permission": {"bash": "ask"}})
    answers = _Answers()
    _answer_with(monkeypatch, answers)
    audit = tmp_path / "a.jsonl"
    code, out, err = cli("run", "bash", "--args", '{"command": "touch made"}', "--audit", str(audit))
    assert code == 130, err
    assert "permission question was interrupted" in err and "nothing ran" in err
    assert "interrupting the tool" not in err
    assert not (project / "made").exists() and out == ""
    assert answers.closed
    records = [json.loads(line) for line in audit.read_text().splitlines()]
    assert [(r["pattern"], r["answer"]) for r in records] == [("touch made", "cancelled")]


@needs_bash
def test_an_ask_a_deny_pre_empts_says_it_was_not_asked(cli: Any, project: Path, tmp_path: Path) -> None:
    write_config(project, {"permission": {"bash": {"*": "ask", "rm *": "deny"}}})
    audit = tmp_path / "a.jsonl"
    code, _, err = cli("run", "bash", "--args", '{"command": "ls && rm -rf x"}', "--yes",
                       "--audit", str(audit))
    assert code == 4
    assert "None" not in err
    assert "bash 'ls': not asked: the deny on 'rm -rf x' decided the call first" in err
    records = {r["pattern"]: r for r in map(json.loads, audit.read_text().splitlines())}
    assert records["ls"]["answer"] == "not-asked" and "'rm -rf x'" in records["ls"]["reason"]
    assert "asks answered by" not in err  # nothing was asked


@pytest.mark.parametrize(("argv", "code", "needle"), [
    (["run", "bash", "--tools", '{"bash": false}', "--args", '{"command": "ls"}'], 4, "hidden"),
    (["run", "bsh"], 1, "unknown tool 'bsh'"),
    (["run", "read", "--args", "{bad"], 2, "invalid JSON"),
])
def test_json_errors_before_the_call_still_print_json(
    cli: Any, argv: list[str], code: int, needle: str,
) -> None:
    got, out, err = cli(*argv, "--format", "json")
    assert got == code, err
    data = json.loads(out)
    assert needle in data["error"] and data["exit_code"] == code
    assert data["result"] is None and data["permission"] == [] and data["tool"] == argv[1]
    assert {"input", "policy", "agent", "elapsed"} <= set(data)


def test_json_validation_error_is_the_whole_message(cli: Any) -> None:
    code, out, _ = cli("run", "read", "--format", "json", "--args", "{}")
    assert code == 2
    data = json.loads(out)
    assert "filePath" in data["error"] and data["error"] == data["result"]["output"].strip()
    assert data["exit_code"] == 2


@needs_bash
def test_reject_feedback_and_cancelled_permissions_are_recorded(
    cli: Any, project: Path, tmp_path: Path,
) -> None:
    write_config(project, {"permission": {"bash": "ask", "external_directory": "ask"}})
    outside = tmp_path / "outside"
    outside.mkdir()
    audit = tmp_path / "a.jsonl"
    code, out, err = cli("run", "bash", "--args", json.dumps({"command": "ls", "workdir": str(outside)}),
                         "--approve", "bash", "--audit", str(audit), "--format", "json")
    assert code == 4, err
    records = [json.loads(line) for line in audit.read_text().splitlines()]
    assert [(r["permission"], r["answer"]) for r in records] == [("external_directory", "reject"),
                                                                   ("bash", "cancelled")]
    assert "--approve" in records[0]["feedback"] and "rejected" in records[1]["reason"]
    assert json.loads(out)["permission"] == records


def test_a_person_s_reject_feedback_is_in_the_audit(
    cli: Any, project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    write_config(project, {"permission": {"edit": "ask"}})
    (project / "n.txt").write_text("a\n")
    _answer_with(monkeypatch, _Answers("r\n", "use sed instead\n"))
    audit = tmp_path / "a.jsonl"
    args = json.dumps({"filePath": "n.txt", "oldString": "a", "newString": "b"})
    code, _, err = cli("run", "edit", "--args", args, "--audit", str(audit))
    assert code == 4, err
    record = json.loads(audit.read_text().splitlines()[-1])
    assert record["answer"] == "reject" and record["feedback"] == "use sed instead"
    assert "feedback: use sed instead" in err


def test_args_from_stdin_still_asks_on_the_terminal(
    cli: Any, project: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    write_config(project, {"permission": {"edit": "ask"}})
    (project / "n.txt").write_text("a\n")
    seen = _answer_with(monkeypatch, _Answers("o\n"))
    args = json.dumps({"filePath": "n.txt", "oldString": "a", "newString": "b"})
    code, _, err = cli("run", "edit", "--args", "-", input=args)
    assert code == 0, err
    assert seen == [True] and (project / "n.txt").read_text() == "b\n"
    assert "edit asks for permission edit:" in err


@needs_bash
def test_always_offers_only_the_asked_commands(
    cli: Any, project: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    write_config(project, {"permission": {"bash": "ask"}})
    _answer_with(monkeypatch, _Answers("o\n"))
    code, _, err = cli("run", "bash", "--approve", "bash=echo *", "--args", '{"command": "echo hi && ls"}')
    assert code == 0, err
    assert err.count("[a]lways") == 1 and "[a]lways for this run (ls *), [r]eject" in err


def test_a_disabled_agent_gets_a_note(cli: Any, project: Path) -> None:
    write_config(project, {"agent": {"plan": {"disable": True}}})
    (project / "a.txt").write_text("alpha\n")
    code, out, err = cli("run", "read", "--agent", "plan", "--args", '{"filePath": "a.txt"}')
    assert code == 0, err
    assert "alpha" in out
    notes = [ln for ln in err.splitlines() if ln.startswith("forge-tools: note:") and "disabled" in ln]
    assert len(notes) == 1 and "agent plan" in notes[0] and "agent.plan.disable" in notes[0]


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pseudo-terminal")
def test_args_from_a_pipe_asks_on_the_controlling_terminal(project: Path, tmp_path: Path) -> None:
    """stdin is a pipe carrying --args -, stderr and /dev/tty a pty: the question is asked there."""
    import pty
    import select

    write_config(project, {"permission": {"edit": "ask"}})
    (project / "n.txt").write_text("a\n")
    master, slave = pty.openpty()
    name = os.ttyname(slave)

    def controlling_terminal() -> None:  # a new session whose terminal is the pty: /dev/tty opens it
        os.setsid()
        os.close(os.open(name, os.O_RDWR))

    env = dict(os.environ, FORGE_DATA_DIR=str(tmp_path / "data"), PYTHONUNBUFFERED="1")
    proc = subprocess.Popen(
        [sys.executable, "-m", "forge_tools", "run", "edit", "--args", "-"], cwd=project, env=env,
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=slave, preexec_fn=controlling_terminal,
    )
    os.close(slave)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(json.dumps({"filePath": "n.txt", "oldString": "a", "newString": "b"}).encode())
    proc.stdin.close()
    seen = b""
    deadline = time.monotonic() + 20
    while b"Allow?" not in seen and time.monotonic() < deadline:
        ready, _, _ = select.select([master], [], [], 0.2)
        if ready:
            try:
                seen += os.read(master, 4096)
            except OSError:
                break
    assert b"Allow?" in seen, seen
    os.write(master, b"o\n")
    proc.stdout.read()
    assert proc.wait(timeout=20) == 0
    os.close(master)
    assert (project / "n.txt").read_text() == "b\n"
