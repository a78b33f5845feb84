"""Last-match-wins evaluation (SPEC 4.1) and tool hiding (SPEC 3.3): tables and properties."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from forge_tools.names import permission_name
from forge_tools.origin import Origin
from forge_tools.permission.evaluate import RuleIndex, evaluate
from forge_tools.permission.wildcard import wildcard_match
from forge_tools.rule import Action, Rule
from forge_tools.visibility.permission_layer import hiding_rule, request_rules

FILE = Origin("file", path="forge.json", line=1, column=1)


def R(permission: str, pattern: str, action: Action) -> Rule:
    return Rule(permission, pattern, action, FILE)


BASE = (
    R("*", "*", "allow"),
    R("bash", "*", "ask"),
    R("bash", "git *", "allow"),
    R("bash", "git push *", "deny"),
    R("read", "*.env", "ask"),
    R("mcp_*", "*", "deny"),
    R("mcp_github", "*", "allow"),
    R("edit", "src/*", "allow"),
    R("edit", "src/generated/*", "deny"),
)

EVAL_CASES = [
    # (permission, pattern, expected action, index of deciding rule in BASE or None)
    ("glob", "*.py", "allow", 0),
    ("bash", "ls -la", "ask", 1),
    ("bash", "git status", "allow", 2),
    ("bash", "git", "allow", 2),  # trailing " *" also matches without the tail
    ("bash", "git push origin main", "deny", 3),
    ("bash", "git push", "deny", 3),
    ("bash", "gitk", "ask", 1),
    ("read", "/p/.env", "ask", 4),
    ("read", "/p/.env.local", "allow", 0),
    ("mcp_slack", "*", "deny", 5),
    ("mcp_github", "*", "allow", 6),
    ("edit", "src/a.py", "allow", 7),
    ("edit", "src/generated/x.py", "deny", 8),
    ("edit", "docs/x.md", "allow", 0),
]


@pytest.mark.parametrize(("permission", "pattern", "action", "deciding"), EVAL_CASES)
def test_evaluate_table(permission: str, pattern: str, action: str, deciding: int | None) -> None:
    for rules in (BASE, RuleIndex(BASE), list(BASE)):
        decision = evaluate(permission, pattern, rules)
        assert decision.action == action
        assert decision.rule is (BASE[deciding] if deciding is not None else None)


def test_no_rule_means_ask() -> None:
    assert evaluate("bash", "ls").action == "ask"
    decision = evaluate("bash", "ls", (R("read", "*", "allow"),))
    assert decision.action == "ask" and decision.rule is None


def test_rulesets_concatenate_later_wins() -> None:
    agent = (R("bash", "*", "deny"),)
    session = (R("bash", "ls *", "allow"),)
    assert evaluate("bash", "ls", agent, session).action == "allow"
    assert evaluate("bash", "rm x", agent, session).action == "deny"
    assert evaluate("bash", "ls", session, agent).action == "deny"


HIDE_CASES = [
    # (rules, tool, hidden?)
    ((R("*", "*", "allow"), R("bash", "*", "deny")), "bash", True),
    ((R("bash", "*", "deny"), R("bash", "ls", "allow")), "bash", False),  # last rule is not `*`
    ((R("bash", "*", "deny"), R("*", "*", "allow")), "bash", False),
    ((R("*", "*", "deny"),), "bash", True),
    ((R("bash", "rm *", "deny"),), "bash", False),  # specific deny rejects calls only
    ((R("bash", "*", "ask"),), "bash", False),  # ask never hides
    ((R("edit", "*", "deny"),), "write", True),  # edit family folds
    ((R("edit", "*", "deny"),), "apply_patch", True),
    ((R("write", "*", "deny"),), "write", False),  # rules name permissions, not tools
    ((R("mcp_*", "*", "deny"),), "mcp_github", True),
    ((R("bash", "**", "deny"),), "bash", False),  # exactly `*`
    ((), "bash", False),
]


@pytest.mark.parametrize(("rules", "tool", "hidden"), HIDE_CASES)
def test_hidden_table(rules: tuple[Rule, ...], tool: str, hidden: bool) -> None:
    rule = hiding_rule(tool, rules)
    assert (rule is not None) is hidden
    if rule is not None:
        assert rule.pattern == "*" and rule.action == "deny"


def test_request_booleans() -> None:
    rules = request_rules({"bash": False, "read": True}, Origin("cli", name="--tools"))
    assert [(r.permission, r.pattern, r.action) for r in rules] == [
        ("bash", "*", "deny"), ("read", "*", "allow")
    ]
    assert str(rules[0].origin) == "option --tools: bash"
    agent = (R("*", "*", "allow"),)
    assert hiding_rule("bash", (*agent, *rules)) is rules[0]
    assert hiding_rule("read", (*agent, *rules)) is None


# --- properties against a brute-force reference --------------------------------------------------

NAMES = ["bash", "read", "edit", "glob", "mcp_a", "mcp_b"]
permissions = st.sampled_from([*NAMES, "*", "mcp_*", "?ash", "e*"])
patterns = st.sampled_from(["*", "ls *", "ls", "git *", "*.env", "a?", "src/*", "**", ""])
actions = st.sampled_from(["allow", "deny", "ask"])
rules_st = st.builds(R, permissions, patterns, actions)
texts = st.sampled_from(["ls", "ls -la", "lsof", "git", "git push", "x.env", "ab", "src/a", "", "*"])


def brute_force(permission: str, pattern: str, rules: list[Rule]) -> tuple[str, Rule | None]:
    found = None
    for rule in rules:
        if wildcard_match(permission, rule.permission) and wildcard_match(pattern, rule.pattern):
            found = rule
    return (found.action, found) if found else ("ask", None)


@settings(max_examples=200, deadline=None)
@given(
    rulesets=st.lists(st.lists(rules_st, max_size=60), min_size=1, max_size=3),
    permission=st.sampled_from(NAMES),
    text=texts,
)
def test_evaluate_equals_brute_force(rulesets: list[list[Rule]], permission: str, text: str) -> None:
    expected_action, expected_rule = brute_force(permission, text, [r for rs in rulesets for r in rs])
    for shaped in ([tuple(rs) for rs in rulesets], rulesets, [RuleIndex(rs) for rs in rulesets]):
        decision = evaluate(permission, text, *shaped)
        assert decision.action == expected_action
        assert decision.rule is expected_rule


@settings(max_examples=200, deadline=None)
@given(rules=st.lists(rules_st, max_size=60), tool=st.sampled_from([*NAMES, "write", "patch"]))
def test_hidden_exactly_when_last_permission_rule_is_star_deny(rules: list[Rule], tool: str) -> None:
    name = permission_name(tool)
    last = None
    for rule in rules:
        if wildcard_match(name, rule.permission):
            last = rule
    expected = last is not None and last.pattern == "*" and last.action == "deny"
    assert (hiding_rule(tool, rules) is not None) is expected


def test_large_ruleset_index_matches_scan() -> None:
    rules = tuple(R(f"tool{i % 500}", f"p{i % 7}*", ("allow", "deny", "ask")[i % 3]) for i in range(5000))
    rules += (R("tool*", "p1x", "deny"),)
    for name in ("tool3", "tool499", "tool1000", "other"):
        for text in ("p1x", "p3", "q"):
            assert evaluate(name, text, rules) == evaluate(name, text, list(rules))


# --- the index against a plain linear scan, on generated rule sets (issue 31) -----------------------

_CHARS = "ab /-*? "
_generated_patterns = st.text(alphabet=_CHARS, max_size=8)
_generated_names = st.sampled_from(["bash", "read", "edit", "b*", "*", "?ead", "ba?h", "e*t", "mcp_*"])
_generated_rules = st.builds(R, _generated_names, _generated_patterns, actions)


def linear_scan(permission: str, text: str, rules: list[Rule]) -> Rule | None:
    """The oracle: every rule from the last back, each matched on its own (SPEC 4.1)."""
    for rule in reversed(rules):
        if wildcard_match(permission, rule.permission) and wildcard_match(text, rule.pattern):
            return rule
    return None


@settings(max_examples=300, deadline=None)
@given(rules=st.lists(_generated_rules, min_size=0, max_size=120),
       permission=st.sampled_from(["bash", "read", "edit", "mcp_x"]),
       texts=st.lists(st.text(alphabet=_CHARS, max_size=10), min_size=1, max_size=8))
def test_indexed_decision_equals_a_linear_scan(rules: list[Rule], permission: str, texts: list[str]) -> None:
    """Rules indexed once (by permission name, then by each pattern's literal head: what `check` and the
    deciders ask through) decide every text as a scan of every rule does, with the same deciding rule:
    last match wins, `*`, `?` and the optional ` *` tail included. Past 32 rules the index is used."""
    index = RuleIndex(rules)
    for text in texts:
        expected = linear_scan(permission, text, rules)
        for shaped in (index, tuple(rules)):
            decision = evaluate(permission, text, shaped)
            assert decision.rule is expected
            assert decision.action == (expected.action if expected else "ask")


# --- one decision for every text with a given start (FT116's spellings by shape) -------------------

@settings(max_examples=400, deadline=None)
@given(pattern=_generated_patterns, prefix=st.text(alphabet=_CHARS, max_size=6),
       rests=st.lists(st.text(alphabet=_CHARS, max_size=6), min_size=1, max_size=8))
def test_a_prefix_verdict_holds_for_every_text_with_that_start(pattern: str, prefix: str,
                                                               rests: list[str]) -> None:
    from forge_tools.permission.wildcard import MATCHES_ALL, MATCHES_NONE, prefix_verdict

    verdict = prefix_verdict(pattern, prefix)
    for rest in rests:
        if verdict == MATCHES_ALL:
            assert wildcard_match(prefix + rest, pattern), (pattern, prefix, rest)
        elif verdict == MATCHES_NONE:
            assert not wildcard_match(prefix + rest, pattern), (pattern, prefix, rest)


@settings(max_examples=300, deadline=None)
@given(rulesets=st.lists(st.lists(_generated_rules, max_size=80), min_size=1, max_size=2),
       permission=st.sampled_from(["bash", "read", "mcp_x"]),
       prefix=st.text(alphabet=_CHARS, max_size=6),
       rests=st.lists(st.text(alphabet=_CHARS, max_size=6), min_size=1, max_size=8))
def test_the_last_rule_for_a_prefix_is_every_such_texts_last_match(
        rulesets: list[list[Rule]], permission: str, prefix: str, rests: list[str]) -> None:
    """`last_rule_for_prefix`, when it answers, is the rule a linear scan finds for each text that
    starts with the prefix (indexed past 32 rules, scanned below); DEPENDS makes no claim, and a
    prefix every rule either covers or misses is answered."""
    from forge_tools.permission.evaluate import DEPENDS, last_rule_for_prefix

    every = [r for rules in rulesets for r in rules]
    for shaped in ([tuple(rs) for rs in rulesets], [RuleIndex(rs) for rs in rulesets], rulesets):
        found = last_rule_for_prefix(permission, prefix, *shaped)
        if found is DEPENDS:
            continue
        for rest in rests:
            assert linear_scan(permission, prefix + rest, every) is found, (prefix, rest)


def test_a_prefix_is_answered_when_the_rules_cover_or_miss_it() -> None:
    from forge_tools.permission.evaluate import DEPENDS, last_rule_for_prefix

    rules = [R("bash", "*", "allow"), *(R("bash", f"git sub{i} *", "deny") for i in range(40)),
             R("bash", "command *", "ask")]
    assert last_rule_for_prefix("bash", "command ", tuple(rules)) is rules[-1]
    assert last_rule_for_prefix("bash", "/bin/", tuple(rules)) is rules[0]
    assert last_rule_for_prefix("bash", "git ", tuple(rules)) is DEPENDS  # `git sub3 x` is denied
    assert last_rule_for_prefix("bash", "git sub3 ", tuple(rules)) is rules[4]
