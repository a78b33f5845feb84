"""The benchmark's big projects (bench/ratios.py), small enough for the suite: `check`'s answers there are
the answers of the plain per-agent code path, so the speed work on the shared analyses changed nothing.
No timings are asserted (bench/ prints them)."""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path

import pytest

from forge_tools.check.analysis import AgentDeadRules, dead_rules
from forge_tools.check.context import build_context
from forge_tools.config import LoadOptions, load_config

BENCH = Path(__file__).resolve().parents[2] / "bench"


@pytest.fixture(scope="module")
def ratios():  # type: ignore[no-untyped-def]
    sys.path.insert(0, str(BENCH))
    try:
        yield importlib.import_module("ratios")
    finally:
        sys.path.remove(str(BENCH))


def test_team_project_dead_rules_are_each_agents_own(ratios, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """2,000 rules over 20 agents (the bench's 40k x 200 at a twentieth): every agent's answer for every
    rule of its ruleset is `dead_rules` of that agent's whole ruleset, and FT103 reports exactly the
    user rules dead in every agent that holds them, each with its coverers."""
    root = ratios.team_project(tmp_path / "team", 2000, 20)
    ctx = build_context(load_config(LoadOptions(cwd=root)))
    shared = AgentDeadRules(ctx)
    per_agent = {a.name: dead_rules(tuple(a.ruleset)) for a in ctx.enabled_agents}
    asked = 0
    for agent in ctx.enabled_agents:
        for rule in agent.ruleset:
            assert shared.coverer(agent.name, rule) == per_agent[agent.name].get(rule), (agent.name, rule)
            asked += 1
    assert asked > 2000 * 20 // 2 and sum(map(len, per_agent.values())) > 1000  # not a vacuous project

    from forge_tools.check.analysis import unreachable_rules

    expected = {}
    for _scope, rule in ctx.unique_user_rules():
        holders = [a.name for a in ctx.enabled_agents if rule in a.ruleset]
        if holders and all(rule in per_agent[n] for n in holders):
            expected[rule.origin] = {per_agent[n][rule].origin for n in holders}
    found = {f.origin: {r.origin for r in f.related} for f in unreachable_rules(ctx)}
    assert found == expected and len(found) >= 5


def test_team_project_check_report_is_stable(ratios, tmp_path: Path, cli, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The whole JSON report on the small team project: FT103 for dead top-level and agent rules, the
    other codes present, and the same report on a second run."""
    root = ratios.team_project(tmp_path / "team", 2000, 20)
    monkeypatch.chdir(root)
    _code, first, _ = cli("check", "--format", "json")
    _code, second, _ = cli("check", "--format", "json")
    assert first == second
    codes = {f["code"] for f in json.loads(first)["findings"]}
    assert {"FT103", "FT106"} <= codes


def test_did_you_mean_over_many_tools_finds_the_ids_one_edit_away() -> None:
    """Beyond SUGGEST_SCAN_LIMIT tool ids, only ids one edit away are compared (through the packed
    index of one-letter deletions): each kind of typo still finds its tool, and the answer is difflib's
    over exactly the ids that share a one-letter deletion with the name."""
    import difflib

    from forge_tools.check.analysis import SUGGEST_SCAN_LIMIT, NameSuggester

    tools = [f"plugin_tool_{i:06d}" for i in range(5 * SUGGEST_SCAN_LIMIT)] + ["deploy_staging"]
    suggester = NameSuggester(["bash", "edit", "read"], tools)
    typos = {"deploy_stagng": "deploy_staging", "deploy_stagiing": "deploy_staging",
             "deploy_stagimg": "deploy_staging", "deploy_stagnig": "deploy_staging",
             "plugin_tool_00042": "plugin_tool_000042", "plugin_tool_0000042": "plugin_tool_000042"}
    for typo, meant in typos.items():
        got = suggester.suggest(typo)
        mine = NameSuggester._variants(typo)
        near = sorted(t for t in tools if not mine.isdisjoint(NameSuggester._variants(t)))
        assert got == difflib.get_close_matches(typo, [*suggester.fixed, *near], n=3, cutoff=0.6)
        assert meant in near  # difflib then ranks the near ids (ties among plugin_tool_000x42 too)
        assert meant in got or not meant.startswith("deploy"), (typo, got)
    assert suggester.suggest("zzzzzzzz") == []


def test_diff_of_a_settled_old_side_is_the_whole_sides_diff(ratios, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """`diff` settles the old side before it loads the new one (keeps what the report reads, lets the
    context go): on the bench's scaled projects at 2,000 rules and tools, with expected calls for every
    agent, the report is the one the whole old side gives, and it has tool, call and rule changes."""
    from forge_tools.check.diff import diff_sides, load_side

    old = ratios.scaled_project(tmp_path / "old", 2000)
    new = ratios.scaled_project(tmp_path / "new", 2000, changed=True)
    expect = tmp_path / "expect.yaml"
    calls = [f"- {{agent: '*', call: {{tool: plugin_tool_{i:06d}, args: {{}}}}, expect: allow}}\n"
             for i in range(0, 2000, 3)]
    calls.append("- {agent: build, call: {tool: bash, args: {command: 'rm -rf x'}}, expect: deny}\n")
    expect.write_text("".join(calls))
    whole = diff_sides(load_side("old", old, True), load_side("new", new, True), expect).to_json()
    settled = load_side("old", old, True).settle(expect)
    assert settled.ctx is None and settled.settled is not None
    assert diff_sides(settled, load_side("new", new, True), expect).to_json() == whole
    assert whole["tools"] and whole["calls"] and whole["rules"], {k: len(v) for k, v in whole.items()
                                                                   if isinstance(v, list)}
