"""Config `permission` / `tools` nodes -> ordered rules with origins (SPEC 4.2)."""

from __future__ import annotations

from typing import Any

import pytest

from forge_tools.errors import ConfigError
from forge_tools.origin import Node, Origin
from forge_tools.permission.rules import expand_home, rules_from_config

HOME = "/home/me"


def node(data: Any, path: str = "forge.json") -> Node:
    return Node.from_plain(data, Origin("file", path=path))


def triples(permission: Any = None, tools: Any = None) -> list[tuple[str, str, str]]:
    rules = rules_from_config(
        node(permission) if permission is not None else None,
        node(tools) if tools is not None else None,
        HOME,
    )
    return [(r.permission, r.pattern, r.action) for r in rules]


def test_one_action_form() -> None:
    assert triples("deny") == [("*", "*", "deny")]


def test_map_form_keeps_file_order() -> None:
    got = triples({"bash": {"*": "ask", "git *": "allow", "rm *": "deny"}, "edit": "deny", "*": "allow"})
    assert got == [
        ("bash", "*", "ask"), ("bash", "git *", "allow"), ("bash", "rm *", "deny"),
        ("edit", "*", "deny"), ("*", "*", "allow"),
    ]


def test_tools_come_first_and_fold_the_edit_family() -> None:
    got = triples({"bash": "ask"}, {"write": False, "bash": True, "patch": True, "multiedit": False,
                                    "apply_patch": False, "webfetch": False})
    # as opencode 1.18.33 merges them: one key per permission name, the converted keys first, an
    # explicit key replacing the converted one in its place (tests/compat records what it answered)
    assert got == [("edit", "*", "deny"), ("bash", "*", "ask"), ("webfetch", "*", "deny")]


def test_explicit_key_replaces_the_converted_one_in_place() -> None:
    got = triples({"*": "ask", "grep": {"*.py": "allow"}, "webfetch": "allow"},
                  {"webfetch": False, "grep": False, "write": False, "edit": True})
    assert got == [("webfetch", "*", "allow"), ("grep", "*.py", "allow"), ("edit", "*", "allow"),
                   ("*", "*", "ask")]


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        ("~/x/*", "/home/me/x/*"),
        ("~", "/home/me"),
        ("$HOME/.ssh/*", "/home/me/.ssh/*"),
        ("$HOME", "/home/me"),
        ("~other/x", "~other/x"),  # another user's home is not ours
        ("$HOMEDIR/x", "$HOMEDIR/x"),  # another variable
        ("$HOME_2/x", "$HOME_2/x"),
        ("$HOME*", "/home/me*"),  # as opencode: the variable ends where a name cannot go on
        ("$HOME.bak/*", "/home/me.bak/*"),
        ("~*", "~*"),  # opencode expands `~` only alone or before `/`
        ("src/~/x", "src/~/x"),
    ],
)
def test_home_expansion(pattern: str, expected: str) -> None:
    assert expand_home(pattern, HOME) == expected
    assert triples({"read": {pattern: "deny"}}) == [("read", expected, "deny")]


def test_permission_names_are_not_expanded() -> None:
    assert triples({"~": "deny"}) == [("~", "*", "deny")]


def test_origins_point_at_the_key() -> None:
    perm = node({"bash": {"rm *": "deny"}, "edit": "ask"})
    rules = rules_from_config(perm, None, HOME)
    assert rules[0].origin.key_path == ("bash", "rm *")
    assert rules[1].origin.key_path == ("edit",)
    assert str(rules[0].origin) == 'forge.json: bash."rm *"'  # quoted as `config` prints it


@pytest.mark.parametrize(
    ("permission", "tools", "message"),
    [
        ({"bash": "allwo"}, None, "did you mean 'allow'"),
        ("yes", None, "unknown action"),
        ({"bash": {"*": 3}}, None, "unknown action"),
        ({"bash": 3}, None, "must be an action"),
        ([1], None, "must be an action or a map"),
        (None, {"bash": "no"}, "true or false"),
        (None, ["bash"], "map tool names"),
    ],
)
def test_bad_input_is_a_located_config_error(permission: Any, tools: Any, message: str) -> None:
    with pytest.raises(ConfigError) as info:
        triples(permission, tools)
    assert message in info.value.one_line()
    assert info.value.origin is not None and info.value.origin.path == "forge.json"
