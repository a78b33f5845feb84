"""One decision for a call's patterns, shared by run, explain --call and check --expect."""

from __future__ import annotations

from forge_tools.origin import Origin
from forge_tools.permission.calls import decide_request, opaque_escalation
from forge_tools.rule import Rule

ORIGIN = Origin("file", path="forge.json", line=1, column=1)


def rules(*specs: tuple[str, str, str]) -> list[Rule]:
    return [Rule(p, pat, act, ORIGIN) for p, pat, act in specs]  # type: ignore[arg-type]


def test_plain_patterns_follow_the_last_matching_rule() -> None:
    rs = rules(("bash", "*", "allow"), ("bash", "rm *", "deny"))
    got = decide_request("bash", ["ls", "rm -rf x"], None, rs)
    assert [(d.pattern, d.action) for d in got] == [("ls", "allow"), ("rm -rf x", "deny")]
    assert got[1].rule == rs[1] and got[1].escalated_by is None


def test_an_opaque_pattern_is_asked_when_a_narrower_deny_could_apply() -> None:
    rs = rules(("bash", "*", "allow"), ("bash", "rm *", "deny"))
    [d] = decide_request("bash", ["$CMD x"], {"opaque": ["$CMD x"]}, rs)
    assert d.action == "ask"
    assert d.escalated_by == rs[1]
    assert d.note is not None and "rm *" in d.note


def test_an_opaque_pattern_stays_allowed_when_no_rule_could_apply() -> None:
    rs = rules(("bash", "rm *", "deny"), ("bash", "*", "allow"))
    [d] = decide_request("bash", ["$CMD x"], {"opaque": ["$CMD x"]}, rs)
    assert d.action == "allow" and d.escalated_by is None
    assert opaque_escalation("bash", "$CMD x", rs) is None


def test_an_opaque_pattern_that_is_denied_stays_denied() -> None:
    rs = rules(("bash", "*", "deny"))
    [d] = decide_request("bash", ["$CMD x"], {"opaque": ["$CMD x"]}, rs)
    assert d.action == "deny"


def test_an_exact_allow_lets_an_opaque_command_run_under_a_catch_all_deny() -> None:
    # issue 18: opaque unless the rules allow it by name; an exact rule names the very command
    rs = rules(("bash", "*", "deny"), ("bash", "python3 -c print(1)", "allow"))
    [d] = decide_request("bash", ["python3 -c print(1)"], {"opaque": ["python3 -c print(1)"]}, rs)
    assert d.action == "allow" and d.escalated_by is None and d.rule == rs[1]


def test_a_wildcard_allow_does_not_name_the_code_an_option_carries() -> None:
    # `sed -n *` matches `sed -n -e'1e rm x'`; `python3 -m *` any module's code: they stay opaque
    for allow, pattern in (("sed -n *", "sed -n -e1e rm victim x"), ("python3 -m *", "python3 -m timeit x"),
                           ("python3 *", "python3 -c print(1)")):
        rs = rules(("bash", "*", "deny"), ("bash", allow, "allow"))
        [d] = decide_request("bash", [pattern], {"opaque": [pattern]}, rs)
        assert d.action == "deny", allow
        assert d.note is not None and f"exactly {pattern!r}" in d.note


def test_a_deny_written_after_an_exact_allow_still_asks_for_an_opaque_command() -> None:
    # the allowed code may run what the later deny names
    rs = rules(("bash", "*", "allow"), ("bash", "python3 -c x", "allow"), ("bash", "rm *", "deny"))
    [d] = decide_request("bash", ["python3 -c x"], {"opaque": ["python3 -c x"]}, rs)
    assert d.action == "ask" and d.escalated_by == rs[2] and d.rule == rs[1]
    # written before the exact allow, the deny is overridden by it (last match)
    rs = rules(("bash", "*", "allow"), ("bash", "rm *", "deny"), ("bash", "python3 -c x", "allow"))
    [d] = decide_request("bash", ["python3 -c x"], {"opaque": ["python3 -c x"]}, rs)
    assert d.action == "allow"
