"""SPEC 4.1, 4.4, 4.5 and 5 conformance: one test (or parametrized case) per normative sentence.

Each test names the sentence it pins, so a change that breaks the SPEC fails with a readable reason.
Everything goes through the public API or the CLI (`explain --call --format json`, `run`).
"""

from __future__ import annotations

import json
import os
import stat
import time
from pathlib import Path
from typing import Any

import pytest

from forge_tools import paths
from forge_tools.errors import PermissionDenied, PermissionRejected
from forge_tools.origin import Origin
from forge_tools.permission.evaluate import evaluate
from forge_tools.permission.gate import Answer, PermissionGate, Question, policy_approver
from forge_tools.permission.wildcard import wildcard_match
from forge_tools.rule import Action, Rule
from forge_tools.tools.outputs import CLEANUP_INTERVAL_SECONDS, DEFAULT_RETENTION_DAYS, OutputStore
from forge_tools.tools.truncation import TruncationPolicy, preview_lines, truncate_output


def R(permission: str, pattern: str, action: Action, where: str = "test") -> Rule:
    return Rule(permission, pattern, action, Origin("file", f"/cfg/{where}.json", 3, 5))


# --- SPEC 4.1 rules and evaluation ----------------------------------------------------------------


def test_4_1_last_matching_rule_decides_across_concatenated_rulesets() -> None:
    first = [R("bash", "*", "allow"), R("bash", "rm *", "deny")]
    second = [R("bash", "rm x", "allow")]
    assert evaluate("bash", "rm x", first, second).action == "allow"
    assert evaluate("bash", "rm y", first, second).action == "deny"
    assert evaluate("bash", "rm x", second, first).action == "deny"  # order of the sets counts


def test_4_1_permission_is_wildcard_matched_too() -> None:
    rules = [R("*", "*", "deny"), R("mcp_*", "*", "allow")]
    assert evaluate("mcp_github", "x", rules).action == "allow"
    assert evaluate("bash", "x", rules).action == "deny"


def test_4_1_no_matching_rule_means_ask() -> None:
    decision = evaluate("webfetch", "https://x", [R("bash", "*", "allow")])
    assert decision.action == "ask" and decision.rule is None
    assert evaluate("read", "/a").action == "ask"


@pytest.mark.parametrize(
    ("text", "pattern", "expected"),
    [
        # `\` turned into `/` in both strings
        ("C:\\src\\a.py", "C:/src/*", True),
        ("C:/src/a.py", "C:\\src\\*", True),
        ("a\\b", "a/b", True),
        # `*` crosses `/`, and `**` is the same as `*`
        ("/a/b/c.py", "/a/*.py", True),
        ("/a/b/c.py", "/a/**.py", True),
        ("/a/b/c.py", "/a/**/*.py", True),
        ("", "*", True),
        # `?` is exactly one character
        ("ab", "a?", True),
        ("a", "a?", False),
        ("abc", "a?", False),
        ("a/", "a?", True),
        # regex metacharacters are literal
        ("a.c", "a.c", True),
        ("abc", "a.c", False),
        ("a+", "a+", True),
        ("aa", "a+", False),
        ("(x)", "(x)", True),
        ("[ab]", "[ab]", True),
        ("a", "[ab]", False),
        ("x|y", "x|y", True),
        ("x", "x|y", False),
        ("$^", "$^", True),
        ("a{2}", "a{2}", True),
        ("aa", "a{2}", False),
        # trailing ` *`: matches without the tail, but not a longer word
        ("ls", "ls *", True),
        ("ls -la", "ls *", True),
        ("lsof", "ls *", False),
        ("git", "git *", True),
        ("git status --short", "git *", True),
        # whole string
        ("xls -la", "ls *", False),
        ("/a/b", "/a", False),
        ("b/a", "a", False),
        # case-sensitive
        ("LS", "ls *", False),
        ("/A/x", "/a/*", False),
    ],
)
def test_4_1_wildcard_matching(text: str, pattern: str, expected: bool) -> None:
    assert wildcard_match(text, pattern) is expected
    # and through evaluation, for the permission name as well as the pattern
    rules = [R("p", pattern, "deny")]
    assert (evaluate("p", text, rules).action == "deny") is expected
    assert (evaluate(text, "x", [R(pattern, "*", "deny")]).action == "deny") is expected


# --- SPEC 4.4 which string each call is checked against --------------------------------------------


def _checks(cli: Any, tool: str, args: dict[str, Any], *extra: str) -> list[tuple[str, str]]:
    code, out, err = cli("explain", tool, "--call", json.dumps(args), "--format", "json", *extra)
    assert code == 0, err
    call = json.loads(out)["call"]
    assert call.get("error") is None, call
    return [(c["permission"], c["pattern"]) for c in call["checks"]]


def test_4_4_read_is_the_path_relative_to_the_root(cli: Any, project: Path) -> None:
    """SPEC 4.4 (corrected by issue 10): as opencode 1.18.33, also for an absolute filePath."""
    assert _checks(cli, "read", {"filePath": "sub/a.txt"}) == [("read", "sub/a.txt")]
    assert _checks(cli, "read", {"filePath": str(project / "sub" / "a.txt")}) == [("read", "sub/a.txt")]


@pytest.mark.parametrize(
    ("tool", "args"),
    [
        ("edit", {"filePath": "sub/a.txt", "oldString": "a", "newString": "b"}),
        ("write", {"filePath": "{root}/sub/a.txt", "content": "x"}),
        ("apply_patch", {"patchText": "*** Begin Patch\n*** Add File: sub/a.txt\n+hi\n*** End Patch"}),
    ],
)
def test_4_4_edit_tools_check_edit_with_the_root_relative_path(
    cli: Any, project: Path, tool: str, args: dict[str, Any]
) -> None:
    args = {k: v.replace("{root}", str(project)) for k, v in args.items()}
    # apply_patch is offered in patch mode only (a hidden tool's call is refused before any check)
    model = ("--model", "openai/gpt-5") if tool == "apply_patch" else ()
    assert _checks(cli, tool, args, *model) == [("edit", "sub/a.txt")]


def test_4_4_edit_outside_the_root_is_still_relative_to_the_root(cli: Any, project: Path,
                                                                tmp_path: Path) -> None:
    target = tmp_path / "elsewhere" / "x.txt"
    checks = _checks(cli, "write", {"filePath": str(target), "content": "x"})
    assert checks == [
        ("external_directory", f"{target.parent}/*"),
        ("edit", os.path.relpath(target, project).replace(os.sep, "/")),
    ]


def test_4_4_list_is_the_absolute_directory(cli: Any, project: Path) -> None:
    (project / "sub").mkdir()
    assert _checks(cli, "list", {"path": "sub"}) == [("list", str(project / "sub"))]


@pytest.mark.parametrize("tool", ["glob", "grep"])
def test_4_4_glob_and_grep_are_the_search_pattern(cli: Any, tool: str) -> None:
    assert _checks(cli, tool, {"pattern": "src/**/*.p[y]"}) == [(tool, "src/**/*.p[y]")]


def test_4_4_bash_is_each_simple_command(cli: Any) -> None:
    checks = _checks(cli, "bash", {"command": "ls && git status | wc -l", "description": "d"})
    assert checks == [("bash", "ls"), ("bash", "git status"), ("bash", "wc -l")]


def test_4_4_webfetch_is_the_url(cli: Any) -> None:
    url = "https://example.com/a?b=c"
    assert _checks(cli, "webfetch", {"url": url, "format": "text"}) == [("webfetch", url)]


def test_4_4_task_is_the_subagent_name(cli: Any) -> None:
    args = {"description": "d", "prompt": "p", "subagent_type": "general"}
    assert _checks(cli, "task", args) == [("task", "general")]


def test_4_4_any_other_tool_is_star(cli: Any) -> None:
    assert _checks(cli, "todowrite", {"todos": []}) == [("todowrite", "*")]


def test_4_4_external_directory_is_dir_star_only_outside_the_root(cli: Any, project: Path,
                                                                 tmp_path: Path) -> None:
    outside = tmp_path / "other" / "f.txt"
    assert _checks(cli, "read", {"filePath": str(outside)}) == [
        ("external_directory", f"{outside.parent}/*"),
        ("read", "../other/f.txt"),  # relative to the root, as opencode (SPEC 4.4)
    ]
    assert [p for p, _ in _checks(cli, "read", {"filePath": "in.txt"})] == ["read"]


# --- SPEC 4.5 the ask gate -------------------------------------------------------------------------


class Scripted:
    def __init__(self, *answers: Answer | str) -> None:
        self.answers = list(answers)
        self.asked: list[Question] = []

    def __call__(self, question: Question) -> Answer | str:
        self.asked.append(question)
        return self.answers.pop(0)


def test_4_5_deny_rejects_at_once_naming_rules_and_origins() -> None:
    approve = Scripted()
    gate = PermissionGate([R("bash", "*", "ask"), R("bash", "rm *", "deny", "team")], approve)
    with pytest.raises(PermissionDenied) as info:
        gate("bash", ["ls", "rm -rf x"])
    assert approve.asked == []  # nothing asked: the deny decides first
    assert "rm *" in info.value.message and "/cfg/team.json:3:5" in info.value.message


def test_4_5_once_always_reject() -> None:
    approve = Scripted("once", "always", Answer("reject", "use git clean"))
    gate = PermissionGate([R("bash", "*", "ask")], approve)
    gate("bash", ["make"])  # once: allowed this time only
    gate("bash", ["make"], always=["make *"])  # asked again, answered always
    gate("bash", ["make test"])  # now allowed by the session rule, no question
    assert len(approve.asked) == 2
    with pytest.raises(PermissionRejected) as info:
        gate("bash", ["rm x"])
    assert info.value.feedback == "use git clean"
    gate("bash", ["make"])  # work continues after a decision
    assert [d.answer for d in gate.decisions if d.answer] == ["once", "always", "reject"]


def test_4_5_always_settles_and_reject_cancels_other_pending_questions() -> None:
    gate = PermissionGate([R("bash", "*", "ask")], Scripted())
    session = gate.session
    q1 = session.open("bash", ["make a"], ["make *"])
    q2 = session.open("bash", ["make b"], ["make *"])
    q3 = session.open("bash", ["rm x"], ["rm *"])
    settled = session.reply(q1.id, Answer("always"))
    assert [q.id for q in settled] == [q1.id, q2.id] and q2.status == "approved"
    assert q3.status == "pending"
    q4 = session.open("bash", ["curl x"], ["curl *"])
    rejected = session.reply(q3.id, Answer("reject", "no"))
    assert q4 in rejected and q4.status == "rejected" and session.pending == {}


def test_4_5_non_interactive_policy_is_explicit_and_named(cli: Any, project: Path) -> None:
    (project / "forge.json").write_text(json.dumps({"permission": {"bash": "ask"}}))
    args = json.dumps({"command": "true", "description": "d"})
    assert policy_approver("approve")(Question("q", "bash", ("x",), ())).reply == "once"
    assert policy_approver("reject")(Question("q", "bash", ("x",), ())).reply == "reject"
    code, _, err = cli("run", "bash", "--args", args, "--yes")
    assert code == 0 and "policy: --yes" in err
    code, _, err = cli("run", "bash", "--args", args)  # no terminal, no policy: never waits
    assert code == 4 and "reject" in err.lower()


# --- SPEC 5.1 the shared limit ---------------------------------------------------------------------


def test_5_1_defaults() -> None:
    policy = TruncationPolicy()
    assert (policy.max_lines, policy.max_bytes, policy.direction) == (2000, 51_200, "head")


def test_5_1_the_worked_example() -> None:
    lines = ("x\n" * 5000).split("\n")
    assert len(lines) == 5001
    kept, removed, unit = preview_lines(lines, TruncationPolicy())
    assert (len(kept), removed, unit) == (2000, 3001, "lines")


def test_5_1_within_limits_is_unchanged(tmp_path: Path) -> None:
    text = "\n".join(["y" * 9] * 10)  # 10 lines, 99 bytes
    store = OutputStore(tmp_path / "out")
    cut = truncate_output(text, TruncationPolicy(max_lines=10, max_bytes=99), store=store)
    assert cut.content == text and not cut.truncated and not store.directory.exists()
    cut = truncate_output(text, TruncationPolicy(max_lines=9, max_bytes=99), store=store)
    assert cut.truncated and cut.unit == "lines"
    cut = truncate_output(text, TruncationPolicy(max_lines=10, max_bytes=98), store=store)
    assert cut.truncated and cut.unit == "bytes"  # both limits are checked


def test_5_1_byte_arithmetic_first_line_free_newline() -> None:
    lines = ["aaaa", "bbbb", "cccc", "dddd"]  # total bytes 4*4 + 3 = 19
    # kept: 4 (first, no newline) + 5 + 5 = 14 <= 14; the fourth would make 19 > 14
    kept, removed, unit = preview_lines(lines, TruncationPolicy(max_lines=100, max_bytes=14))
    assert kept == lines[:3] and (removed, unit) == (19 - 14, "bytes")
    # one byte less: the third line would pass the limit, so keeping stops before it
    kept, removed, unit = preview_lines(lines, TruncationPolicy(max_lines=100, max_bytes=13))
    assert kept == lines[:2] and (removed, unit) == (19 - 9, "bytes")


def test_5_1_bytes_are_utf8_length() -> None:
    lines = ["é" * 3, "b"]  # 6 bytes + 1 + 1 = 8 bytes, 4 characters
    kept, removed, unit = preview_lines(lines, TruncationPolicy(max_lines=100, max_bytes=7))
    assert kept == ["é" * 3] and (removed, unit) == (8 - 6, "bytes")


def test_5_1_line_limit_counts_lines() -> None:
    lines = ["l"] * 7
    kept, removed, unit = preview_lines(lines, TruncationPolicy(max_lines=3, max_bytes=10_000), "tail")
    assert kept == lines[-3:] and (removed, unit) == (4, "lines")


def test_5_1_result_is_preview_marker_and_hint(tmp_path: Path) -> None:
    text = "\n".join(f"line {i}" for i in range(10))
    cut = truncate_output(text, TruncationPolicy(max_lines=4), store=OutputStore(tmp_path))
    assert cut.content.startswith("line 0\nline 1\nline 2\nline 3\n")
    assert "6 lines" in cut.content and str(cut.output_path) in cut.content
    assert cut.metadata()["removed"] == 6 and cut.metadata()["unit"] == "lines"


def test_5_1_bash_keeps_the_tail(cli: Any) -> None:
    args = json.dumps({"command": "seq 1 2500", "description": "d"})
    code, out, err = cli("run", "bash", "--args", args, "--yes", "--format", "json")
    assert code == 0, err
    result = json.loads(out)["result"]
    meta = result["metadata"]
    # 2500 numbers + trailing newline = 2501 pieces; the last 2000 are 502..2500 and ""
    assert (meta["direction"], meta["removed"], meta["unit"]) == ("tail", 501, "lines")
    assert "\n2500" in result["output"] and "\n501\n" not in result["output"]
    assert Path(meta["outputPath"]).read_text() == "".join(f"{i}\n" for i in range(1, 2501))


# --- SPEC 5.2 the full output ----------------------------------------------------------------------


def test_5_2_data_dir_order() -> None:
    assert paths.truncation_dir({"FORGE_DATA_DIR": "/d", "XDG_DATA_HOME": "/x", "HOME": "/h"}) == Path(
        "/d/tool-output")
    assert paths.truncation_dir({"XDG_DATA_HOME": "/x", "HOME": "/h"}) == Path("/x/forge/tool-output")
    assert paths.truncation_dir({"HOME": "/h"}) == Path("/h/.local/share/forge/tool-output")


def test_5_2_full_output_saved_private_and_path_in_result(isolated_env: dict[str, Path]) -> None:
    text = "z\n" * 3000
    cut = truncate_output(text, store=OutputStore.from_env())
    assert cut.output_path is not None and cut.output_path in cut.content
    saved = Path(cut.output_path)
    assert saved.parent == isolated_env["data"] / "tool-output"
    assert saved.read_text() == text
    assert stat.S_IMODE(saved.parent.stat().st_mode) == 0o700
    assert stat.S_IMODE(saved.stat().st_mode) == 0o600


def test_5_2_names_are_unique_and_sort_by_creation(tmp_path: Path) -> None:
    store = OutputStore(tmp_path)
    made = [store.write_text("bash", "x").path.name for _ in range(50)]
    assert len(set(made)) == 50 and sorted(made) == made


def test_5_2_retention_seven_days_and_cleanup_at_most_hourly(tmp_path: Path) -> None:
    assert DEFAULT_RETENTION_DAYS == 7 and CLEANUP_INTERVAL_SECONDS == 3600
    store = OutputStore(tmp_path)
    now = time.time()
    old, young = store.write_text("t", "old"), store.write_text("t", "young")
    os.utime(old.path, (now - 7.1 * 86400,) * 2)
    os.utime(young.path, (now - 6.9 * 86400,) * 2)
    removed = store.maybe_cleanup(now=now)
    assert removed is not None and [e.id for e in removed] == [old.id] and young.path.exists()
    os.utime(young.path, (now - 30 * 86400,) * 2)
    assert store.maybe_cleanup(now=now + 3599) is None and young.path.exists()  # within the hour
    assert store.maybe_cleanup(now=now + 3601) is not None and not young.path.exists()


def test_5_2_configurable_retention(tmp_path: Path) -> None:
    store = OutputStore(tmp_path, retention_days=1)
    now = time.time()
    f = store.write_text("t", "x")
    os.utime(f.path, (now - 2 * 86400,) * 2)
    assert [e.id for e in store.maybe_cleanup(now=now) or []] == [f.id]


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason="root can write anywhere")
def test_5_2_fallback_is_used_and_stated(tmp_path: Path) -> None:
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    try:
        store = OutputStore(locked / "tool-output", fallback_root=tmp_path / "fb")
        (tmp_path / "fb").mkdir()
        cut = truncate_output("q\n" * 3000, store=store)
    finally:
        locked.chmod(0o700)
    assert cut.output_path is not None and Path(cut.output_path).read_text() == "q\n" * 3000
    assert not cut.output_path.startswith(str(locked))
    assert cut.note and cut.output_path.rsplit("/", 1)[0] in cut.content


def test_5_2_fallback_is_used_and_stated_when_the_dir_is_a_file(tmp_path: Path) -> None:
    (tmp_path / "blocked").write_text("not a directory")
    (tmp_path / "fb").mkdir()
    store = OutputStore(tmp_path / "blocked" / "tool-output", fallback_root=tmp_path / "fb")
    cut = truncate_output("q\n" * 3000, store=store)
    assert cut.output_path is not None and Path(cut.output_path).read_text() == "q\n" * 3000
    assert Path(cut.output_path).is_relative_to(tmp_path / "fb")
    assert cut.note and "Note:" in cut.content and str(tmp_path / "blocked") in cut.content


# --- SPEC 5.3 the follow-up hint -------------------------------------------------------------------


def _hint(cli: Any, project: Path, task_rule: Any) -> tuple[str, str]:
    config: dict[str, Any] = {"agent": {"worker": {"mode": "primary"}}}
    if task_rule is not None:
        config["agent"]["worker"]["permission"] = {"task": task_rule}
    (project / "forge.json").write_text(json.dumps(config))
    args = json.dumps({"command": "seq 1 3000", "description": "d"})
    code, out, err = cli("run", "bash", "--args", args, "--agent", "worker", "--yes", "--format", "json")
    assert code == 0, err
    result = json.loads(out)["result"]
    return result["metadata"]["hint"], result["output"]


@pytest.mark.parametrize(
    ("task_rule", "expected"),
    [
        (None, "subagent"),  # defaults: `* allow`
        ("allow", "subagent"),
        ("ask", "subagent"),  # ask is not deny
        ({"*": "deny", "explore": "allow"}, "search"),  # `task *` evaluates to deny
        ({"explore": "deny"}, "subagent"),  # `task *` is still allowed
        ("deny", "search"),
    ],
)
def test_5_3_hint_follows_task_star(cli: Any, project: Path, task_rule: Any, expected: str) -> None:
    from forge_tools.tools.truncation import SEARCH_ADVICE, SUBAGENT_ADVICE, hint_text

    kind, output = _hint(cli, project, task_rule)
    assert kind == expected
    # bash itself says only where the full output is, as opencode 1.18.33's bash does
    # (tests/compat/facts/truncation); the shared hint of every other tool gives the advice
    assert output.startswith("...output truncated...\n\nFull output saved to: ")
    advice = hint_text(kind, "/p")
    assert (SUBAGENT_ADVICE in advice) == (expected == "subagent") and (SEARCH_ADVICE in advice) != (
        expected == "subagent")


@pytest.mark.parametrize(
    "command",
    [
        "head -c 300000 /dev/zero | tr '\\0' a; echo; echo end",  # one huge line, then a short tail
        "for i in $(seq 1 100); do printf '%01000d\\n' $i; done",  # 100 KB in 1 KB lines
        "for i in $(seq 1 3000); do printf '%030d\\n' $i; done",  # many short lines past 50 KiB
        "seq 1 30000",  # past both limits
    ],
)
def test_5_1_streamed_bash_output_is_cut_by_the_same_arithmetic(cli: Any, command: str) -> None:
    """bash keeps only a bounded tail while streaming; the amount and unit it reports must still be
    what SPEC 5.1 gives for the whole output."""
    args = json.dumps({"command": command, "description": "d"})
    code, out, err = cli("run", "bash", "--args", args, "--yes", "--format", "json")
    assert code == 0, err
    result = json.loads(out)["result"]
    meta = result["metadata"]
    whole = Path(meta["outputPath"]).read_text()
    kept, removed, unit = preview_lines(whole.split("\n"), TruncationPolicy(), "tail")
    assert (meta["removed"], meta["unit"], meta["direction"]) == (removed, unit, "tail")
    assert "\n".join(kept) in result["output"]


def test_5_2_a_run_that_saves_an_output_ages_old_ones_out(cli: Any, project: Path,
                                                          isolated_env: dict[str, Path]) -> None:
    (project / "forge.json").write_text(json.dumps({"tool_output": {"retention_days": 2}}))
    from forge_tools.tools.outputs import OutputStore

    store = OutputStore(isolated_env["data"] / "tool-output")  # files the store wrote (issue 22)
    old, young = (store.write_text("bash", "x").path for _ in range(2))
    now = time.time()
    for path, days in ((old, 3), (young, 1)):
        os.utime(path, (now - days * 86400,) * 2)
    args = json.dumps({"command": "seq 1 3000", "description": "d"})
    code, _, err = cli("run", "bash", "--args", args, "--yes")
    assert code == 0, err
    assert not old.exists() and young.exists()
