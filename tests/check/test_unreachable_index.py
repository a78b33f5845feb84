"""The indexed unreachable-rule search finds exactly what the plain pairwise search finds, and its cheap
pre-filter never rejects a pair that the exact subsumption test accepts."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from forge_tools.check.analysis import covers, dead_rules
from forge_tools.origin import Origin
from forge_tools.permission.wildcard import literal_head, literal_tail, may_subsume, pattern_subsumes
from forge_tools.rule import Rule

patterns = st.text(alphabet="ab *?/\\", max_size=6)
names = st.sampled_from(["bash", "read", "*", "b*", "ba?h", "edit"])
actions = st.sampled_from(["allow", "ask", "deny"])


@given(patterns, patterns)
@settings(max_examples=1500, deadline=None)
def test_prefilter_is_a_necessary_condition(general: str, specific: str) -> None:
    if pattern_subsumes(general, specific):
        assert may_subsume(general, specific)
        assert literal_head(specific).startswith(literal_head(general))
        assert literal_tail(specific).endswith(literal_tail(general))


def _naive_dead(ruleset: tuple[Rule, ...]) -> dict[Rule, Rule]:
    dead: dict[Rule, Rule] = {}
    for i, rule in enumerate(ruleset):
        for later in ruleset[i + 1:]:
            if pattern_subsumes(later.permission, rule.permission) and pattern_subsumes(later.pattern,
                                                                                      rule.pattern):
                dead[rule] = later
                break
    return dead


@given(st.lists(st.tuples(names, patterns, actions), max_size=25))
@settings(max_examples=300, deadline=None)
def test_indexed_search_equals_pairwise(items: list[tuple[str, str, str]]) -> None:
    ruleset = tuple(Rule(n, p, a, Origin("file", "forge.json", i + 1, 1))  # type: ignore[arg-type]
                    for i, (n, p, a) in enumerate(items))
    assert dead_rules(ruleset) == _naive_dead(ruleset)
    for rule, later in dead_rules(ruleset).items():
        assert covers(later, rule)


def test_large_config_finds_the_planted_unreachable_rules(project: Path, cli) -> None:
    """Many rules with leading wildcards (no literal prefix to index on) still give the exact answer."""
    bash = {f"*/gen{i}/*": "allow" for i in range(300)}
    bash["*/gen7/x"] = "deny"  # dead: covered by the later "*/gen7/?"
    bash["*/gen7/?"] = "ask"
    bash["cmd 1"] = "deny"  # dead: covered by "cmd *"
    bash["cmd *"] = "allow"
    (project / "forge.json").write_text(json.dumps({"permission": {"bash": bash}}, indent=1))
    _code, out, _ = cli("check", "--format", "json")
    found = [f for f in json.loads(out)["findings"] if f["code"] == "FT103"]
    dead = sorted(f["location"]["key_path"][-1] for f in found)
    assert dead == ["*/gen7/x", "cmd 1"]


@given(st.lists(st.tuples(names, patterns, actions), max_size=12),
       st.lists(st.tuples(names, patterns, actions), max_size=6))
@settings(max_examples=150, deadline=None)
def test_shared_top_level_analysis_equals_per_agent_analysis(
        top: list[tuple[str, str, str]], own: list[tuple[str, str, str]]) -> None:
    """The top-level rules are analysed once for all agents; each agent's answer must still be exactly
    `dead_rules` of its own full ruleset (one agent here has its own rules after the top level)."""
    import tempfile

    from forge_tools.check.analysis import dead_rules_by_agent
    from forge_tools.check.context import build_context
    from forge_tools.config import LoadOptions, load_config

    def perm(items: list[tuple[str, str, str]]) -> dict[str, dict[str, str]]:
        out: dict[str, dict[str, str]] = {}
        for n, p, a in items:
            out.setdefault(n, {})[p] = a
        return out

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / ".git").mkdir()
        config = {"permission": perm(top), "agent": {"plan": {"permission": perm(own)}}}
        (root / "forge.json").write_text(json.dumps(config))
        ctx = build_context(load_config(LoadOptions(cwd=root, env={"HOME": tmp})))
    shared = dead_rules_by_agent(ctx)
    assert shared == {a.name: dead_rules(tuple(a.ruleset)) for a in ctx.enabled_agents}
