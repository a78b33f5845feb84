"""Many rules cost linear work (issue 22: 200,000 rules, 8 MB of config, took minutes for `ls`). Past the
pattern cache's size every evaluation compiled every rule's pattern again; now a permission's many
rules are indexed by literal head and a look-up compiles only the patterns it tries. Counted, not timed
(bench/bench_many_rules.py has the times): the cache misses of two evaluations over 20,000 rules."""

from __future__ import annotations

from forge_tools.origin import Origin
from forge_tools.permission.evaluate import evaluate
from forge_tools.permission.wildcard import compile_pattern
from forge_tools.rule import Rule

N = 20_000  # more than compile_pattern's cache holds


def test_a_lookup_over_many_rules_compiles_only_what_it_tries() -> None:
    origin = Origin("file", path="opencode.json")
    rules = (Rule("*", "*", "ask", origin),
             *(Rule("bash", f"cmd{i} --flag *", "deny" if i % 3 == 0 else "allow", origin) for i in range(N)),
             Rule("bash", "ls *", "allow", origin))
    before = compile_pattern.cache_info().misses
    for _ in range(2):
        assert evaluate("bash", "ls -la", rules).rule == rules[-1]
        assert evaluate("bash", "cmd300 --flag x", rules).action == "deny"
        assert evaluate("bash", "cmd301 --flag", rules).action == "allow"
        assert evaluate("bash", "unknown", rules).rule == rules[0]
    assert compile_pattern.cache_info().misses - before < 50
