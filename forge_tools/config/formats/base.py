"""What every config format shares: the located-tree helpers and the interface a format module fills.

A format module (json_format, yaml_format, toml_format) defines one `ConfigFormat` subclass and an
instance of it named `FORMAT`; the registry in `forge_tools.config.formats` finds it by suffix or name.
A format knows three things: how to parse text into a located `Node` tree, how to write a small
snippet in its own syntax (the fix advice of `explain` and `check`), and how to dump a whole config
(`forge-tools config --format`).
"""

from __future__ import annotations

import json
from typing import Any, ClassVar

from forge_tools.errors import ConfigError, ConfigProblem
from forge_tools.lazy_re import lazy
from forge_tools.origin import Node, Origin

#: deeper nesting is refused: no config needs it, and every later step walks the tree recursively
MAX_DEPTH = 64

_BARE_KEY = lazy(r"[A-Za-z_][A-Za-z0-9_-]*")


def at(base: Origin, line: int | None, column: int | None, keys: tuple[str, ...]) -> Origin:
    """`base` at a position and key path (built directly: `dataclasses.replace` is the slowest step
    for a config with 10,000 rules)."""
    return Origin(base.kind, base.path, line, column, base.key_path + keys, base.name)


def first_at(node: Node) -> str:
    """" (first at line N)" for a duplicate-key message, when the first key has a line."""
    first = node.key_origin
    return f" (first at line {first.line})" if first is not None and first.line else ""


def check_depth(keys: tuple[str, ...], here: Origin) -> None:
    if len(keys) > MAX_DEPTH:
        raise ConfigError(f"nested more than {MAX_DEPTH} levels deep; no config needs that", here,
                          code=ConfigProblem.SYNTAX)


def has_surrogate(text: str) -> bool:
    """Whether `text` holds a surrogate code point (U+D800-U+DFFF): exactly the text UTF-8 cannot
    encode. (A regex over that range took ~0.4 ms to compile on every start.)"""
    if text.isascii():
        return False
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def clean_text(value: str, origin: Origin) -> str:
    """`value` as real text: a surrogate pair written as two escapes (`\\ud83d\\ude00`) becomes its
    character; an unpaired one cannot be printed or compared, so it is an error at `origin`."""
    if not has_surrogate(value):
        return value
    try:
        return value.encode("utf-16-le", "surrogatepass").decode("utf-16-le")
    except UnicodeDecodeError:
        raise ConfigError("not valid text: an unpaired surrogate (a lone \\ud800-\\udfff escape, or bytes "
                          "that are not UTF-8); write the character itself", origin,
                          code=ConfigProblem.SYNTAX) from None


def position_of(text: str, index: int) -> tuple[int, int]:
    """1-based (line, column) of the character at `index` of `text`."""
    line_start = text.rfind("\n", 0, index) + 1
    return text.count("\n", 0, index) + 1, index - line_start + 1


def too_many_digits(digits: int, origin: Origin, fmt: str) -> ConfigError:
    """The error for an integer Python refuses to convert (more digits than `sys.get_int_max_str_digits`)."""
    return ConfigError(f"invalid {fmt}: an integer with {digits} digits is far too large for any setting; "
                       "write a smaller number", origin, code=ConfigProblem.SYNTAX)


class ConfigFormat:
    """One config language. Subclasses set `name`, `suffixes` and `label` and implement `parse` and
    `dump`; the snippet writers below are JSON's (which YAML shares), TOML overrides them."""

    #: the registry name (`--format` value and what `format_of` returns)
    name: ClassVar[str]
    #: the file suffixes read in this format, lower case with the dot
    suffixes: ClassVar[tuple[str, ...]]
    #: how messages name the format ("invalid JSON: ...")
    label: ClassVar[str]

    def parse(self, text: str, base: Origin) -> Node:
        """The located tree of `text`; every problem is a `ConfigError` at its line and column."""
        raise NotImplementedError

    def dump(self, data: Any) -> str:
        """A whole config (plain values, file order kept) as text in this format."""
        raise NotImplementedError

    def lexer(self) -> Any:
        """A pygments lexer for this syntax (how `check` finds suppression comments)."""
        raise NotImplementedError

    # ------------------------------------------------------------------------ snippets for fix advice

    def key(self, key: str) -> str:
        """One key as this syntax writes it (quoted unless it may stay bare)."""
        return json.dumps(key, ensure_ascii=False)

    def string(self, value: str) -> str:
        """One string value as this syntax writes it."""
        return json.dumps(value, ensure_ascii=False)

    def inline(self, data: Any) -> str:
        """Any plain value (string, number, list, map) on one line, as this syntax writes it."""
        return json.dumps(data, ensure_ascii=False)

    def pair(self, key: str, text: str) -> str:
        """`key` set to `text`, a value already written in this syntax."""
        return f"{self.key(key)}: {text}"

    def entry(self, key: str, value: str) -> str:
        """One `key: value` pair whose value is a string."""
        return self.pair(key, self.string(value))

    def mapping(self, pairs: list[tuple[str, str]]) -> str:
        """A one-line map of string values: `{"a": "x", "b": "y"}`."""
        return "{" + ", ".join(self.entry(k, v) for k, v in pairs) + "}"

    def assignment(self, keys: list[str], pairs: list[tuple[str, str]], nested: bool) -> str:
        """`keys` set to the map `pairs`, as the file would hold it: nested one object per key
        (`"agent": {"build": {"permission": {...}}}`), or, when not `nested`, only the last key, since
        the text goes where the old value was."""
        inner = self.mapping(pairs)
        return self.set_at(keys, inner) if nested else self.pair(keys[-1], inner)

    def set_at(self, keys: list[str], text: str) -> str:
        """The key path `keys` set to `text` (a value in this syntax), one object per key:
        `"agent": {"build": {"permission": ...}}`."""
        for key in reversed(keys[1:]):
            text = "{" + self.pair(key, text) + "}"
        return self.pair(keys[0], text)

    def later_entry(self, section: str, key: str, value: str) -> str:
        """How to say "add this rule after the others of map `section`" in this syntax."""
        return f"{self.entry(key, value)} as a later entry of the `{section}` map"

    def later_assignment(self, section: str, key: str, pairs: list[tuple[str, str]]) -> str:
        """How to say "add `key` set to the map `pairs` after the others of map `section`"."""
        return f"{self.assignment([key], pairs, nested=False)} as a later entry of the `{section}` map"

    def in_map(self, section: str) -> str:
        """Where a rewritten map goes, said after the snippet ("" when the snippet names it itself)."""
        return f" in the `{section}` map"


def bare_or_quoted(key: str, quote: Any = json.dumps) -> str:
    """`key` bare when it is a plain identifier-like word, else quoted by `quote`."""
    return key if _BARE_KEY().fullmatch(key) else str(quote(key))
