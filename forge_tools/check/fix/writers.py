"""Format-preserving writers for `check --fix`: each applies one `Edit` to a file's text and keeps
comments, key order, indentation and quoting.

- JSON/JSONC/JSON5: json-five's model gives the exact span of every key and value.
- YAML: PyYAML's composer gives the span of every key and value (the marks the loader reports).
- TOML: tomlkit, which keeps comments and layout in its document model.

JSON and YAML are spliced: every byte outside the keys and values an edit names stays as written (a
renamed key keeps its quoting style). Moving an entry (FT104) in a map written one entry per line moves
its whole lines, so the comments on and directly above an entry go with it; a map written on one line
swaps the entries' spans and leaves the comments between them in place.

The caller (`check.fix.apply_fixes`) parses the result again and compares its data with the expected
data, so a writer that cannot keep the structure is caught before anything is written.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from forge_tools.named_tuple import NamedTuple

if TYPE_CHECKING:
    from forge_tools.check.fix import Edit


class WriterError(Exception):
    """This edit cannot be made safely in this file (the file is left as it was)."""


class KeyExists(WriterError):
    """The new key of a rename is already in the map (`key`)."""

    def __init__(self, key: str) -> None:
        super().__init__(f"the map already has a key {key!r}; merge the two by hand")
        self.key = key


def _bom(write: Callable[[str, Edit], str]) -> Callable[[str, Edit], str]:
    def wrapped(text: str, edit: Edit) -> str:
        bom = "\ufeff" if text.startswith("\ufeff") else ""
        return bom + write(text.removeprefix("\ufeff"), edit)

    return wrapped


def _check_new_key(names: Sequence[str], old: str, new: str) -> None:
    if new != old and new in names:
        raise KeyExists(new)


# ------------------------------------------------------------------------------ splicing a map


class Entry(NamedTuple):
    """One map entry's key span and value span (offsets in the text; `end` is the value's last
    character + 1, nested values included)."""

    key_start: int
    key_end: int
    value_start: int
    end: int


class Splice(NamedTuple):
    start: int
    end: int
    text: str


def apply_splices(text: str, splices: list[Splice]) -> str:
    for start, end, new in sorted(splices, reverse=True):
        text = text[:start] + new + text[end:]
    return text


def move_first(text: str, entries: Sequence[Entry], i: int, comment: str, commas: bool) -> str:
    """The map's entry `i` moved first. One entry per line: whole lines move (with the comments on
    the entry's lines and the comment lines right above it); otherwise the entries' spans swap."""
    order = [i, *(j for j in range(len(entries)) if j != i)]
    block = _line_chunks(text, entries, comment)
    if block is None:
        slots = [(e.key_start, e.end) for e in entries]
        pieces = [text[a:b] for a, b in slots]
        return apply_splices(text, [Splice(a, b, pieces[j]) for (a, b), j in zip(slots, order, strict=True)])
    starts, stop = block
    chunks = [text[a:b] for a, b in zip(starts, [*starts[1:], stop], strict=True)]
    ends_with_newline = chunks[-1].endswith("\n")
    chunks = [c if c.endswith("\n") else c + "\n" for c in chunks]
    if commas:  # every entry but the last is followed by a comma; the last keeps what it had
        value_ends = [e.end - s for e, s in zip(entries, starts, strict=True)]
        trailing = bool(_COMMA.match(chunks[-1], value_ends[-1]))
        bare = []
        for chunk, at in zip(chunks, value_ends, strict=True):
            found = _COMMA.match(chunk, at)
            bare.append((chunk[:at], chunk[found.end():] if found else chunk[at:]))
        chunks = [head + ("," if n < len(order) - 1 or trailing else "") + tail
                  for n, (head, tail) in enumerate(bare[j] for j in order)]
    else:
        chunks = [chunks[j] for j in order]
    joined = "".join(chunks)
    if not ends_with_newline:
        joined = joined[:-1]
    return text[:starts[0]] + joined + text[stop:]


_COMMA = re.compile(r"[ \t]*,")


def _line_chunks(text: str, entries: Sequence[Entry], comment: str) -> tuple[list[int], int] | None:
    """Where each entry's lines start (comment lines right above it included) and where the last
    entry's lines end, when every key starts its own line and the last value ends its line (only a
    comma and a comment may follow); else None."""
    comment_line = re.compile(rf"[ \t]*(?:{comment})[^\n]*")
    rest_of_line = re.compile(rf"[ \t]*,?[ \t]*(?:(?:{comment})[^\n]*)?[ \t]*(?:\n|$)")
    starts: list[int] = []
    previous_end = -1
    for entry in entries:
        start = text.rfind("\n", 0, entry.key_start) + 1
        if text[start:entry.key_start].strip() or start <= previous_end:
            return None
        while start > 0:
            above = text.rfind("\n", 0, start - 1) + 1
            if above <= previous_end or not comment_line.fullmatch(text, above, start - 1):
                break
            start = above
        starts.append(start)
        previous_end = entry.end
    found = rest_of_line.match(text, entries[-1].end)
    if found is None:
        return None
    return starts, found.end()


# ------------------------------------------------------------------------------------------ JSONC


def _json_key(node: Any) -> str:
    return str(getattr(node, "characters", getattr(node, "name", "")))


def _span(node: Any) -> tuple[int, int]:
    start, end = getattr(node, "_tok", None), getattr(node, "_end_tok", None)
    if start is None or end is None:
        raise WriterError("cannot locate the value in the file")
    return int(start.index), int(end.end)


def _json_entries(node: Any) -> list[Entry]:
    return [Entry(*_span(k), *_span(v)) for k, v in zip(node.keys, node.values, strict=True)]


@_bom
def write_jsonc(text: str, edit: Edit) -> str:
    from forge_tools.config.formats.json_format import json_five

    five = json_five()
    try:
        model = five.loads(text, loader=five.ModelLoader())
    except Exception as exc:  # json-five's own errors; the file parsed before, so this is unexpected
        raise WriterError(f"cannot read the file for editing: {exc}") from None
    node: Any = model.value
    for key in edit.keys[:-1]:
        if not isinstance(node, five.JSONObject):
            raise WriterError(f"{key!r} is not in a mapping")
        names = [_json_key(k) for k in node.keys]
        if key not in names:
            raise WriterError(f"no key {key!r}")
        node = node.values[names.index(key)]
    if not isinstance(node, five.JSONObject):
        raise WriterError("the parent is not a mapping")
    names = [_json_key(k) for k in node.keys]
    last = edit.keys[-1]
    if names.count(last) != 1:
        raise WriterError(f"no single key {last!r}")
    i = names.index(last)
    splices: list[Splice] = []
    if edit.kind == "rename":
        _check_new_key(names, last, edit.new)
        splices.append(Splice(*_span(node.keys[i]), json.dumps(edit.new, ensure_ascii=False)))
    elif edit.kind == "first":
        return move_first(text, _json_entries(node), i, r"//|/\*", commas=True)
    elif edit.kind == "tools":
        from forge_tools.check.fix import tools_as_permission

        _check_new_key(names, last, "permission")
        tools = node.values[i]
        if not isinstance(tools, five.JSONObject):
            raise WriterError("`tools` is not a mapping")
        plain = {_json_key(k): getattr(v, "value", None) for k, v in zip(tools.keys, tools.values,
                                                                           strict=True)}
        converted = list(tools_as_permission(plain).items())
        for (k, v), (name, action) in zip(zip(tools.keys, tools.values, strict=True), converted,
                                          strict=True):
            if name != _json_key(k):
                splices.append(Splice(*_span(k), json.dumps(name, ensure_ascii=False)))
            splices.append(Splice(*_span(v), json.dumps(action)))
        splices.append(Splice(*_span(node.keys[i]), '"permission"'))
    return apply_splices(text, splices)


# ------------------------------------------------------------------------------------------- YAML


def _yaml_end(node: Any) -> int:
    """Where a value really ends: a block map or list's end mark is the next token's, past any
    comment lines after it, so it is taken from its last item."""
    from yaml import nodes as yn

    if isinstance(node, yn.MappingNode) and node.value and not node.flow_style:
        return _yaml_end(node.value[-1][1])
    if isinstance(node, yn.SequenceNode) and node.value and not node.flow_style:
        return _yaml_end(node.value[-1])
    end = int(node.end_mark.index)
    return end


def _yaml_key(node: Any, new: str) -> str:
    """`new` written as the key `node` was: double-quoted, single-quoted or plain."""
    from forge_tools.config.formats.base import bare_or_quoted

    if node.style == '"':
        return json.dumps(new, ensure_ascii=False)
    if node.style == "'":
        return "'" + new.replace("'", "''") + "'"
    return bare_or_quoted(new)


@_bom
def write_yaml(text: str, edit: Edit) -> str:
    import yaml
    from yaml import nodes as yn

    from forge_tools.config.formats.yaml_format import MERGE_TAG

    try:
        root = yaml.compose(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError as exc:
        raise WriterError(f"cannot read the file for editing: {exc}") from None

    def pairs(node: Any) -> list[tuple[Any, Any]]:
        if not isinstance(node, yn.MappingNode):
            raise WriterError("the parent is not a mapping")
        if any(k.tag == MERGE_TAG for k, _ in node.value):
            raise WriterError("the map uses a YAML merge key (<<); edit it by hand")
        return list(node.value)

    def reached(key: Any, value: Any) -> Any:
        if value.start_mark.index < key.end_mark.index:  # an alias: editing it would edit the anchor
            raise WriterError("the map is reached through a YAML alias; edit it by hand")
        return value

    node: Any = root
    for key in edit.keys[:-1]:
        found = [(k, v) for k, v in pairs(node) if isinstance(k, yn.ScalarNode) and k.value == key]
        if len(found) != 1:
            raise WriterError(f"no key {key!r}")
        node = reached(*found[0])
    entries = pairs(node)
    names = [str(k.value) for k, _ in entries]
    last = edit.keys[-1]
    if names.count(last) != 1:
        raise WriterError(f"no key {last!r}")
    i = names.index(last)
    key_node, value_node = entries[i]
    if edit.kind == "rename":
        _check_new_key(names, last, edit.new)
        return apply_splices(text, [Splice(key_node.start_mark.index, key_node.end_mark.index,
                                           _yaml_key(key_node, edit.new))])
    if edit.kind == "first":
        spans = [Entry(k.start_mark.index, k.end_mark.index, reached(k, v).start_mark.index, _yaml_end(v))
                 for k, v in entries]
        return move_first(text, spans, i, "#", commas=bool(node.flow_style))
    from forge_tools.check.fix import tools_as_permission

    _check_new_key(names, last, "permission")
    tools = reached(key_node, value_node)
    if not isinstance(tools, yn.MappingNode) or any(not isinstance(k, yn.ScalarNode) for k, _ in tools.value):
        raise WriterError("`tools` is not a mapping")
    loader = yaml.SafeLoader("")
    plain = {str(k.value): loader.construct_object(v) for k, v in tools.value}
    converted = list(tools_as_permission(plain).items())
    splices = [Splice(key_node.start_mark.index, key_node.end_mark.index, _yaml_key(key_node, "permission"))]
    for (k, v), (name, action) in zip(tools.value, converted, strict=True):
        if name != k.value:
            splices.append(Splice(k.start_mark.index, k.end_mark.index, _yaml_key(k, name)))
        splices.append(Splice(v.start_mark.index, v.end_mark.index, action))
    return apply_splices(text, splices)


# ------------------------------------------------------------------------------------------- TOML


@_bom
def write_toml(text: str, edit: Edit) -> str:
    import tomlkit
    from tomlkit.container import Container
    from tomlkit.exceptions import TOMLKitError
    from tomlkit.items import InlineTable, Table

    try:
        doc = tomlkit.parse(text)
    except TOMLKitError as exc:
        raise WriterError(f"cannot read the file for editing: {exc}") from None
    node: Any = doc
    for key in edit.keys[:-1]:
        if key not in node:
            raise WriterError(f"no key {key!r}")
        node = node[key]
        if not isinstance(node, Table | InlineTable):
            raise WriterError(f"{key!r} is not a table written in one place; edit it by hand")
    container: Any = node if isinstance(node, Container) else node.value
    last = edit.keys[-1]
    if last not in container:
        raise WriterError(f"no key {last!r}")
    keys = [str(k) for k in container]
    if edit.kind == "rename":
        _check_new_key(keys, last, edit.new)
        _toml_rename(container, last, edit.new)
    elif edit.kind == "first":
        body = container._body
        slots = [j for j, (k, _v) in enumerate(body) if k is not None]
        if any(isinstance(idx, tuple) for idx in container._map.values()):
            raise WriterError("a table is split over several places; edit it by hand")
        target = next(j for j in slots if body[j][0].key == last)
        entries = [body[j] for j in slots]
        order = [body[target], *(e for j, e in zip(slots, entries, strict=True) if j != target)]
        for j, entry in zip(slots, order, strict=True):
            body[j] = entry
        container._map = {k: j for j, (k, _v) in enumerate(body) if k is not None}
        if isinstance(node, InlineTable | Table):
            dict.clear(node)
            dict.update(node, {str(k): v for k, v in container.items()})
    elif edit.kind == "tools":
        from forge_tools.check.fix import tools_as_permission

        _check_new_key(keys, last, "permission")
        tools = container[last]
        if not isinstance(tools, Table | InlineTable):
            raise WriterError("`tools` is not a table")
        converted = tools_as_permission(tools.unwrap())
        inner = tools.value
        for old_name, (name, action) in zip(list(inner), converted.items(), strict=True):
            item = tomlkit.string(action)
            previous: Any = inner.item(old_name)
            item.trivia.comment_ws = previous.trivia.comment_ws
            item.trivia.comment = previous.trivia.comment
            inner._replace(old_name, name, item)
        _toml_rename(container, last, "permission")
    return tomlkit.dumps(doc)


def _toml_rename(container: Any, old: str, new: str) -> None:
    """Rename a key in place; a `[table]` header is then written from its new key path."""
    from tomlkit.items import Table

    item = container.item(old)
    container._replace(old, new, item)
    if isinstance(item, Table):
        item.display_name = None


WRITERS: dict[str, Callable[[str, Edit], str]] = {"json": write_jsonc, "yaml": write_yaml,
                                                  "toml": write_toml}


# ------------------------------------------------------------------- adding and removing list items


def _json_model(text: str) -> Any:
    from forge_tools.config.formats.json_format import json_five

    five = json_five()
    try:
        return five, five.loads(text, loader=five.ModelLoader()).value
    except Exception as exc:  # json-five's own errors: the agent's file does not parse
        raise WriterError(f"cannot read the file for editing: {exc}") from None


def _indent_at(text: str, offset: int) -> str:
    start = text.rfind("\n", 0, offset) + 1
    line = text[start:offset]
    return line[: len(line) - len(line.lstrip())]


def _dumped(value: Any, indent: str, step: str) -> str:
    """`value` as JSON, its lines after the first indented under `indent` (`step` per level)."""
    text = json.dumps(value, indent=len(step) or None, ensure_ascii=False)
    return text.replace("\n", "\n" + indent)


def json_append(text: str, keys: Sequence[str], item: Any) -> str:
    """`text` (JSON/JSONC) with `item` appended to the list at `keys`, the maps and the list on the way
    made where missing; every byte outside the insertion stays as written (comments, layout)."""
    if not text.strip():
        value: Any = [item]
        for key in reversed(keys):
            value = {key: value}
        return json.dumps(value, indent=2, ensure_ascii=False) + "\n"
    five, node = _json_model(text.removeprefix("\ufeff"))
    bom = "\ufeff" if text.startswith("\ufeff") else ""
    text = text.removeprefix("\ufeff")
    step = "  "
    for depth, key in enumerate(keys):
        if not isinstance(node, five.JSONObject):
            raise WriterError(f"{key!r} is not in a mapping")
        names = [_json_key(k) for k in node.keys]
        if key in names:
            node = node.values[len(names) - 1 - names[::-1].index(key)]
            continue
        value = [item]
        for inner in reversed(keys[depth + 1:]):
            value = {inner: value}
        start, end = _span(node)
        if node.keys:
            last_end = _span(node.values[-1])[1]
            indent = _indent_at(text, _span(node.keys[-1])[0])
            if "\n" not in text[start:end]:
                entry = f", {json.dumps(key)}: {json.dumps(value, ensure_ascii=False)}"
            else:
                entry = f",\n{indent}{json.dumps(key)}: {_dumped(value, indent, step)}"
            return bom + text[:last_end] + entry + text[last_end:]
        outer = _indent_at(text, start)
        entry = f"\n{outer}{step}{json.dumps(key)}: {_dumped(value, outer + step, step)}\n{outer}"
        return bom + text[:start + 1] + entry + text[end - 1:]
    if not isinstance(node, five.model.JSONArray):
        raise WriterError(f"{keys[-1]!r} is not a list")
    start, end = _span(node)
    if node.values:
        last_end = _span(node.values[-1])[1]
        indent = _indent_at(text, _span(node.values[-1])[0])
        if "\n" not in text[start:end]:
            return bom + text[:last_end] + ", " + json.dumps(item, ensure_ascii=False) + text[last_end:]
        return bom + text[:last_end] + f",\n{indent}{_dumped(item, indent, step)}" + text[last_end:]
    outer = _indent_at(text, start)
    return (bom + text[:start + 1] + f"\n{outer}{step}{_dumped(item, outer + step, step)}\n{outer}"
            + text[end - 1:])


def json_remove(text: str, keys: Sequence[str], drop: Callable[[Any], bool]) -> str:
    """`text` without the items of the list at `keys` for whose plain value `drop` is true (with the
    comma that joined each); nothing else changes. No such list: the text as it is."""
    if not text.strip():
        return text
    five, node = _json_model(text.removeprefix("\ufeff"))
    bom = "\ufeff" if text.startswith("\ufeff") else ""
    text = text.removeprefix("\ufeff")
    for key in keys:
        if not isinstance(node, five.JSONObject):
            return bom + text
        names = [_json_key(k) for k in node.keys]
        if key not in names:
            return bom + text
        node = node.values[names.index(key)]
    if not isinstance(node, five.model.JSONArray):
        return bom + text
    from forge_tools.config.formats.json_format import parse_json
    from forge_tools.origin import Origin

    spans = [_span(v) for v in node.values]
    kept = [i for i, (s, e) in enumerate(spans) if not drop(parse_json(text[s:e], Origin("file")).plain())]
    if len(kept) == len(spans):
        return bom + text
    if not kept:
        start, end = _span(node)
        return bom + text[:start] + "[]" + text[end:]
    splices: list[Splice] = []
    for i, (s, e) in enumerate(spans):
        if i in kept:
            continue
        if i > 0:  # from the end of the item before it: its comma and the blank between go too
            splices.append(Splice(spans[i - 1][1], e, ""))
        elif i + 1 < len(spans):
            splices.append(Splice(s, spans[i + 1][0], ""))
        else:
            splices.append(Splice(s, e, ""))
    # splices of neighbouring removed items overlap at most at their ends: apply from the last
    out = text
    for splice in sorted(splices, reverse=True):
        out = out[:splice.start] + out[splice.end:]
    return bom + out
