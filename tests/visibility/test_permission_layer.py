"""Layer three (SPEC 3.3): hiding by the last rule for a permission, and per-request booleans."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from forge_tools.origin import Origin
from forge_tools.permission.wildcard import wildcard_match
from forge_tools.rule import Rule
from forge_tools.visibility.permission_layer import (
    LastRuleIndex,
    hiding_rule,
    permission_layer,
    request_rules,
)

CFG = Origin("file", path="forge.toml", line=3, column=1)
CLI = Origin("cli", name="--tools")


def rules(*specs: tuple[str, str, str]) -> list[Rule]:
    return [Rule(p, pat, a, CFG) for p, pat, a in specs]  # type: ignore[arg-type]


def judge(tool: str, configured: list[Rule], overrides: dict[str, bool] | None = None):
    overrides = overrides or {}
    return permission_layer([tool], configured, request_rules(overrides, CLI), overrides)[tool]


def test_only_a_last_star_deny_hides() -> None:
    base = rules(("*", "*", "allow"))
    assert judge("bash", base + rules(("bash", "*", "deny"))).hidden_at == "permission"
    assert judge("bash", base + rules(("bash", "*", "deny"), ("bash", "git *", "allow"))).kept
    assert judge("bash", base + rules(("bash", "rm *", "deny"))).kept
    assert judge("bash", base + rules(("bash", "*", "ask"))).kept
    assert judge("bash", rules(("*", "*", "deny"))).hidden_at == "permission"


def test_edit_family_folds_into_edit() -> None:
    configured = rules(("*", "*", "allow"), ("edit", "*", "deny"))
    for tool in ("edit", "write", "apply_patch"):
        v = judge(tool, configured)
        assert v.hidden_at == "permission"
        assert "edit" in v.permission_reason


def test_the_deciding_rule_is_reported_with_its_origin() -> None:
    v = judge("webfetch", rules(("*", "*", "allow"), ("web*", "*", "deny")))
    assert v.permission_rule is not None and v.permission_rule.permission == "web*"
    assert "forge.toml:3:1" in v.permission_reason


def test_request_false_drops_exactly_that_tool() -> None:
    # `write: false` is the rule `write * deny`, which no tool's permission name matches (write folds
    # into edit), and it drops exactly the tool `write`.
    configured = rules(("*", "*", "allow"))
    assert judge("write", configured, {"write": False}).hidden_at == "request"
    assert judge("edit", configured, {"write": False}).kept
    # `edit: false` hides every edit-family tool through the rule, and `edit` itself by name.
    assert judge("edit", configured, {"edit": False}).hidden_at == "request"
    assert judge("apply_patch", configured, {"edit": False}).hidden_at == "request"
    assert judge("bash", configured, {"edit": False}).kept


def test_request_true_re_allows_after_a_hiding_rule() -> None:
    configured = rules(("*", "*", "allow"), ("bash", "*", "deny"))
    v = judge("bash", configured, {"bash": True})
    assert v.kept
    assert not v.permission_kept and v.request_kept
    assert "re-allowed" in v.request_reason


def test_both_verdicts_are_computed_when_rules_and_request_both_hide() -> None:
    configured = rules(("*", "*", "allow"), ("bash", "*", "deny"))
    v = judge("bash", configured, {"bash": False})
    assert not v.permission_kept and not v.request_kept
    assert v.hidden_at == "permission"


def test_without_request_booleans_the_request_layer_keeps() -> None:
    v = judge("bash", rules(("bash", "*", "deny")))
    assert not v.permission_kept and v.request_kept and v.request_rule is None


_names = st.sampled_from(
    ["bash", "edit", "read", "mcp_x", "mcp_y", "*", "mcp_*", "b?sh", "re*", "ls *", "a\\b"])
_rule = st.builds(lambda p, pat, a: Rule(p, pat, a, CFG), _names, st.sampled_from(["*", "x", "a*"]),
                  st.sampled_from(["allow", "deny", "ask"]))


@settings(max_examples=200, deadline=None)
@given(st.lists(_rule, max_size=30), st.sampled_from(["bash", "edit", "read", "mcp_x", "ls", "ls -la", "a/b",
                                                       "bish", "zzz"]))
def test_the_index_finds_the_last_rule_whose_permission_matches(ruleset: list[Rule], name: str) -> None:
    last = next((r for r in reversed(ruleset) if wildcard_match(name, r.permission)), None)  # by hand
    assert LastRuleIndex(ruleset).last(name) == last
    hidden = judge(name, ruleset).hidden_at == "permission"
    assert hidden == (last is not None and last.pattern == "*" and last.action == "deny")
    assert (hiding_rule(name, ruleset) is not None) == hidden
