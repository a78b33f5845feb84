"""JSON, JSONC and JSON5 (`.json`, `.jsonc`, `.json5`, and opencode's files): parse with a position for
every key and value, write snippets and dump."""

from __future__ import annotations

import bisect
import json
import re
import sys
from typing import Any, ClassVar

from forge_tools.config.formats.base import (
    MAX_DEPTH,
    ConfigFormat,
    at,
    check_depth,
    clean_text,
    first_at,
    has_surrogate,
    position_of,
    too_many_digits,
)
from forge_tools.errors import ConfigError, ConfigProblem, ExitCode, ForgeToolsError
from forge_tools.lazy_re import lazy
from forge_tools.named_tuple import NamedTuple
from forge_tools.origin import Node, Origin


class JsonFormat(ConfigFormat):
    name: ClassVar[str] = "json"
    suffixes: ClassVar[tuple[str, ...]] = (".json", ".jsonc", ".json5")
    label: ClassVar[str] = "JSON"

    def lexer(self) -> Any:
        from pygments.lexers import JsonLexer

        return JsonLexer()

    def parse(self, text: str, base: Origin) -> Node:
        return parse_json(text, base)

    def dump(self, data: Any) -> str:
        return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


FORMAT = JsonFormat()


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
_STRING_OR_COMMENT = lazy(r'"(?:[^"\\\n]|\\.)*"|//[^\n]*|/\*.*?\*/', re.DOTALL)
_STRING_OR_COMMA = lazy(r'"(?:[^"\\\n]|\\.)*"|,(?=[ \t\r\n]*[}\]])')
_TOKEN = lazy(r'"(?:[^"\\]|\\.)*"|[{}\[\]:,]|[^ \t\r\n{}\[\]:,"]+')
_NOT_NEWLINE = lazy(r"[^\n]")
_MAYBE_TRAILING_COMMA = lazy(r",[ \t\r\n]*[}\]]")


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
    return _NOT_NEWLINE().sub(" ", token)


_SHARED_WORD = 8  # string values this short are kept once per text (`json` makes each one anew)


def fast_parse_json(text: str, base: Origin) -> Node | None:
    """The tree of a strict JSON or JSONC text through the stdlib `json`, or None when the text needs
    json-five (JSON5 syntax, or an error to report with json-five's message).

    Comments and trailing commas are first replaced by spaces (positions unchanged); `json` then checks
    the syntax and decodes the values, and one regex pass over the now-valid text gives the offset of
    every token, which the walk below pairs with the decoded values.
    """

    if "//" in text or "/*" in text:
        text = _STRING_OR_COMMENT().sub(_blank, text)
    if _MAYBE_TRAILING_COMMA().search(text):
        text = _STRING_OR_COMMA().sub(_blank, text)
    try:
        data = json.loads(text, object_pairs_hook=_Pairs)
    except (ValueError, RecursionError):
        return None
    check_text = "\\u" in text or has_surrogate(text)
    return _Walk(text, base, check_text).convert(data, (), None)


class _Walk:
    """A text's decoded values paired with the offsets of its tokens (`fast_parse_json`). A class
    rather than a closure that calls itself: that closure is a reference cycle, which kept the text,
    its line table and the decoded data until a cycle collection, and the commands pause those while
    they build their result (cli/entry.py)."""

    __slots__ = ("base", "check_text", "line_starts", "tokens", "words")

    def __init__(self, text: str, base: Origin, check_text: bool) -> None:
        self.tokens = _TOKEN().finditer(text)
        self.line_starts = [0, *(m.end() for m in re.finditer("\n", text))]
        self.base = base
        self.check_text = check_text
        self.words: dict[str, str] = {}

    def at(self, offset: int, keys: tuple[str, ...]) -> Origin:
        line_starts, base = self.line_starts, self.base
        line = bisect.bisect_right(line_starts, offset)
        return Origin(base.kind, base.path, line, offset - line_starts[line - 1] + 1, base.key_path + keys,
                      base.name)

    def convert(self, value: Any, keys: tuple[str, ...], key_origin: Origin | None) -> Node:
        tokens, at, check_text = self.tokens, self.at, self.check_text
        start = next(tokens)
        here = at(start.start(), keys)
        check_depth(keys, here)
        if isinstance(value, _Pairs):
            out: dict[str, Node] = {}
            for i, (key, item) in enumerate(value):
                if i:
                    next(tokens)  # ,
                below = (*keys, key)  # one key path for the key's origin and its value's
                k_origin = at(next(tokens).start(), below)
                next(tokens)  # :
                if check_text:
                    key = clean_text(key, k_origin)
                    below = (*keys, key)
                    k_origin = k_origin._replace(key_path=self.base.key_path + below)
                if key in out:
                    raise ConfigError(f"duplicate key {key!r}{first_at(out[key])}", k_origin,
                                      code=ConfigProblem.DUPLICATE_KEY)
                out[key] = self.convert(item, below, k_origin)
            next(tokens)  # }
            return Node(out, here, key_origin)
        if isinstance(value, list):
            items: list[Node] = []
            for i, item in enumerate(value):
                if i:
                    next(tokens)  # ,
                items.append(self.convert(item, (*keys, str(i)), None))
            next(tokens)  # ]
            return Node(items, here, key_origin)
        if isinstance(value, str):
            if check_text:
                value = clean_text(value, here)
            if len(value) <= _SHARED_WORD:  # `allow`, `ask`, `deny` a hundred thousand times: one each
                value = self.words.setdefault(value, value)
        return Node(value, here, key_origin)


class _Pairs(list[tuple[str, Any]]):
    """A JSON object as its key/value pairs in file order, duplicates kept (they are an error)."""


class JsonFive(NamedTuple):
    """The parts of json-five forge-tools uses."""

    loads: Any
    ModelLoader: Any
    JSONObject: Any
    model: Any
    JSON5DecodeError: Any


REPAIR_JSON_FIVE = "run `pip uninstall json5` and `pip install --force-reinstall json-five`"


class JsonFiveMissing(ForgeToolsError):
    """json-five's `json5` module is not json-five's: another package took the import name."""

    exit_code = ExitCode.CONFIG


def json_five() -> JsonFive:
    """json-five, or JsonFiveMissing saying how to repair the install.

    json-five and the PyPI package `json5` both install a module named `json5`; with both installed
    (or another `json5` first on sys.path) json-five's own imports fail half-way, which must not read
    as forge-tools crashing.
    """
    try:
        from json5 import model
        from json5.loader import ModelLoader, loads
        from json5.utils import JSON5DecodeError
    except ImportError as exc:
        import importlib.util

        spec = importlib.util.find_spec("json5")
        where = f" ({spec.origin})" if spec is not None and spec.origin else ""
        raise JsonFiveMissing(
            f"the module `json5`{where} is not json-five's ({exc}): another package named json5 "
            f"replaced it; {REPAIR_JSON_FIVE}") from None
    return JsonFive(loads, ModelLoader, model.JSONObject, model, JSON5DecodeError)


def parse_json5(text: str, base: Origin) -> Node:
    """JSON, JSONC and JSON5 through json-five's model (1-based line, 0-based column offsets)."""
    try:
        five = json_five()
    except JsonFiveMissing:
        _stdlib_error(text, base)
        raise
    m, loads, ModelLoader, JSON5DecodeError = five.model, five.loads, five.ModelLoader, five.JSON5DecodeError

    try:
        doc = loads(text, loader=ModelLoader())
    except JSON5DecodeError as exc:
        line, col, message = _json_error_position(exc, text)
        raise ConfigError(f"invalid JSON: {message}", at(base, line, col, ()),
                          code=ConfigProblem.SYNTAX) from None
    except RecursionError:
        raise ConfigError(f"invalid JSON: nested more than {MAX_DEPTH} levels deep", at(base, 1, 1, ()),
                          code=ConfigProblem.SYNTAX) \
            from None
    except ValueError as exc:  # escapes json-five reports without a token, or a huge integer
        digits = _huge_integer(text)
        if digits is not None:
            raise too_many_digits(digits[1], at(base, *position_of(text, digits[0]), ()), "JSON") from None
        raise ConfigError(f"invalid JSON: {exc}", at(base, 1, 1, ()), code=ConfigProblem.SYNTAX) from None

    def pos(node: Any) -> tuple[int | None, int | None]:
        line = getattr(node, "lineno", None)
        col = getattr(node, "col_offset", None)
        return line, (col + 1 if col is not None else None)

    def convert(node: Any, keys: tuple[str, ...], key_origin: Origin | None) -> Node:
        here = at(base, *pos(node), keys)
        check_depth(keys, here)
        if isinstance(node, m.JSONObject):
            out: dict[str, Node] = {}
            for pair in node.key_value_pairs:
                key_node = pair.key
                if isinstance(key_node, m.Identifier):
                    name = key_node.name
                elif isinstance(key_node, m.String):
                    _no_raw_control(key_node, pos(key_node), base, keys, "key")
                    name = clean_text(key_node.characters, at(base, *pos(key_node), keys))
                else:
                    raise ConfigError("a key must be a string", at(base, *pos(key_node), keys),
                                      code=ConfigProblem.SYNTAX)
                k_origin = at(base, *pos(key_node), (*keys, name))
                if name in out:
                    raise ConfigError(f"duplicate key {name!r}{first_at(out[name])}", k_origin,
                                      code=ConfigProblem.DUPLICATE_KEY)
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
            _no_raw_control(node, pos(node), base, keys, "string")
            return Node(clean_text(node.characters, here), here, key_origin)
        if isinstance(node, m.BooleanLiteral):
            return Node(bool(node.value), here, key_origin)
        if isinstance(node, m.NullLiteral):
            return Node(None, here, key_origin)
        if isinstance(node, m.Infinity | m.NaN | m.Integer | m.Float):
            return Node(node.value, here, key_origin)
        raise ConfigError(f"unsupported JSON value {type(node).__name__}", here, code=ConfigProblem.SYNTAX)

    return convert(doc.value, (), None)


def _stdlib_error(text: str, base: Origin) -> None:
    """Without json-five, a JSON/JSONC syntax error is still a located error (the standard library's
    message and position); the text may be JSON5, which needs json-five, so the line says that too."""
    blanked = _STRING_OR_COMMENT().sub(_blank, text) if "//" in text or "/*" in text else text
    blanked = _STRING_OR_COMMA().sub(_blank, blanked)
    try:
        json.loads(blanked)
    except json.JSONDecodeError as exc:
        raise ConfigError(f"invalid JSON: {exc.msg[:1].lower()}{exc.msg[1:]} (JSON5 syntax needs json-five, "
                          f"whose module `json5` another package replaced: {REPAIR_JSON_FIVE})",
                          at(base, exc.lineno, exc.colno, ()), code=ConfigProblem.SYNTAX) from None
    except (ValueError, RecursionError):
        pass


# a line continuation of JSON5 (a backslash, then the end of the line) is not a raw character
_RAW_CONTROL = lazy("(?<!\\\\)(?<!\\\\\r)[\x00-\x1f]")


def _no_raw_control(node: Any, where: tuple[int | None, int | None], base: Origin, keys: tuple[str, ...],
                    what: str) -> None:
    """A raw control character (U+0000-U+001F) inside a string is an error at that character: JSON
    forbids it, and in a key or pattern it is never meant (an escape sequence in a rule name could
    also rewrite what a terminal shows). JSON5 allows it; forge refuses it in every JSON flavour."""
    raw = str(getattr(node, "raw_value", "") or "")
    found = _RAW_CONTROL().search(raw)
    if found is None:
        return
    line, col = where
    before = raw[:found.start()]
    if line is not None and col is not None:
        if "\n" in before:
            line, col = line + before.count("\n"), len(before) - before.rfind("\n")
        else:
            col += len(before)
    code = f"U+{ord(found.group(0)):04X}"
    raise ConfigError(f"invalid JSON: a raw control character ({code}) inside a {what}; JSON does not "
                      f"allow one: write it as \\u{ord(found.group(0)):04x} or remove it",
                      at(base, line, col, keys), code=ConfigProblem.SYNTAX)


_DIGITS_OUTSIDE_STRINGS = lazy(
    r'"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'|//[^\n]*|/\*.*?\*/|[0-9]+', re.DOTALL)


def _huge_integer(text: str) -> tuple[int, int] | None:
    """(offset, digit count) of the first integer outside strings and comments with more digits than
    Python converts (`sys.get_int_max_str_digits()`), or None."""
    limit = sys.get_int_max_str_digits()
    for match in _DIGITS_OUTSIDE_STRINGS().finditer(text):
        token = match.group(0)
        if token[0].isdigit() and len(token) > limit:
            return match.start(), len(token)
    return None


_JSON_POS = lazy(r"line (\d+) column (\d+)")
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
    found = _JSON_POS().search(primary)
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


