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
