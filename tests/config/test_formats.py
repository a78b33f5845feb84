"""The format registry: one module per config language, each parsing with positions, writing snippets
in its own syntax (read back by the same format's parser) and dumping configs that read back equal."""

from __future__ import annotations

import json
import string
import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from forge_tools.config.formats import by_name, for_path, format_of, formats, names
from forge_tools.origin import Origin

BASE = Origin("file", path="cfg")


def test_every_format_module_is_registered_by_suffix() -> None:
    assert set(names()) == {"json", "yaml", "toml"}
    assert [format_of(p) for p in ("a.json", "a.JSONC", "a.json5", "a.yaml", "b.yml", "c.toml")] == [
        "json", "json", "json", "yaml", "yaml", "toml"]
    assert format_of("opencode") == "json" and format_of(Path("x.md")) == "json"  # opencode's default
    for fmt in formats():
        assert fmt.suffixes and all(for_path(f"x{s}") is fmt for s in fmt.suffixes)
    with pytest.raises(KeyError):
        by_name("ini")


READ_BACK = {"json": json.loads, "yaml": yaml.safe_load, "toml": tomllib.loads}
KEYS = ["edit", "git *", "rm -rf *", "my agent", 'say "hi"', "back\\slash", "tab\there", "del\x7f", "é"]


@pytest.mark.parametrize("name", ["json", "yaml", "toml"])
@pytest.mark.parametrize("key", KEYS)
def test_a_snippet_reads_back_in_its_own_format(name: str, key: str) -> None:
    fmt = by_name(name)
    pairs = [("*", "deny"), (key, "ask")]
    nested = fmt.assignment(["agent", "build", "permission"], pairs, nested=True)
    text = nested if name == "toml" else "{" + nested + "}"
    data = READ_BACK[name](text)
    assert data["agent"]["build"]["permission"] == dict(pairs), text
    one = fmt.assignment(["agent", "build", "permission"], [(key, "ask")], nested=True)
    data = READ_BACK[name](one if name == "toml" else "{" + one + "}")
    assert data["agent"]["build"]["permission"] == {key: "ask"}, one
    entry = fmt.entry(key, "allow")
    assert READ_BACK[name](entry if name == "toml" else "{" + entry + "}") == {key: "allow"}


def test_snippets_use_each_syntax() -> None:
    assert by_name("toml").entry("git *", "ask") == '"git *" = "ask"'
    assert by_name("json").entry("edit", "ask") == '"edit": "ask"'
    assert by_name("yaml").entry("edit", "ask") == "edit: ask"
    assert by_name("toml").later_entry("permission", "grep", "ask") == 'permission.grep = "ask"'
    assert by_name("json").later_entry("permission", "grep", "ask") == (
        '"grep": "ask" as a later entry of the `permission` map')


scalars = st.one_of(st.text(), st.integers(min_value=-(2**63), max_value=2**63 - 1), st.booleans(),
                    st.floats(allow_nan=False))
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=3)
                      | st.dictionaries(st.text(max_size=6), inner, max_size=3), max_leaves=8)
configs = st.dictionaries(st.text(max_size=8), values, max_size=4)


@settings(max_examples=300, deadline=None)
@given(configs)
def test_toml_dump_reads_back_equal(data: dict[str, Any]) -> None:
    # control characters (U+0000-U+001F, U+007F) in keys and strings are escaped (tomli-w)
    assert tomllib.loads(by_name("toml").dump(data)) == data


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.text(alphabet=string.printable + "\x7f\x00\x1b", max_size=6),
                       st.text(alphabet=string.printable + "\x7f\x00\x1b", max_size=6), max_size=4))
def test_a_permission_map_dumps_in_order(rules: dict[str, str]) -> None:
    data = {"permission": {"bash": {"*": "ask", **rules, "last": {"x": "y"}}, "edit": "deny"}}
    out = by_name("toml").dump(data)
    back = tomllib.loads(out)
    assert back == data and list(back["permission"]["bash"]) == list(data["permission"]["bash"])


def test_toml_dump_of_the_issue_example() -> None:
    out = by_name("toml").dump({"model": "a/\x7fb", "permission": {"bash": {"x\x7fy": "allow"}},
                                "small_model": None})
    assert "\x7f" not in out and "\\u007f" in out
    assert tomllib.loads(out) == {"model": "a/\x7fb", "permission": {"bash": {"x\x7fy": "allow"}}}
    assert out.startswith("# small_model = null")


@pytest.mark.parametrize("name,text", [
    ("json", '{"a": {"b": [1, "x"]}}'),
    ("yaml", "a:\n  b: [1, x]\n"),
    ("toml", "[a]\nb = [1, 'x']\n"),
])
def test_each_format_parses_with_positions(name: str, text: str) -> None:
    tree = by_name(name).parse(text, BASE)
    item = tree.value["a"].value["b"].value[1]
    assert item.value == "x" and item.origin.line is not None and item.origin.key_path == ("a", "b", "1")
    line = text.splitlines()[item.origin.line - 1]
    assert line[item.origin.column - 1:].lstrip("'\"").startswith("x")


def test_toml_comment_after_an_inline_table_keeps_positions(tmp_path: Path) -> None:
    """tree-sitter-toml can hang a trailing comment on the pair: the value is still located."""
    from forge_tools.config.formats import parse_text
    from forge_tools.origin import Origin

    tree = parse_text('[permission]\nbash = {"rm *" = "deny"} # keep\n', "toml",
                      Origin("file", path=str(tmp_path / "forge.toml")))
    rule = tree.value["permission"].value["bash"].value["rm *"]
    assert (rule.origin.line, rule.origin.column) == (2, 18)


def test_each_format_lives_in_the_module_named_after_it_and_claims_its_own_suffixes() -> None:
    # by_name/for_path look in `<name>_format` first: that is the registry's answer only when no two
    # formats claim one suffix and the module named after a format holds that format
    claimed = [s for fmt in formats() for s in fmt.suffixes]
    assert len(claimed) == len(set(claimed))
    for fmt in formats():
        assert type(fmt).__module__ == f"forge_tools.config.formats.{fmt.name}_format"
        assert by_name(fmt.name) is fmt


@pytest.mark.parametrize(("text", "expected"), [
    ("", False), ("plain", False), ("é and 😀", False), ("\ud800", True), ("a\udfffb", True),
    ("\ud83d\ude00", True), ("\ud7ff\ue000", False), ("x" * 1000 + "\udc80", True)])
def test_has_surrogate_finds_exactly_the_surrogate_range(text: str, expected: bool) -> None:
    from forge_tools.config.formats.base import has_surrogate

    assert has_surrogate(text) is expected
