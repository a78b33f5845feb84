"""Config text -> located `Node` tree, one parser per format, every key and value with line/column.

Each parser keeps file order (permission rules are last-match-wins) and treats a duplicate key as an
error at the second key, because silently dropping one would silently drop a rule.
"""

from __future__ import annotations

import bisect
import dataclasses
import datetime
import re
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from forge_tools.errors import ConfigError
from forge_tools.origin import Node, Origin

#: file name -> format; the order within one directory is `CONFIG_FILE_ORDER` in discovery.
FORMAT_BY_SUFFIX = {
    ".json": "json",
    ".jsonc": "json",
    ".json5": "json",
    ".toml": "toml",
    ".yaml": "yaml",
    ".yml": "yaml",
}


def format_of(path: Path) -> str:
    """The parser for a file, by suffix; unknown suffixes are read as JSONC (opencode's format)."""
    return FORMAT_BY_SUFFIX.get(path.suffix.lower(), "json")


def parse_text(text: str, fmt: str, base: Origin) -> Node:
    """Parse `text` in `fmt` ("json", "yaml", "toml"); origins are `base` plus line/column/key path."""
    parser: Callable[[str, Origin], Node] = {"json": parse_json, "yaml": parse_yaml, "toml": parse_toml}[fmt]
    return parser(text, base)


def _at(base: Origin, line: int | None, column: int | None, keys: tuple[str, ...]) -> Origin:
    # direct construction: dataclasses.replace is the slowest step for a config with 10,000 rules
    return Origin(base.kind, base.path, line, column, base.key_path + keys, base.name)


def _first_at(node: Node) -> str:
    first = node.key_origin
    return f" (first at line {first.line})" if first is not None and first.line else ""


#: deeper nesting is refused: no config needs it, and every later step walks the tree recursively
MAX_DEPTH = 64


def _check_depth(keys: tuple[str, ...], here: Origin) -> None:
    if len(keys) > MAX_DEPTH:
        raise ConfigError(f"nested more than {MAX_DEPTH} levels deep; no config needs that", here)


MERGE_TAG = "tag:yaml.org,2002:merge"

_SURROGATE = re.compile("[\ud800-\udfff]")


def clean_text(value: str, origin: Origin) -> str:
    """`value` as real text: a surrogate pair written as two escapes (`\\ud83d\\ude00`) becomes its
    character; an unpaired one cannot be printed or compared, so it is an error at `origin`."""
    if _SURROGATE.search(value) is None:
        return value
    try:
        return value.encode("utf-16-le", "surrogatepass").decode("utf-16-le")
    except UnicodeDecodeError:
        raise ConfigError("not valid text: an unpaired surrogate (a lone \\ud800-\\udfff escape, or bytes "
                          "that are not UTF-8); write the character itself", origin) from None


# --------------------------------------------------------------------------------------------- JSON


def parse_json(text: str, base: Origin) -> Node:
    """JSON, JSONC and JSON5 with a position for every key and value.

    Most files are plain JSON or JSON with comments and trailing commas: those are read by the
    standard library (`fast_parse_json`), which is about 50 times faster than json-five and spares
    its import. Anything else (JSON5 syntax, or any error) goes to json-five, whose positions and
    messages are the reference; both give the same tree.
    """
    fast = fast_parse_json(text, base)
    return fast if fast is not None else parse_json5(text, base)


# Strings, then comments: scanning both in one pass keeps `//` inside a string a string. A string may
# not span lines (JSON forbids raw newlines in strings), so an unterminated one cannot swallow code.
_STRING_OR_COMMENT = re.compile(r'"(?:[^"\\\n]|\\.)*"|//[^\n]*|/\*.*?\*/', re.DOTALL)
_STRING_OR_COMMA = re.compile(r'"(?:[^"\\\n]|\\.)*"|,(?=[ \t\r\n]*[}\]])')
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[{}\[\]:,]|[^ \t\r\n{}\[\]:,"]+')
_NOT_NEWLINE = re.compile(r"[^\n]")
_MAYBE_TRAILING_COMMA = re.compile(r",[ \t\r\n]*[}\]]")


def _blank(match: re.Match[str]) -> str:
    """A comment or trailing comma as spaces, newlines kept, so every position stays where it was."""
    token = match.group(0)
    if token.startswith('"'):
        return token
    if token == ",":
        text, i = match.string, match.start() - 1
        while i >= 0 and text[i] in " \t\r\n":
            i -= 1
        return token if i < 0 or text[i] in "[{,:" else " "  # `[,]` stays an error for json-five
    return _NOT_NEWLINE.sub(" ", token)


def fast_parse_json(text: str, base: Origin) -> Node | None:
    """The tree of a strict JSON or JSONC text through the stdlib `json`, or None when the text needs
    json-five (JSON5 syntax, or an error to report with json-five's message).

    Comments and trailing commas are first replaced by spaces (positions unchanged); `json` then checks
    the syntax and decodes the values, and one regex pass over the now-valid text gives the offset of
    every token, which the walk below pairs with the decoded values.
    """
    import json

    if "//" in text or "/*" in text:
        text = _STRING_OR_COMMENT.sub(_blank, text)
    if _MAYBE_TRAILING_COMMA.search(text):
        text = _STRING_OR_COMMA.sub(_blank, text)
    try:
        data = json.loads(text, object_pairs_hook=_Pairs)
    except (ValueError, RecursionError):
        return None
    check_text = "\\u" in text or _SURROGATE.search(text) is not None
    tokens = _TOKEN.finditer(text)
    line_starts = [0, *(m.end() for m in re.finditer("\n", text))]
    kind, path, name = base.kind, base.path, base.name
    prefix = base.key_path

    def at(offset: int, keys: tuple[str, ...]) -> Origin:
        line = bisect.bisect_right(line_starts, offset)
        return Origin(kind, path, line, offset - line_starts[line - 1] + 1, prefix + keys, name)

    def convert(value: Any, keys: tuple[str, ...], key_origin: Origin | None) -> Node:
        start = next(tokens)
        here = at(start.start(), keys)
        _check_depth(keys, here)
        if isinstance(value, _Pairs):
            out: dict[str, Node] = {}
            for i, (key, item) in enumerate(value):
                if i:
                    next(tokens)  # ,
                k_origin = at(next(tokens).start(), (*keys, key))
                next(tokens)  # :
                if check_text:
                    key = clean_text(key, k_origin)
                    k_origin = dataclasses.replace(k_origin, key_path=(*keys, key))
                if key in out:
                    raise ConfigError(f"duplicate key {key!r}{_first_at(out[key])}", k_origin)
                out[key] = convert(item, (*keys, key), k_origin)
            next(tokens)  # }
            return Node(out, here, key_origin)
        if isinstance(value, list):
            items: list[Node] = []
            for i, item in enumerate(value):
                if i:
                    next(tokens)  # ,
                items.append(convert(item, (*keys, str(i)), None))
            next(tokens)  # ]
            return Node(items, here, key_origin)
        if check_text and isinstance(value, str):
            value = clean_text(value, here)
        return Node(value, here, key_origin)

    return convert(data, (), None)


class _Pairs(list[tuple[str, Any]]):
    """A JSON object as its key/value pairs in file order, duplicates kept (they are an error)."""


def parse_json5(text: str, base: Origin) -> Node:
    """JSON, JSONC and JSON5 through json-five's model (1-based line, 0-based column offsets)."""
    from json5 import model as m
    from json5.loader import ModelLoader, loads
    from json5.utils import JSON5DecodeError

    try:
        doc = loads(text, loader=ModelLoader())
    except JSON5DecodeError as exc:
        line, col, message = _json_error_position(exc, text)
        raise ConfigError(f"invalid JSON: {message}", _at(base, line, col, ())) from None
    except RecursionError:
        raise ConfigError(f"invalid JSON: nested more than {MAX_DEPTH} levels deep", _at(base, 1, 1, ())) \
            from None
    except ValueError as exc:  # escapes json-five reports without a token
        raise ConfigError(f"invalid JSON: {exc}", _at(base, 1, 1, ())) from None

    def pos(node: Any) -> tuple[int | None, int | None]:
        line = getattr(node, "lineno", None)
        col = getattr(node, "col_offset", None)
        return line, (col + 1 if col is not None else None)

    def convert(node: Any, keys: tuple[str, ...], key_origin: Origin | None) -> Node:
        here = _at(base, *pos(node), keys)
        _check_depth(keys, here)
        if isinstance(node, m.JSONObject):
            out: dict[str, Node] = {}
            for pair in node.key_value_pairs:
                key_node = pair.key
                if isinstance(key_node, m.Identifier):
                    name = key_node.name
                elif isinstance(key_node, m.String):
                    name = clean_text(key_node.characters, _at(base, *pos(key_node), keys))
                else:
                    raise ConfigError("a key must be a string", _at(base, *pos(key_node), keys))
                k_origin = _at(base, *pos(key_node), (*keys, name))
                if name in out:
                    raise ConfigError(f"duplicate key {name!r}{_first_at(out[name])}", k_origin)
                out[name] = convert(pair.value, (*keys, name), k_origin)
            return Node(out, here, key_origin)
        if isinstance(node, m.JSONArray):
            items = [convert(v, (*keys, str(i)), None) for i, v in enumerate(node.values)]
            return Node(items, here, key_origin)
        if isinstance(node, m.UnaryOp):
            inner = convert(node.value, keys, key_origin)
            value = -inner.value if node.op == "-" else inner.value
            return Node(value, here, key_origin)
        if isinstance(node, m.String):
            return Node(clean_text(node.characters, here), here, key_origin)
        if isinstance(node, m.BooleanLiteral):
            return Node(bool(node.value), here, key_origin)
        if isinstance(node, m.NullLiteral):
            return Node(None, here, key_origin)
        if isinstance(node, m.Infinity | m.NaN | m.Integer | m.Float):
            return Node(node.value, here, key_origin)
        raise ConfigError(f"unsupported JSON value {type(node).__name__}", here)

    return convert(doc.value, (), None)


_JSON_POS = re.compile(r"line (\d+) column (\d+)")
_TOKEN_WORDS = {
    "COLON": "':'", "COMMA": "','", "LBRACE": "'{'", "RBRACE": "'}'", "LBRACKET": "'['",
    "RBRACKET": "']'", "DOUBLE_QUOTE_STRING": "a string", "SINGLE_QUOTE_STRING": "a string",
    "NAME": "a bare word", "INTEGER": "a number", "FLOAT": "a number", "EOF": "end of file",
    "UNTERMINATED_DOUBLE_QUOTE_STRING": "an unterminated string",
    "UNTERMINATED_SINGLE_QUOTE_STRING": "an unterminated string",
}


def _json_error_position(exc: Any, text: str) -> tuple[int, int, str]:
    """Line, column and a short message for json-five's error (its own message is multi-line)."""
    message = str(getattr(exc, "msg", "") or exc)
    primary = message
    if "The primary error was:" in message:
        primary = message.split("The primary error was:", 1)[1].strip().splitlines()[0].strip()
    found = _JSON_POS.search(primary)
    index = getattr(exc, "index", None)
    token = getattr(exc, "token", None)
    if token is not None and isinstance(index, int) and index >= 0:
        line = text.count("\n", 0, index) + 1
        col = index - (text.rfind("\n", 0, index) + 1) + 1
    elif found:
        line, col = int(found.group(1)), int(found.group(2))
    else:
        line = text.count("\n") + 1
        col = len(text) - (text.rfind("\n") + 1) + 1
    expecting = re.search(r"\. Was expecting (.+)$", primary)
    primary = re.sub(r"\s+at(:.*)?$", "", primary)
    if expecting and "Was expecting" not in primary:
        primary += f" (expected {expecting.group(1)})"
    if primary.startswith("Syntax Error ") or primary == "Syntax Error":
        primary = "unexpected" + primary[len("Syntax Error"):]
    primary = re.sub(r"\s+in or near token (\S+)", r" (found \1)", primary)
    primary = primary.replace("Syntax Error. ", "").replace("Syntax Error: ", "")
    primary = primary.replace("Expecting value. ", "").replace("Was expecting", "expected")
    primary = primary.replace("Unexpected EOF", "unexpected end of file")
    primary = re.sub(r"\b[A-Z][A-Z_]+\b", lambda m: _TOKEN_WORDS.get(m.group(0), m.group(0).lower()), primary)
    primary = re.sub(r"^unexpected \(found (.+)\)$", r"unexpected \1", primary)
    if not text.strip():
        primary = "the file is empty (write {} for an empty config)"
    return line, col, primary.rstrip(". ") or "syntax error"


# --------------------------------------------------------------------------------------------- YAML


def parse_yaml(text: str, base: Origin) -> Node:
    """YAML through the safe composer: marks give positions, the safe constructor gives scalar types.

    libyaml's loader (when PyYAML has it) composes about ten times faster with the same marks; any
    error is reported by the pure-Python loader, whose messages and positions are the reference.
    """
    import yaml

    fast = getattr(yaml, "CSafeLoader", None)
    if fast is not None:
        try:
            return parse_yaml_with(text, base, fast)
        except ConfigError:
            pass
    return parse_yaml_with(text, base, yaml.SafeLoader)


def parse_yaml_with(text: str, base: Origin, loader_class: Any) -> Node:
    """`parse_yaml` with a given PyYAML safe loader class."""
    import yaml
    from yaml import nodes as yn

    loader = loader_class(text)
    try:
        try:
            root = loader.get_single_node()
        except yaml.MarkedYAMLError as exc:
            mark = exc.problem_mark or exc.context_mark
            problem = exc.problem or exc.context or "syntax error"
            if exc.context == "while scanning an alias" or problem.startswith("found undefined alias"):
                # `*: ask` is the most common rule and an alias to YAML: say how to write it
                mark = exc.context_mark or mark
                problem = (f"{problem} (YAML reads a leading * as an alias: quote the pattern, "
                           'e.g. "*": ask)')
            line, col = (mark.line + 1, mark.column + 1) if mark is not None else (1, 1)
            raise ConfigError(f"invalid YAML: {problem}", _at(base, line, col, ())) from None
        except yaml.YAMLError as exc:
            raise ConfigError(f"invalid YAML: {exc}", _at(base, 1, 1, ())) from None
        except RecursionError:
            raise ConfigError(f"invalid YAML: nested more than {MAX_DEPTH} levels deep",
                              _at(base, 1, 1, ())) from None
        if root is None:
            return Node({}, _at(base, 1, 1, ()))

        def mark_of(node: yn.Node) -> tuple[int, int]:
            return node.start_mark.line + 1, node.start_mark.column + 1

        def scalar(node: yn.ScalarNode, here: Origin) -> Any:
            try:
                value = loader.construct_object(node, deep=True)
            except yaml.YAMLError as exc:
                raise ConfigError(f"invalid YAML value: {getattr(exc, 'problem', exc)}", here) from None
            if isinstance(value, datetime.date | datetime.datetime):
                return node.value  # keep dates as written; the schema has no date values
            if isinstance(value, bytes):
                raise ConfigError("binary values are not supported", here)
            return clean_text(value, here) if isinstance(value, str) else value

        # Aliases share nodes, so a small file can stand for billions of values ("billion laughs");
        # a real config has fewer values than characters, so more than that (plus slack) is refused.
        budget = [len(text) + 10_000]

        def mapping(node: yn.MappingNode, keys: tuple[str, ...], active: tuple[int, ...]) -> dict[str, Node]:
            """A mapping's keys in document order, merge keys (`<<`) expanded where they are written.

            Order is meaning in a permission map, so a merge key cannot just add its keys at the end
            (PyYAML puts them first): a merged key takes the place of the `<<` that brings it, unless
            the mapping writes that key itself, which then wins in value and keeps its own place. In
            `<<: [*a, *b]` an earlier mapping wins (YAML 1.1), and keys come in the order of the list,
            each at its place in the mapping that gives its value. Two `<<` keys in one mapping would
            leave that order to taste, so they are a duplicate key like any other.
            """
            explicit = {str(k.value) for k, _ in node.value
                        if k.tag != MERGE_TAG and isinstance(k, yn.ScalarNode)}
            out: dict[str, Node] = {}
            merge_at: Origin | None = None
            for key_node, value_node in node.value:
                key_mark = mark_of(key_node)
                if key_node.tag == MERGE_TAG:
                    where = _at(base, *key_mark, keys)
                    if merge_at is not None:
                        raise ConfigError(f"duplicate merge key '<<' (first at line {merge_at.line}); "
                                          "merge several mappings with one key: <<: [*a, *b]", where)
                    merge_at = where
                    is_seq = isinstance(value_node, yn.SequenceNode)
                    for src in value_node.value if is_seq else [value_node]:
                        if not isinstance(src, yn.MappingNode):
                            raise ConfigError("a YAML merge key (<<) needs a mapping or a list of "
                                              "mappings", _at(base, *mark_of(src), keys))
                        for k, v in convert(src, keys, None, active).items():
                            if k not in explicit and k not in out:
                                out[k] = v
                    continue
                if not isinstance(key_node, yn.ScalarNode):
                    raise ConfigError("a key must be a plain string, not a list or mapping",
                                      _at(base, *key_mark, keys))
                name = clean_text(str(key_node.value), _at(base, *key_mark, keys))
                k_origin = _at(base, *key_mark, (*keys, name))
                if name in out:
                    raise ConfigError(f"duplicate key {name!r}{_first_at(out[name])}", k_origin)
                out[name] = convert(value_node, (*keys, name), k_origin, active)
            return out

        def convert(node: yn.Node, keys: tuple[str, ...], key_origin: Origin | None,
                    active: tuple[int, ...] = ()) -> Node:
            here = _at(base, *mark_of(node), keys)
            if id(node) in active:
                raise ConfigError("recursive YAML alias", here)
            _check_depth(keys, here)
            budget[0] -= 1
            if budget[0] < 0:
                raise ConfigError("YAML aliases expand to far more values than the file holds; write the "
                                  "values out or use fewer aliases", here)
            active = (*active, id(node))
            if isinstance(node, yn.MappingNode):
                return Node(mapping(node, keys, active), here, key_origin)
            if isinstance(node, yn.SequenceNode):
                return Node([convert(v, (*keys, str(i)), None, active) for i, v in enumerate(node.value)],
                            here, key_origin)
            assert isinstance(node, yn.ScalarNode)
            return Node(scalar(node, here), here, key_origin)

        return convert(root, (), None)
    finally:
        loader.dispose()


# --------------------------------------------------------------------------------------------- TOML

_TOML_POS = re.compile(r"\(at line (\d+), column (\d+)\)")


def parse_toml(text: str, base: Origin) -> Node:
    """TOML through tomllib (no positions); lines/columns are added where `toml_positions` finds keys."""
    try:
        data = tomllib.loads(text)
    except RecursionError:
        raise ConfigError(f"invalid TOML: nested more than {MAX_DEPTH} levels deep", _at(base, 1, 1, ())) \
            from None
    except tomllib.TOMLDecodeError as exc:
        message = str(exc)
        found = _TOML_POS.search(message)
        line, col = (int(found.group(1)), int(found.group(2))) if found else (None, None)
        if found is None and "end of document" in message:
            line = text.count("\n") + 1
            col = len(text) - (text.rfind("\n") + 1) + 1
        short = _TOML_POS.sub("", message).strip()
        duplicate = re.fullmatch(r"Duplicate inline table key '(.+)'", short)
        if duplicate and line is not None and col is not None:
            # tomllib points after the inline table; point at the key written the second time
            name = re.escape(duplicate.group(1))
            text_line = text.splitlines()[line - 1] if line <= len(text.splitlines()) else ""
            found_keys = list(re.finditer(rf"""(?<![\w"'-])(?:{name}|"{name}"|'{name}')\s*=""",
                                          text_line[:col]))
            if found_keys:
                col = found_keys[-1].start() + 1
            short = f"duplicate key '{duplicate.group(1)}' in an inline table"
        if line is not None and ("overwrite" in short or "twice" in short):
            # tomllib points after the value; the key that repeats is at the start of the line
            text_line = text.splitlines()[line - 1] if line <= len(text.splitlines()) else ""
            col = len(text_line) - len(text_line.lstrip()) + 1
            short = f"{short} (a key or table is defined twice)"
        raise ConfigError(f"invalid TOML: {short}", _at(base, line, col, ())) from None
    positions = toml_positions(text)

    def convert(value: Any, keys: tuple[str, ...], is_key: bool) -> Node:
        key_pos, value_pos = positions.get(keys, ((None, None), (None, None)))
        here = _at(base, *value_pos, keys) if value_pos[0] else _at(base, *key_pos, keys)
        key_origin = _at(base, *key_pos, keys) if is_key else None
        _check_depth(keys, here)
        if isinstance(value, dict):
            children = {str(k): convert(v, (*keys, str(k)), True) for k, v in value.items()}
            node = Node(children, here, key_origin)
        elif isinstance(value, list):
            node = Node([convert(v, (*keys, str(i)), False) for i, v in enumerate(value)], here, key_origin)
        elif isinstance(value, datetime.date | datetime.time):
            node = Node(value.isoformat(), here, key_origin)
        else:
            node = Node(value, here, key_origin)
        return node

    return convert(data, (), False)


Pos = tuple[int | None, int | None]

_BARE = re.compile(r"[A-Za-z0-9_-]+")


def toml_positions(text: str) -> dict[tuple[str, ...], tuple[Pos, Pos]]:
    """Best effort: key path -> (key position, value position) for keys written at line starts.

    Only `key = value` lines outside multi-line strings/arrays and `[table]` / `[[array]]` headers are
    located, with the items of such a value's array (one line or several; an item's key path ends in its
    index); anything this scanner is unsure of (escaped keys, items after a nested array or table) is
    left out, so the origin falls back to the key path rather than pointing at a wrong line.
    """
    found: dict[tuple[str, ...], tuple[Pos, Pos]] = {}
    table: tuple[str, ...] = ()
    aot_count: dict[tuple[str, ...], int] = {}
    depth = 0  # bracket depth of a value spanning lines
    in_multiline: str | None = None
    items: _ArrayItems | None = None  # the array value being read, while it spans lines
    for lineno, raw in enumerate(text.splitlines(), start=1):
        if in_multiline is not None:
            if in_multiline in raw:
                in_multiline = None  # the rest of the closing line is not scanned
            continue
        if depth > 0:
            if items is not None:
                items.feed(raw, 0, lineno)
            depth = max(0, depth + _bracket_delta(raw))
            continue
        stripped = raw.lstrip()
        indent = len(raw) - len(stripped)
        if not stripped or stripped.startswith("#"):
            continue
        if stripped.startswith("[["):
            keys, rest = _read_key(stripped[2:])
            if keys is None or not rest.lstrip().startswith("]]"):
                table = ("\0",)  # unknown: stop locating until the next header we can read
                continue
            keys = _resolve_aot(keys[:-1], aot_count) + keys[-1:]
            index = aot_count.get(keys, 0)
            aot_count[keys] = index + 1
            table = (*keys, str(index))
            found.setdefault(keys, ((lineno, indent + 3), (lineno, indent + 1)))
            found[table] = ((lineno, indent + 3), (lineno, indent + 1))
            continue
        if stripped.startswith("["):
            keys, rest = _read_key(stripped[1:])
            if keys is None or not rest.lstrip().startswith("]"):
                table = ("\0",)
                continue
            table = _resolve_aot(keys[:-1], aot_count) + keys[-1:]
            found[table] = ((lineno, indent + 2), (lineno, indent + 1))
            continue
        keys, rest = _read_key(stripped)
        if keys is None or not rest.lstrip().startswith("="):
            continue
        after_eq = rest.lstrip()[1:]
        value_text = after_eq.lstrip()
        value_col = len(raw) - len(value_text) + 1
        items = None
        if table != ("\0",):
            path = table + keys
            found[path] = ((lineno, indent + 1), (lineno, value_col))
            for i in range(len(table) + 1, len(path)):  # dotted keys create their parents here
                found.setdefault(path[:i], ((lineno, indent + 1), (lineno, indent + 1)))
            if value_text.startswith("{"):
                _scan_inline(raw, value_col - 1, lineno, path, found)
            elif value_text.startswith("["):
                items = _ArrayItems(path, found)
                items.feed(raw, value_col, lineno)
        for quote in ('"""', "'''"):
            if value_text.startswith(quote) and value_text.count(quote) == 1:
                in_multiline = quote
        if in_multiline is None:
            depth = max(0, _bracket_delta(value_text))
    return found


class _ArrayItems:
    """The items of one array value, fed line by line from just after its `[`: each string or plain
    scalar item is located at its first character under `path + (index,)`. At anything else (a nested
    array or inline table, a multi-line string, a token it cannot read) it stops for good, so the items
    after it keep their key path instead of a position that might be wrong."""

    def __init__(self, path: tuple[str, ...], found: dict[tuple[str, ...], tuple[Pos, Pos]]) -> None:
        self.path = path
        self.found = found
        self.index = 0
        self.want_value = True
        self.done = False

    def feed(self, line: str, i: int, lineno: int) -> None:
        while not self.done and i < len(line):
            c = line[i]
            if c in " \t":
                i += 1
            elif c == "#":
                return
            elif c == "]":
                self.done = True
            elif not self.want_value:
                self.want_value = c == ","
                self.done = not self.want_value
                i += 1
            else:
                end = _item_end(line, i)
                if end is None:
                    self.done = True
                    return
                self.found[(*self.path, str(self.index))] = ((lineno, i + 1), (lineno, i + 1))
                self.index += 1
                self.want_value = False
                i = end


def _item_end(line: str, i: int) -> int | None:
    """The index after the one-line string or plain scalar at `line[i]`; None for anything else."""
    c = line[i]
    if c in "[{" or (c in "\"'" and line.startswith(c * 3, i)):
        return None
    if c in "\"'":
        j = i + 1
        while j < len(line) and line[j] != c:
            j += 2 if c == '"' and line[j] == "\\" else 1
        return j + 1 if j < len(line) else None
    j = i
    while j < len(line) and line[j] not in ",] \t#":
        j += 1
    return j if j > i else None


def _scan_inline(line: str, i: int, lineno: int, prefix: tuple[str, ...],
                 found: dict[tuple[str, ...], tuple[Pos, Pos]]) -> int | None:
    """Locate the keys of a one-line inline table starting at `line[i] == "{"`; the index after its
    closing brace, or None (and no further entries) when it is not a shape this scanner knows."""
    i += 1
    while True:
        while i < len(line) and line[i] in " \t":
            i += 1
        if i < len(line) and line[i] == "}":
            return i + 1
        keys, rest = _read_key(line[i:])
        if keys is None:
            return None
        key_col = i + 1
        i = len(line) - len(rest)
        if not line.startswith("=", i):
            return None
        i += 1
        while i < len(line) and line[i] in " \t":
            i += 1
        path = prefix + keys
        found[path] = ((lineno, key_col), (lineno, i + 1))
        for n in range(len(prefix) + 1, len(path)):
            found.setdefault(path[:n], ((lineno, key_col), (lineno, key_col)))
        end = _skip_value(line, i, lineno, path, found)
        if end is None:
            return None
        i = end
        while i < len(line) and line[i] in " \t":
            i += 1
        if line.startswith(",", i):
            i += 1
        elif not line.startswith("}", i):
            return None


def _skip_value(line: str, i: int, lineno: int, path: tuple[str, ...],
                found: dict[tuple[str, ...], tuple[Pos, Pos]]) -> int | None:
    """The index just after the value starting at `line[i]` (inline tables are located on the way)."""
    if i >= len(line):
        return None
    c = line[i]
    if c == "{":
        return _scan_inline(line, i, lineno, path, found)
    if c in "\"'":
        if line.startswith(c * 3, i):
            return None
        j = i + 1
        while j < len(line) and line[j] != c:
            j += 2 if c == '"' and line[j] == "\\" else 1
        return j + 1 if j < len(line) else None
    if c == "[":
        depth, j, quote = 0, i, ""
        while j < len(line):
            ch = line[j]
            if quote:
                if ch == "\\" and quote == '"':
                    j += 1
                elif ch == quote:
                    quote = ""
            elif ch in "\"'":
                quote = ch
            elif ch == "[":
                depth += 1
            elif ch == "]":
                depth -= 1
                if depth == 0:
                    return j + 1
            j += 1
        return None
    j = i
    while j < len(line) and line[j] not in ",} \t#":
        j += 1
    return j if j > i else None


def _resolve_aot(keys: tuple[str, ...], aot_count: dict[tuple[str, ...], int]) -> tuple[str, ...]:
    """`[a.b]` after `[[a]]` means the last element of array `a`: insert its index."""
    out: tuple[str, ...] = ()
    for key in keys:
        out = (*out, key)
        if out in aot_count:
            out = (*out, str(aot_count[out] - 1))
    return out


def _read_key(s: str) -> tuple[tuple[str, ...] | None, str]:
    """Read a (dotted, possibly quoted) TOML key; returns (parts, rest) or (None, s) if unsure."""
    parts: list[str] = []
    i = 0
    while True:
        while i < len(s) and s[i] in " \t":
            i += 1
        if i < len(s) and s[i] == '"':
            end = i + 1
            buf = []
            while end < len(s) and s[end] != '"':
                if s[end] == "\\":
                    return None, s  # escapes: not worth decoding here
                buf.append(s[end])
                end += 1
            if end >= len(s):
                return None, s
            parts.append("".join(buf))
            i = end + 1
        elif i < len(s) and s[i] == "'":
            end = s.find("'", i + 1)
            if end < 0:
                return None, s
            parts.append(s[i + 1:end])
            i = end + 1
        else:
            match = _BARE.match(s, i)
            if not match:
                return None, s
            parts.append(match.group(0))
            i = match.end()
        while i < len(s) and s[i] in " \t":
            i += 1
        if i < len(s) and s[i] == ".":
            i += 1
            continue
        return tuple(parts), s[i:]


def _bracket_delta(s: str) -> int:
    """Net `[`/`{` opened on a line, ignoring brackets inside one-line strings and comments."""
    delta = 0
    quote: str | None = None
    i = 0
    while i < len(s):
        c = s[i]
        if quote:
            if c == "\\" and quote == '"':
                i += 2
                continue
            if c == quote:
                quote = None
        elif c in "\"'":
            quote = c
        elif c == "#":
            break
        elif c in "[{":
            delta += 1
        elif c in "]}":
            delta -= 1
        i += 1
    return delta
