"""YAML merge keys (`<<`) keep document order: order is meaning in a permission map (last match wins)."""

from __future__ import annotations

from pathlib import Path

import pytest

from forge_tools.config.formats.yaml_format import parse_yaml
from forge_tools.errors import ConfigError
from forge_tools.origin import Origin

BASE = Origin("file", path="cfg.yaml")


def bash_items(text: str) -> list[tuple[str, str]]:
    node = parse_yaml(text, BASE).get("permission")
    assert node is not None
    bash = node.get("bash")
    assert bash is not None
    return [(k, v.value) for k, v in bash.items()]


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        # merge first: its keys come before the keys written below it
        ('    <<: {"*": ask, "git *": allow}\n    "rm *": deny\n',
         [("*", "ask"), ("git *", "allow"), ("rm *", "deny")]),
        # merge last: its keys come after
        ('    "rm *": deny\n    <<: {"*": ask, "git *": allow}\n',
         [("rm *", "deny"), ("*", "ask"), ("git *", "allow")]),
        # merge in the middle
        ('    "*": ask\n    <<: {"git *": allow}\n    "rm *": deny\n',
         [("*", "ask"), ("git *", "allow"), ("rm *", "deny")]),
        # an explicit key wins in value and keeps its own place, before or after the merge
        ('    <<: {"*": ask, "rm *": deny}\n    "*": allow\n',
         [("rm *", "deny"), ("*", "allow")]),
        ('    "rm *": ask\n    <<: {"*": ask, "rm *": deny}\n',
         [("rm *", "ask"), ("*", "ask")]),
        # a list of merges: list order, the earlier mapping wins a key both have (YAML 1.1)
        ('    <<: [{"*": ask, "git *": allow}, {"git *": deny, "rm *": deny}]\n    "ls *": allow\n',
         [("*", "ask"), ("git *", "allow"), ("rm *", "deny"), ("ls *", "allow")]),
    ],
)
def test_merged_keys_take_the_place_of_the_merge_key(body: str, expected: list[tuple[str, str]]) -> None:
    assert bash_items("permission:\n  bash:\n" + body) == expected


def test_merge_through_anchors_keeps_order_and_origins() -> None:
    text = ('base: &b\n  "*": ask\n  "git *": allow\npermission:\n  bash:\n    <<: *b\n    "rm *": deny\n')
    tree = parse_yaml(text, BASE)
    perm = tree.get("permission")
    assert perm is not None and perm.get("bash") is not None
    bash = perm.get("bash")
    assert bash is not None
    assert list(bash.value) == ["*", "git *", "rm *"]
    star = bash.get("*")
    assert star is not None and star.key_origin is not None
    assert (star.key_origin.line, star.key_origin.column) == (2, 3)  # where the rule was written


def test_two_merge_keys_in_one_mapping_are_a_located_error() -> None:
    text = 'permission:\n  bash:\n    <<: {"*": ask}\n    "rm *": deny\n    <<: {"git *": allow}\n'
    with pytest.raises(ConfigError) as info:
        parse_yaml(text, BASE)
    assert info.value.origin is not None and info.value.origin.line == 5
    assert "<<: [*a, *b]" in info.value.message


def test_merge_of_a_scalar_is_a_located_error() -> None:
    with pytest.raises(ConfigError) as info:
        parse_yaml("permission:\n  <<: [{read: allow}, deny]\n", BASE)
    assert info.value.origin is not None and info.value.origin.line == 2


def test_rm_stays_denied_through_the_cli(project: Path, cli) -> None:  # type: ignore[no-untyped-def]
    (project / "forge.yaml").write_text(
        'permission:\n  bash:\n    <<: {"*": ask, "git *": allow}\n    "rm *": deny\n')
    code, out, err = cli("explain", "bash", "--call", '{"command": "rm -rf x"}')
    assert "DENY" in out, out + err
    code, out, err = cli("config")
    assert code == 0
    lines = [line for line in out.splitlines() if line.startswith("permission.")]
    assert lines == ['permission.bash."*" = "ask"', 'permission.bash."git *" = "allow"',
                     'permission.bash."rm *" = "deny"']


