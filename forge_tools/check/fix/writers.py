"""Format-preserving writers for `check --fix`: each applies one `Edit` to a file's text and keeps
comments, key order, indentation and quoting.

- JSON/JSONC/JSON5: json-five's model gives the exact span of every key and value; the text is spliced
  there, so every byte outside the edited keys and values stays as written.
- YAML: ruamel.yaml's round-trip mode (comments, quotes, the file's indentation as guessed).
- TOML: tomlkit, which keeps comments and layout in its document model.

The caller (`check.fix.apply_fixes`) parses the result again and compares its data with the expected
data, so a writer that cannot keep the structure is caught before anything is written.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from forge_tools.check.fix import Edit


class WriterError(Exception):
    """This edit cannot be made safely in this file (the file is left as it was)."""


def _bom(write: Callable[[str, Edit], str]) -> Callable[[str, Edit], str]:
    def wrapped(text: str, edit: Edit) -> str:
        bom = "\ufeff" if text.startswith("\ufeff") else ""
        return bom + write(text.removeprefix("\ufeff"), edit)

    return wrapped


# ------------------------------------------------------------------------------------------ JSONC


def _json_key(node: Any) -> str:
    return str(getattr(node, "characters", getattr(node, "name", "")))


def _span(node: Any) -> tuple[int, int]:
    start, end = getattr(node, "_tok", None), getattr(node, "_end_tok", None)
    if start is None or end is None:
        raise WriterError("cannot locate the value in the file")
    return int(start.index), int(end.end)


@_bom
def write_jsonc(text: str, edit: Edit) -> str:
    from json5.loader import ModelLoader, loads
    from json5.model import JSONObject

    try:
        model = loads(text, loader=ModelLoader())
    except Exception as exc:  # json-five's own errors; the file parsed before, so this is unexpected
        raise WriterError(f"cannot read the file for editing: {exc}") from None
    node: Any = model.value
    for key in edit.keys[:-1]:
        if not isinstance(node, JSONObject):
            raise WriterError(f"{key!r} is not in a mapping")
        names = [_json_key(k) for k in node.keys]
        if key not in names:
            raise WriterError(f"no key {key!r}")
        node = node.values[names.index(key)]
    if not isinstance(node, JSONObject):
        raise WriterError("the parent is not a mapping")
    names = [_json_key(k) for k in node.keys]
    last = edit.keys[-1]
    if names.count(last) != 1:
        raise WriterError(f"no single key {last!r}")
    i = names.index(last)
    splices: list[tuple[int, int, str]] = []
    if edit.kind == "rename":
        _check_new_key(names, last, edit.new)
        splices.append((*_span(node.keys[i]), json.dumps(edit.new, ensure_ascii=False)))
    elif edit.kind == "first":
        slots = [(_span(k)[0], _span(v)[1]) for k, v in zip(node.keys, node.values, strict=True)]
        texts = [text[a:b] for a, b in slots]
        order = [i, *(j for j in range(len(slots)) if j != i)]
        splices += [(a, b, texts[j]) for (a, b), j in zip(slots, order, strict=True)]
    elif edit.kind == "tools":
        from forge_tools.check.fix import tools_as_permission

        _check_new_key(names, last, "permission")
        tools = node.values[i]
        if not isinstance(tools, JSONObject):
            raise WriterError("`tools` is not a mapping")
        plain = {_json_key(k): getattr(v, "value", None) for k, v in zip(tools.keys, tools.values,
                                                                           strict=True)}
        converted = list(tools_as_permission(plain).items())
        for (k, v), (name, action) in zip(zip(tools.keys, tools.values, strict=True), converted,
                                          strict=True):
            if name != _json_key(k):
                splices.append((*_span(k), json.dumps(name, ensure_ascii=False)))
            splices.append((*_span(v), json.dumps(action)))
        splices.append((*_span(node.keys[i]), '"permission"'))
    for start, end, new in sorted(splices, reverse=True):
        text = text[:start] + new + text[end:]
    return text


def _check_new_key(names: list[str], old: str, new: str) -> None:
    if new != old and new in names:
        raise WriterError(f"the map already has a key {new!r}; merge the two by hand")


# ------------------------------------------------------------------------------------------- YAML


@_bom
def write_yaml(text: str, edit: Edit) -> str:
    import io

    from ruamel.yaml import YAML
    from ruamel.yaml.comments import CommentedMap
    from ruamel.yaml.error import YAMLError
    from ruamel.yaml.util import load_yaml_guess_indent

    try:
        _, indent, block_seq_indent = load_yaml_guess_indent(text)
        yaml = YAML(typ="rt")
        yaml.preserve_quotes = True
        yaml.width = 1 << 16  # never re-wrap a long line
        yaml.indent(mapping=indent or 2, sequence=(indent or 2) + (block_seq_indent or 0),
                    offset=block_seq_indent or 0)
        data = yaml.load(text)
    except YAMLError as exc:
        raise WriterError(f"cannot read the file for editing: {exc}") from None
    node: Any = data
    for key in edit.keys[:-1]:
        if not isinstance(node, CommentedMap) or key not in node:
            raise WriterError(f"no key {key!r}")
        node = node[key]
    last = edit.keys[-1]
    if not isinstance(node, CommentedMap) or last not in node:
        raise WriterError(f"no key {last!r}")
    if getattr(node, "merge", None):
        raise WriterError("the map uses a YAML merge key (<<); edit it by hand")
    if edit.kind == "rename":
        _check_new_key([str(k) for k in node], last, edit.new)
        _yaml_move(node, last, edit.new, list(node).index(last))
    elif edit.kind == "first":
        _yaml_move(node, last, last, 0)
    elif edit.kind == "tools":
        from forge_tools.check.fix import tools_as_permission

        _check_new_key([str(k) for k in node], last, "permission")
        tools = node[last]
        if not isinstance(tools, CommentedMap):
            raise WriterError("`tools` is not a mapping")
        converted = tools_as_permission({str(k): v for k, v in tools.items()})
        for position, (old_name, (name, action)) in enumerate(zip(list(tools), converted.items(),
                                                                 strict=True)):
            tools[old_name] = action
            if name != old_name:
                _yaml_move(tools, old_name, name, position)
        _yaml_move(node, last, "permission", list(node).index(last))
    out = io.StringIO()
    yaml.dump(data, out)
    return out.getvalue()


def _yaml_move(node: Any, old: str, new: str, position: int) -> None:
    """Put the entry `old` at `position` under the key `new`, with the comments attached to it."""
    comment = node.ca.items.pop(old, None)
    value = node.pop(old)
    node.insert(position, new, value)
    if comment is not None:
        node.ca.items[new] = comment


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
        container._replace(last, edit.new, container.item(last))
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
            previous = inner.item(old_name)
            item.trivia.comment_ws = previous.trivia.comment_ws
            item.trivia.comment = previous.trivia.comment
            inner._replace(old_name, name, item)
        container._replace(last, "permission", container.item(last))
    return tomlkit.dumps(doc)


WRITERS: dict[str, Callable[[str, Edit], str]] = {"json": write_jsonc, "yaml": write_yaml,
                                                  "toml": write_toml}
