"""TOML array items get a line and column (a `plugin` entry, a list of instructions), in one-line and
multi-line arrays, nested arrays and inline tables: the tree-sitter syntax tree locates every one."""

from __future__ import annotations

import json
from typing import Any

import pytest

from forge_tools.config.formats.toml_format import parse_toml, toml_positions
from forge_tools.origin import Node, Origin

BASE = Origin("file", path="forge.toml")


def pos(node: Node) -> tuple[int | None, int | None]:
    return node.origin.line, node.origin.column


def written_at(text: str, node: Node) -> str:
    """The text from the node's position to the end of its line."""
    line, col = pos(node)
    assert line is not None and col is not None
    return text.splitlines()[line - 1][col - 1:]


def assert_points_at_its_value(text: str, node: Node) -> None:
    """A located item starts with its own value as written (the test data has no escapes)."""
    value: Any = node.value
    rest = written_at(text, node)
    if isinstance(value, str):
        assert rest.startswith((json.dumps(value), f"'{value}'")), (value, rest)
    else:
        assert rest.startswith(json.dumps(value)), (value, rest)


def test_one_line_array_items_are_located() -> None:
    text = 'model = "a/b"\nplugin = ["plug/a.py", \'plug/b.py\',"c.py" ]\n'
    tree = parse_toml(text, BASE)
    items = tree.value["plugin"].value
    line = text.splitlines()[1]
    assert [pos(n) for n in items] == [(2, line.index('"plug/a') + 1), (2, line.index("'plug/b") + 1),
                                       (2, line.index('"c.py') + 1)]
    for n in items:
        assert_points_at_its_value(text, n)
        assert n.origin.key_path[-1] == str(items.index(n))


def test_multi_line_array_items_are_located() -> None:
    text = (
        "plugin = [\n"
        '  "a.py",  # a comment with ] and [ and "quotes"\n'
        '  "b.py", "c]d.py",\n'
        "  'e.py'\n"
        '  , "f\\"g.py",\n'
        "\n"
        '  "h.py"]\n'
        'after = "x"\n'
        "[agent.build]\n"
        "numbers = [\n  1, 2.5,\n  true,\n]\n"
    )
    tree = parse_toml(text, BASE)
    items = tree.value["plugin"].value
    assert [n.value for n in items] == ["a.py", "b.py", "c]d.py", "e.py", 'f"g.py', "h.py"]
    assert [pos(n) for n in items] == [(2, 3), (3, 3), (3, 11), (4, 3), (5, 5), (7, 3)]
    for n in items[:4] + items[5:]:
        assert_points_at_its_value(text, n)
    assert pos(tree.value["after"]) == (8, 9)  # the key after the array is still found
    numbers = tree.value["agent"].get("build").value["numbers"].value
    assert [pos(n) for n in numbers] == [(11, 3), (11, 6), (12, 3)]
    for n in numbers:
        assert_points_at_its_value(text, n)


def test_items_of_an_array_of_tables_and_of_a_table() -> None:
    text = '[[x]]\ny = ["a"]\n[[x]]\ny = [\n  "b",\n  "c",\n]\n[x.z]\nw = ["d"]\n'
    found = toml_positions(text)
    assert found[("x", "0", "y", "0")][1] == (2, 6)
    assert found[("x", "1", "y", "0")][1] == (5, 3)
    assert found[("x", "1", "y", "1")][1] == (6, 3)
    assert found[("x", "1", "z", "w", "0")][1] == (9, 6)


@pytest.mark.parametrize("text,where", [
    # nested arrays and inline tables: every item, before and after them, at its own text
    ('a = ["x", ["y"], "z"]\n', {"0": '"x"', "1": '["y"]', "2": '"z"'}),
    ('a = [\n  "x",\n  { b = 1 },\n  "z",\n]\n', {"0": '"x"', "1": "{ b", "2": '"z"'}),
    # a multi-line string item, and the items after it
    ('a = [\n  "x",\n  """y\nz""",\n  "w",\n]\n', {"0": '"x"', "1": '"""y', "2": '"w"'}),
    # a date-time written with a space is one value
    ('a = [1979-05-27 07:32:00, "x"]\n', {"0": "1979-05-27 07:32:00", "1": '"x"'}),
])
def test_every_item_is_located(text: str, where: dict[str, str]) -> None:
    found = toml_positions(text)
    lines = text.splitlines()
    for index, starts_with in where.items():
        line, col = found[("a", index)][1]
        assert line is not None and col is not None
        assert lines[line - 1][col - 1:].startswith(starts_with), (index, lines[line - 1][col - 1:])
    tree = parse_toml(text, BASE)
    for index in where:
        assert tree.value["a"].value[int(index)].origin.line is not None


def test_empty_arrays_have_no_items() -> None:
    found = toml_positions('a = []\nb = [ ]\nc = [\n]\n')
    assert not any(len(keys) > 1 for keys in found)


def test_an_inline_array_in_an_inline_table_is_located() -> None:
    text = 'p = { a = ["x", "y"] }\n'
    found = toml_positions(text)
    assert found[("p", "a", "0")][1] == (1, text.index('"x"') + 1)
    assert found[("p", "a", "1")][1] == (1, text.index('"y"') + 1)
    assert found[("p", "a")][1] == (1, 11)
