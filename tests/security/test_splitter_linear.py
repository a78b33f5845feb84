"""The splitter is linear (issue 22): an unknown wrapper repeated many times in front of a command is
decided in bounded time, by `run`, `explain --call` and `check --expect` alike, and still not allowed.

Before the fix each of these lines took over 30 s (every unknown wrapper re-checked every later command
start, three levels deep). Each decision runs in a subprocess with a generous timeout, so a regression
fails here instead of hanging the suite; nothing else is timed.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from forge_tools.tools.shell import MAX_LINE, split_command_line

LINES = {
    "strace": ("strace ", 200),
    "nsenter": ("nsenter ", 160),
    "parallel": ("parallel ", 160),
    "nice -Z": ("nice -Z ", 160),
    "ltrace": ("ltrace ", 160),
    "timeout -Z 1": ("timeout -Z 1 ", 120),
}
POLICY = {"bash": {"*": "allow", "rm *": "deny"}}
LIMIT_S = 60  # a hang guard, not a speed assertion: the fixed splitter needs well under a second


def _cli(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "forge_tools", *args], cwd=project, capture_output=True,
                          text=True, timeout=LIMIT_S, stdin=subprocess.DEVNULL, check=False)


@pytest.mark.parametrize("name", list(LINES))
def test_repeated_unknown_wrapper_is_decided_in_bounded_time(project: Path, name: str) -> None:
    word, count = LINES[name]
    line = word * count + "rm victim"
    (project / "opencode.json").write_text(json.dumps({"permission": POLICY}))
    (project / "victim").write_text("original\n")

    explained = _cli(project, "explain", "bash", "--call", json.dumps({"command": line}), "--format", "json")
    assert explained.returncode == 0, explained.stderr
    action = json.loads(explained.stdout)["call"]["gate"]["action"]
    assert action in ("ask", "deny"), action

    expect = project / "expect.json"
    expect.write_text(json.dumps([{"agent": "build", "call": {"tool": "bash", "args": {"command": line}},
                                   "expect": action, "runtime": "forge"}]))  # the gate's answer
    checked = _cli(project, "check", "--expect", str(expect), "--format", "json")
    assert json.loads(checked.stdout)["expectations"]["results"][0]["passed"], checked.stdout

    ran = _cli(project, "run", "bash", "--args", json.dumps({"command": line}))
    assert ran.returncode == 4, ran.stderr
    assert (project / "victim").read_text() == "original\n"


def test_a_line_past_the_documented_size_is_one_opaque_pattern() -> None:
    line = "rm victim; " + "echo " + "x" * MAX_LINE
    split = split_command_line(line)
    assert split.opaque == split.commands and len(split.commands) == 1
    assert split.commands[0].startswith("rm victim;")


def test_a_deny_after_a_short_run_of_unknown_wrappers_still_holds() -> None:
    split = split_command_line("strace strace nsenter -t 1 rm victim")
    assert "rm victim" in split.commands


def test_a_long_generated_line_ends_with_the_short_lines_answer(project: Path) -> None:
    """100,000 quoted arguments before `; rm sentinel` (issue 31): still split and denied by `rm *`
    deny, as the short line is (the line is under `MAX_LINE`; its readings and `always` patterns are
    built without re-reading the words before each word)."""
    (project / "opencode.json").write_text(json.dumps({"permission": POLICY}))
    (project / "sentinel").write_text("original\n")
    for count in (3, 100_000):
        line = "echo " + " ".join(["'x'"] * count) + " ; rm sentinel"
        assert len(line) < MAX_LINE
        split = split_command_line(line)
        assert "rm sentinel" in split.commands and not split.opaque
        (project / "args.json").write_text(json.dumps({"command": line}))
        ran = _cli(project, "run", "bash", "--args", "@args.json", "--format", "json")
        assert ran.returncode == 4, ran.stderr
        assert "rm *" in json.loads(ran.stdout)["error"]
    assert (project / "sentinel").read_text() == "original\n"


OVERSIZED_CASES = [({"*": "allow"}, "ask"), ({"*": "allow", "rm *": "deny"}, "ask"), ({"*": "deny"}, "deny")]


@pytest.mark.parametrize(("rules", "action"), OVERSIZED_CASES)
def test_a_line_past_the_bound_is_asked_with_a_one_line_reason(project: Path, rules: dict[str, str],
                                                               action: str) -> None:
    """Past `MAX_LINE` (1 MiB) the line is not analysed (issue 31): the gate asks, whatever allows it
    (a rule that denies it still denies), and says why in one short line; `run` does not run it."""
    from forge_tools.origin import Origin
    from forge_tools.permission.calls import OVERSIZED_RULE, decide_request
    from forge_tools.rule import Rule
    from forge_tools.tools.builtins.bash_requests import permission_requests
    from forge_tools.tools.contract import ToolContext

    line = "echo " + "'x' " * (MAX_LINE // 4) + "; rm sentinel"
    assert len(line) > MAX_LINE

    class Args:
        command = line
        workdir = None

    requests = permission_requests(Args(), ToolContext(agent="build", project_root=project))
    ruleset = [Rule("bash", p, a, Origin("file", path="opencode.json"))  # type: ignore[arg-type]
               for p, a in rules.items()]
    checks = [c for r in requests for c in decide_request(r.permission, r.patterns, r.metadata, ruleset)]
    assert [c.action for c in checks] == [action]
    if action == "ask":
        note = checks[0].note or ""
        assert checks[0].escalated_by is OVERSIZED_RULE
        assert "1 MiB" in note and "\n" not in note and len(note) < 120, note

    (project / "opencode.json").write_text(json.dumps({"permission": {"bash": rules}}))
    (project / "sentinel").write_text("kept\n")
    (project / "args.json").write_text(json.dumps({"command": line}))
    ran = _cli(project, "run", "bash", "--args", "@args.json", "--format", "json")
    assert ran.returncode != 0, ran.stdout[-500:]
    assert (project / "sentinel").read_text() == "kept\n"
