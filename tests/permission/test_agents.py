"""Agents and the order of their rulesets (SPEC 4.3), subagent dispatch (SPEC 3.2, 5.3)."""

from __future__ import annotations

from typing import Any

import pytest

from forge_tools.errors import ConfigError, UnknownNameError
from forge_tools.origin import Node, Origin
from forge_tools.paths import truncation_glob
from forge_tools.permission.agents import (
    can_dispatch,
    default_agent_name,
    load_agents,
    select_agent,
    subagents_for,
)
from forge_tools.permission.evaluate import evaluate
from forge_tools.visibility.permission_layer import hiding_rule

ENV = {"HOME": "/home/me", "FORGE_DATA_DIR": "/data/forge"}
TRUNC = truncation_glob(ENV)


def tree(data: Any) -> Node:
    return Node.from_plain(data, Origin("file", path="forge.json"))


def agents(data: Any = None) -> dict[str, Any]:
    return load_agents(tree(data or {}), ENV)


def test_builtins_in_order_with_modes() -> None:
    got = agents()
    assert [(a.name, a.mode, a.builtin) for a in got.values()] == [
        ("build", "primary", True), ("plan", "primary", True),
        ("general", "subagent", True), ("explore", "subagent", True),
    ]
    assert load_agents(None, ENV).keys() == got.keys()


def test_defaults_then_agent_rules_then_tail() -> None:
    plan = agents()["plan"]
    kinds = [r.origin.kind for r in plan.ruleset]
    first_builtin = kinds.index("builtin-agent")
    assert set(kinds[:first_builtin]) == {"default"}
    assert plan.ruleset[0].permission == "*" and plan.ruleset[0].action == "allow"
    tail = plan.ruleset[-1]
    assert (tail.permission, tail.pattern, tail.action) == ("external_directory", TRUNC, "allow")
    own = [(r.permission, r.pattern, r.action) for r in plan.ruleset if r.origin.kind == "builtin-agent"]
    assert own == [
        ("question", "*", "allow"), ("plan_exit", "*", "allow"), ("task", "general", "deny"),
        ("edit", "*", "deny"), ("edit", ".forge/plans/*.md", "allow"),
    ]


@pytest.mark.parametrize(
    ("agent", "permission", "pattern", "action"),
    [
        ("build", "edit", "src/a.py", "allow"),
        ("build", "question", "*", "allow"),
        ("build", "plan_exit", "*", "deny"),
        ("build", "read", "/p/.env", "ask"),
        ("build", "read", "/p/.env.production", "ask"),
        ("build", "read", "/p/.env.example", "allow"),
        ("build", "doom_loop", "*", "ask"),
        ("build", "external_directory", "/elsewhere/*", "ask"),
        ("build", "external_directory", "/data/forge/tool-output/x.txt", "allow"),
        ("plan", "edit", "src/a.py", "deny"),
        ("plan", "edit", ".forge/plans/idea.md", "allow"),
        ("plan", "plan_exit", "*", "allow"),
        ("plan", "plan_enter", "*", "deny"),
        ("general", "todowrite", "*", "deny"),
        ("general", "question", "*", "deny"),
        ("explore", "edit", "a.py", "deny"),
        ("explore", "grep", "TODO", "allow"),
        ("explore", "read", "/p/.env", "allow"),  # explore's read allow comes after the .env rules
        ("explore", "task", "general", "deny"),
        ("explore", "external_directory", "/data/forge/tool-output/x.txt", "allow"),
    ],
)
def test_builtin_decisions(agent: str, permission: str, pattern: str, action: str) -> None:
    assert evaluate(permission, pattern, agents()[agent].ruleset).action == action


def test_explore_hides_everything_but_its_tools() -> None:
    explore = agents()["explore"]
    for tool in ("edit", "write", "task", "todowrite", "skill"):
        assert hiding_rule(tool, explore.ruleset) is not None
    for tool in ("grep", "glob", "list", "bash", "webfetch", "websearch", "read"):
        assert hiding_rule(tool, explore.ruleset) is None


def test_config_levels_in_order() -> None:
    got = agents({
        "tools": {"webfetch": False},
        "permission": {"bash": {"git *": "allow"}},
        "agent": {"build": {"tools": {"grep": True}, "permission": {"bash": {"rm *": "deny"}}}},
    })
    build = got["build"]
    configured = [(r.permission, r.pattern, r.action, r.origin.key_path) for r in build.ruleset
                  if r.origin.kind == "file"]
    assert configured == [
        ("webfetch", "*", "deny", ("tools", "webfetch")),
        ("bash", "git *", "allow", ("permission", "bash", "git *")),
        ("grep", "*", "allow", ("agent", "build", "tools", "grep")),
        ("bash", "rm *", "deny", ("agent", "build", "permission", "bash", "rm *")),
    ]
    assert build.ruleset[-1].pattern == TRUNC
    assert build.config_origin is not None
    # the plan agent gets the top level but not build's own config
    plan_file_rules = [r for r in got["plan"].ruleset if r.origin.kind == "file"]
    assert len(plan_file_rules) == 2


def test_tail_wins_over_a_blanket_deny_but_not_a_later_rule() -> None:
    got = agents({"permission": {"external_directory": "deny"}})
    assert evaluate("external_directory", "/data/forge/tool-output/a", got["build"].ruleset).action == "allow"
    assert evaluate("external_directory", "/tmp/x/*", got["build"].ruleset).action == "deny"


def test_custom_agents() -> None:
    got = agents({
        "agent": {
            "reviewer": {"description": "Reviews", "mode": "subagent", "permission": {"edit": "deny"}},
            "writer": {"model": "anthropic/claude", "hidden": True},
            "old": {"disable": True, "mode": "subagent"},
        }
    })
    assert list(got)[4:] == ["reviewer", "writer", "old"]
    reviewer, writer, old = got["reviewer"], got["writer"], got["old"]
    assert reviewer.mode == "subagent" and not reviewer.builtin
    assert str(reviewer.origin) == "forge.json: agent.reviewer"
    assert writer.mode == "all" and writer.hidden and writer.model == "anthropic/claude"
    assert old.disabled
    assert not any(r.origin.kind == "builtin-agent" for r in reviewer.ruleset)
    assert evaluate("edit", "x", reviewer.ruleset).action == "deny"
    names = [a.name for a in subagents_for(got["build"], got)]
    assert names == ["explore", "general", "reviewer", "writer"]  # sorted, no primary, no disabled


def test_task_rules_limit_subagents_and_dispatch() -> None:
    got = agents({"agent": {"build": {"permission": {"task": {"*": "allow", "explore": "deny"}}},
                            "plan": {"permission": {"task": "deny"}}}})
    assert [a.name for a in subagents_for(got["build"], got)] == ["general"]
    assert can_dispatch(got["build"])
    assert subagents_for(got["plan"], got) == []
    assert not can_dispatch(got["plan"])
    assert not can_dispatch(got["explore"])


def test_default_agent() -> None:
    got = agents()
    assert default_agent_name(tree({}), got) == "build"
    assert select_agent(got, None, tree({})).name == "build"
    data = {"default_agent": "plan"}
    assert select_agent(agents(data), None, tree(data)).name == "plan"
    data2 = {"agent": {"build": {"disable": True}}}
    assert default_agent_name(tree(data2), agents(data2)) == "plan"


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"default_agent": "plna"}, "did you mean 'plan'"),
        ({"default_agent": "explore"}, "is a subagent"),
        ({"default_agent": "plan", "agent": {"plan": {"disable": True}}}, "is disabled"),
    ],
)
def test_bad_default_agent(data: Any, message: str) -> None:
    with pytest.raises(ConfigError) as info:
        default_agent_name(tree(data), agents(data))
    assert message in info.value.one_line()


def test_unknown_agent_suggests() -> None:
    with pytest.raises(UnknownNameError) as info:
        select_agent(agents(), "expolre")
    assert info.value.suggestions == ["explore"]
    assert info.value.exit_code == 1


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"agent": {"x": {"mode": "boss"}}}, "is not one of"),
        ({"agent": {"x": "primary"}}, "must be a map"),
        ({"agent": {"x": {"disable": "yes"}}}, "true or false"),
        ({"agent": ["x"]}, "must map agent names"),
    ],
)
def test_bad_agent_config(data: Any, message: str) -> None:
    with pytest.raises(ConfigError) as info:
        agents(data)
    assert message in info.value.one_line()


def test_legacy_mode_section_defines_primary_agents_as_in_opencode() -> None:
    got = agents({
        "agent": {"review": {"description": "from agent", "model": "a/b", "mode": "subagent"}},
        "mode": {"review": {"description": "from mode", "permission": {"edit": "deny"}},
                 "writer": {"mode": "subagent", "tools": {"bash": False}}},
    })
    review, writer = got["review"], got["writer"]
    assert (review.mode, review.description, review.model) == ("primary", "from mode", "a/b")
    assert evaluate("edit", "x.py", review.ruleset).action == "deny"
    assert writer.mode == "primary" and not writer.builtin
    assert hiding_rule("bash", writer.ruleset) is not None
