"""TOML (`.toml`): values from tomllib (the standard library's reference reader), positions from the
tree-sitter TOML grammar, snippets and an order-keeping writer whose strings and keys tomli-w escapes.

tomllib gives no positions, so the syntax tree of tree-sitter-toml supplies the line and column of
every key, table header, value and array item: dotted keys, quoted and escaped keys (decoded by
tomllib, so `"edt\\u0069"` is the key `edti` at its own line), inline tables, arrays of tables. Both
libraries are imported only when a TOML file is read.
"""

from __future__ import annotations

import datetime
import re
import sys
import tomllib
from functools import lru_cache
from typing import TYPE_CHECKING, Any, ClassVar

from forge_tools.config.formats.base import (
    MAX_DEPTH,
    ConfigFormat,
    at,
    check_depth,
    too_many_digits,
)
from forge_tools.errors import ConfigError, ConfigProblem, UsageError
from forge_tools.origin import Node, Origin, format_key_path

if TYPE_CHECKING:
    from tree_sitter import Node as SyntaxNode
    from tree_sitter import Parser


class TomlFormat(ConfigFormat):
    name: ClassVar[str] = "toml"
    suffixes: ClassVar[tuple[str, ...]] = (".toml",)
    label: ClassVar[str] = "TOML"

    def lexer(self) -> Any:
        from pygments.lexers import TOMLLexer

        return TOMLLexer()

    def parse(self, text: str, base: Origin) -> Node:
        return parse_toml(text, base)

    def dump(self, data: Any) -> str:
        dropped: list[str] = []
        cleaned = _drop_nulls(data, (), dropped)
        note = "".join(f"# {key} = null (omitted: TOML has no null)\n" for key in dropped)
        return note + toml_dumps(cleaned)

    def key(self, key: str) -> str:
        return toml_key(key)

    def string(self, value: str) -> str:
        return toml_string(value)

    def inline(self, data: Any) -> str:
        return _toml_value(data)

    def pair(self, key: str, text: str) -> str:
        return f"{self.key(key)} = {text}"

    def assignment(self, keys: list[str], pairs: list[tuple[str, str]], nested: bool) -> str:
        """A dotted key set to an inline table (`agent.build.permission = {...}`), or, for one pair
        when `nested`, the dotted key of that pair (`agent.build.permission.edit = "ask"`)."""
        if nested and len(pairs) == 1:
            return self.set_at([*keys, pairs[0][0]], self.string(pairs[0][1]))
        return self.set_at(keys, self.mapping(pairs))

    def set_at(self, keys: list[str], text: str) -> str:
        """A dotted key: `agent.build.permission = ...`."""
        return f"{dotted(tuple(keys))} = {text}"

    def later_entry(self, section: str, key: str, value: str) -> str:
        return f"{section}.{self.entry(key, value)}"

    def later_assignment(self, section: str, key: str, pairs: list[tuple[str, str]]) -> str:
        return f"{section}.{self.assignment([key], pairs, nested=False)}"

    def in_map(self, section: str) -> str:
        return ""


FORMAT = TomlFormat()


# ------------------------------------------------------------------------------------------ reading

_TOML_POS = re.compile(r"\(at line (\d+), column (\d+)\)")


def parse_toml(text: str, base: Origin) -> Node:
    """TOML through tomllib; every key and value located through the tree-sitter syntax tree."""
    try:
        data = tomllib.loads(text)
    except RecursionError:
        raise ConfigError(f"invalid TOML: nested more than {MAX_DEPTH} levels deep", at(base, 1, 1, ()),
                          code=ConfigProblem.SYNTAX) \
            from None
    except tomllib.TOMLDecodeError as exc:
        raise _decode_error(str(exc), text, base) from None
    except ValueError as exc:  # not a TOMLDecodeError: an integer with more digits than Python converts
        huge = _huge_integer(text)
        if huge is None:
            raise ConfigError(f"invalid TOML: {exc}", at(base, 1, 1, ()), code=ConfigProblem.SYNTAX) from None
        (line, col), digits = huge
        raise too_many_digits(digits, at(base, line, col, ()), "TOML") from None
    positions = toml_positions(text)

    def convert(value: Any, keys: tuple[str, ...], is_key: bool) -> Node:
        key_pos, value_pos = positions.get(keys, ((None, None), (None, None)))
        here = at(base, *value_pos, keys) if value_pos[0] else at(base, *key_pos, keys)
        key_origin = at(base, *key_pos, keys) if is_key else None
        check_depth(keys, here)
        if isinstance(value, dict):
            children = {str(k): convert(v, (*keys, str(k)), True) for k, v in value.items()}
            return Node(children, here, key_origin)
        if isinstance(value, list):
            return Node([convert(v, (*keys, str(i)), False) for i, v in enumerate(value)], here, key_origin)
        if isinstance(value, datetime.date | datetime.time):
            return Node(value.isoformat(), here, key_origin)
        return Node(value, here, key_origin)

    try:
        return convert(data, (), False)
    finally:
        # the closure refers to itself: a cycle that kept `positions` and `data` alive while commands
        # run with cycle collection paused; unbinding the name breaks it
        convert = None  # type: ignore[assignment]


def _decode_error(message: str, text: str, base: Origin) -> ConfigError:
    """tomllib's message, shortened, at its line and column (moved to the key for a repeated key)."""
    found = _TOML_POS.search(message)
    line, col = (int(found.group(1)), int(found.group(2))) if found else (None, None)
    if found is None and "end of document" in message:
        line = text.count("\n") + 1
        col = len(text) - (text.rfind("\n") + 1) + 1
    short = _TOML_POS.sub("", message).strip()
    lines = text.splitlines()
    text_line = lines[line - 1] if line is not None and 0 < line <= len(lines) else ""
    duplicate = re.fullmatch(r"Duplicate inline table key '(.+)'", short)
    if duplicate and line is not None and col is not None:
        # tomllib points after the inline table; point at the key written the second time
        name = re.escape(duplicate.group(1))
        found_keys = list(re.finditer(rf"""(?<![\w"'-])(?:{name}|"{name}"|'{name}')\s*=""", text_line[:col]))
        if found_keys:
            col = found_keys[-1].start() + 1
        short = f"duplicate key '{duplicate.group(1)}' in an inline table"
    if line is not None and ("overwrite" in short or "twice" in short):
        # tomllib points after the value; the key that repeats is at the start of the line
        col = len(text_line) - len(text_line.lstrip()) + 1
        short = f"{short} (a key or table is defined twice)"
    return ConfigError(f"invalid TOML: {short}", at(base, line, col, ()), code=ConfigProblem.SYNTAX)


@lru_cache(maxsize=1)
def _parser() -> Parser:
    from tree_sitter import Parser

    from forge_tools.grammars import language

    return Parser(language("tree_sitter_toml"))


Pos = tuple[int | None, int | None]
Positions = dict[tuple[str, ...], tuple[Pos, Pos]]


class _Located:
    """Line and column (1-based, in characters) of tree-sitter nodes of one text."""

    def __init__(self, text: str, source: bytes) -> None:
        self.source = source
        self.ascii = text.isascii()

    def __call__(self, node: SyntaxNode) -> tuple[int, int]:
        row, byte_col = node.start_point
        if self.ascii:
            return row + 1, byte_col + 1
        line_start = node.start_byte - byte_col
        return row + 1, len(self.source[line_start:node.start_byte].decode("utf-8", "replace")) + 1


def toml_positions(text: str) -> Positions:
    """Key path -> (key position, value position) for every key, table header, value and array item
    of a valid TOML text (an array item's key path ends in its index; a `[table]` or `[[array]]`
    header is the value position of its table). A part of the text the grammar cannot read (it and
    tomllib disagree only on rare corners) is left out, so those origins keep their key path."""
    source = text.encode("utf-8")
    root = _parser().parse(source).root_node
    pos = _Located(text, source)
    found: Positions = {}
    aot_count: dict[tuple[str, ...], int] = {}

    def resolve(keys: tuple[str, ...]) -> tuple[str, ...]:
        """`[a.b]` after `[[a]]` means the last element of array `a`: insert its index."""
        out: tuple[str, ...] = ()
        for key in keys:
            out = (*out, key)
            if out in aot_count:
                out = (*out, str(aot_count[out] - 1))
        return out

    def header(node: SyntaxNode) -> tuple[tuple[str, ...], tuple[int, int]] | None:
        key = next((c for c in node.named_children if c.type in _KEY_TYPES), None)
        if key is None:
            return None
        parts = _key_parts(key)
        return (parts, pos(key)) if parts is not None else None

    for child in root.named_children:
        if child.type == "pair":
            _pair(child, (), found, pos)
            continue
        if child.type not in ("table", "table_array_element"):
            continue
        head = header(child)
        if head is None:
            continue
        keys, key_pos = head
        if child.type == "table":
            table = resolve(keys[:-1]) + keys[-1:]
        else:
            array = resolve(keys[:-1]) + keys[-1:]
            index = aot_count.get(array, 0)
            aot_count[array] = index + 1
            found.setdefault(array, (key_pos, pos(child)))
            table = (*array, str(index))
        found[table] = (key_pos, pos(child))
        for n in range(1, len(table)):  # `[agent.build]` makes `agent`: it is written here first
            found.setdefault(table[:n], (key_pos, pos(child)))
        for item in child.named_children:
            if item.type == "pair":
                _pair(item, table, found, pos)
    return found


_KEY_TYPES = ("bare_key", "quoted_key", "dotted_key")


def _key_parts(node: SyntaxNode) -> tuple[str, ...] | None:
    """The parts of a (dotted) key, each decoded as TOML decodes it; None when unreadable."""
    if node.type == "dotted_key":
        parts: tuple[str, ...] = ()
        for child in node.named_children:
            sub = _key_parts(child)
            if sub is None:
                return None
            parts += sub
        return parts
    raw = (node.text or b"").decode("utf-8", "replace")
    if node.type == "bare_key":
        return (raw,)
    if node.type != "quoted_key":
        return None
    if raw.startswith("'") or "\\" not in raw:
        return (raw[1:-1],)
    try:  # an escaped key: tomllib decodes it exactly as it decoded the file
        decoded = tomllib.loads(f"{raw} = 0")
    except tomllib.TOMLDecodeError:
        return None
    return (next(iter(decoded)),)


def _pair(node: SyntaxNode, prefix: tuple[str, ...], found: Positions, pos: _Located) -> None:
    """Locate one `key = value` (and everything inside its value) under `prefix`; a comment after the
    value can be a child of the pair, so comments are skipped."""
    children = [c for c in node.named_children if c.type != "comment"]
    if len(children) < 2 or children[0].type not in _KEY_TYPES:
        return
    parts = _key_parts(children[0])
    if parts is None:
        return
    key_pos = pos(children[0])
    path = prefix + parts
    found[path] = (key_pos, pos(children[-1]))
    for n in range(len(prefix) + 1, len(path)):  # dotted keys create their parents here
        found.setdefault(path[:n], (key_pos, key_pos))
    _value(children[-1], path, found, pos)


def _value(node: SyntaxNode, path: tuple[str, ...], found: Positions, pos: _Located) -> None:
    if node.type == "inline_table":
        for item in node.named_children:
            if item.type == "pair":
                _pair(item, path, found, pos)
    elif node.type == "array":
        items = [c for c in node.named_children if c.type != "comment"]
        for i, item in enumerate(items):
            here = pos(item)
            found[(*path, str(i))] = (here, here)
            _value(item, (*path, str(i)), found, pos)


def _huge_integer(text: str) -> tuple[tuple[int, int], int] | None:
    """Position and digit count of the first decimal integer longer than Python converts."""
    limit = sys.get_int_max_str_digits()
    source = text.encode("utf-8")
    pos = _Located(text, source)
    stack = [_parser().parse(source).root_node]
    while stack:
        node = stack.pop()
        if node.type == "integer":
            digits = sum(chr(b).isdigit() for b in (node.text or b""))
            if digits > limit:
                return pos(node), digits
        stack.extend(reversed(node.children))
    return None


# ------------------------------------------------------------------------------------------ writing


def toml_string(value: str) -> str:
    """A basic TOML string, escaped by tomli-w (control characters, U+007F, quotes, backslashes)."""
    import tomli_w

    return tomli_w.dumps({"v": value}).removeprefix("v = ").rstrip("\n")


def toml_key(key: str) -> str:
    """One key: bare when TOML allows it, else quoted and escaped as a TOML string."""
    return key if re.fullmatch(r"[A-Za-z0-9_-]+", key) else toml_string(key)


def dotted(keys: tuple[str, ...]) -> str:
    return ".".join(toml_key(k) for k in keys)


def toml_dumps(data: dict[str, Any]) -> str:
    """TOML that keeps permission order: inside a permission map, a table written before a plain
    value becomes an inline table (TOML puts sub-tables after plain keys, which would reorder rules).
    """
    lines: list[str] = []
    _toml_table(data, (), lines)
    return "\n".join(lines).strip("\n") + "\n"


def _toml_table(table: dict[str, Any], name: tuple[str, ...], lines: list[str]) -> None:
    items = list(table.items())
    last_plain = max((i for i, (_, v) in enumerate(items) if not isinstance(v, dict)), default=-1)
    if "permission" not in name:  # only permission maps are order-sensitive; elsewhere prefer [tables]
        items = sorted(items, key=lambda kv: isinstance(kv[1], dict))
        last_plain = sum(1 for _, v in items if not isinstance(v, dict)) - 1
    plain = [(k, v) for i, (k, v) in enumerate(items) if i <= last_plain]
    tables = [(k, v) for i, (k, v) in enumerate(items) if i > last_plain]
    if name and (plain or not tables):
        lines += ["", f"[{dotted(name)}]"]
    lines += [f"{toml_key(k)} = {_toml_value(v)}" for k, v in plain]
    for key, sub in tables:
        _toml_table(sub, (*name, key), lines)


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value) if value == value else "nan"  # repr gives inf and -inf as TOML writes them
    if isinstance(value, str):
        return toml_string(value)
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        inner = ", ".join(f"{toml_key(k)} = {_toml_value(v)}" for k, v in value.items())
        return "{ " + inner + " }" if inner else "{}"
    raise ValueError(f"cannot write {type(value).__name__} as TOML")


def _drop_nulls(data: Any, keys: tuple[str, ...], dropped: list[str]) -> Any:
    if isinstance(data, dict):
        out = {}
        for k, v in data.items():
            if v is None:
                dropped.append(dotted((*keys, k)))  # TOML-escaped: a comment holds no control character
                continue
            out[k] = _drop_nulls(v, (*keys, k), dropped)
        return out
    if isinstance(data, list):
        for i, v in enumerate(data):
            if v is None:
                # dropping it would move the items after it, so the output would not be the config
                raise UsageError(f"{format_key_path(keys)}[{i}] is null, and TOML has no null inside a "
                                 "list; use --format json or yaml", where="--format toml")
        return [_drop_nulls(v, (*keys, str(i)), dropped) for i, v in enumerate(data)]
    return data
