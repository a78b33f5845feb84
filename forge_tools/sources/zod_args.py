"""The `args` of an opencode script tool, read from its syntax tree: zod calls to JSON Schema.

opencode 1.18.33 sends the model `z.object(args)` as JSON Schema (zod's own conversion, draft 2020-12)
and runs the tool with the input as the model wrote it: it checks nothing against that schema, not
even `required` (recorded: `tests/compat/facts/script-args`). So the schema read here is what the
model is shown, nothing more. forge-tools never runs TypeScript: the `args` object literal is walked
in the tree-sitter tree, each value a chain of zod calls on `tool.schema` (`@opencode-ai/plugin`) or
on an identifier imported from `zod`. A value that is not such a chain (a variable, a spread, a
method this reader does not know) leaves the whole schema unread, said with its place in the file.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from forge_tools.sources.opencode_scripts import literal_string, node_text

if TYPE_CHECKING:
    from tree_sitter import Node

SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"
_SAFE = 9007199254740991  # zod's bounds of `.int()` (JavaScript's safe integers)
_ZOD_MODULES = frozenset({"zod", "zod/v4", "zod/v3", "zod/mini"})
_PLUGIN = "@opencode-ai/plugin"
_NO_EFFECT = frozenset({"trim", "toLowerCase", "toUpperCase", "refine", "superRefine", "check",
                        "meta", "brand", "readonly", "catch", "finite", "safe", "strict", "passthrough",
                        "strip", "loose"})


class Unreadable(Exception):
    """A part of `args` that is no zod chain this reader knows; `node` is where."""

    def __init__(self, node: Node, why: str) -> None:
        super().__init__(why)
        self.node = node


def zod_bases(root: Node) -> frozenset[str]:
    """The expressions a zod chain may start from in this file: `<tool>.schema` for `tool` imported
    from `@opencode-ai/plugin` (under any alias), and each name imported from a zod module."""
    bases: set[str] = set()
    for stmt in root.named_children:
        if stmt.type != "import_statement":
            continue
        source = literal_string(stmt.child_by_field_name("source"))
        clause = next((c for c in stmt.named_children if c.type == "import_clause"), None)
        if clause is None or source not in _ZOD_MODULES | {_PLUGIN}:
            continue
        for part in clause.named_children:
            if part.type == "identifier" and source in _ZOD_MODULES:  # import z from "zod"
                bases.add(node_text(part))
            elif part.type == "namespace_import":  # import * as z from "zod"
                name = next((c for c in part.named_children if c.type == "identifier"), None)
                if name is not None:
                    bases.add(node_text(name) if source in _ZOD_MODULES else f"{node_text(name)}.tool.schema")
            elif part.type == "named_imports":
                for spec in part.named_children:
                    if spec.type != "import_specifier":
                        continue
                    imported = spec.child_by_field_name("name")
                    alias = spec.child_by_field_name("alias") or imported
                    if imported is None or alias is None:
                        continue
                    if source in _ZOD_MODULES and node_text(imported) == "z":
                        bases.add(node_text(alias))
                    elif source == _PLUGIN and node_text(imported) == "tool":
                        bases.add(f"{node_text(alias)}.schema")
    return frozenset(bases)


def _strip(node: Node) -> Node:
    while node.type in ("parenthesized_expression", "as_expression", "satisfies_expression",
                        "non_null_expression") and node.named_child_count:
        node = node.named_children[0]
    return node


def literal_value(node: Node | None) -> Any:
    """A JSON value written as a literal (for `default`, `literal`, `enum`); `Unreadable` otherwise."""
    if node is None:
        raise ValueError("no value")
    node = _strip(node)
    text = node_text(node)
    if node.type in ("string", "template_string"):
        value = literal_string(node)
        if value is None:
            raise Unreadable(node, "a computed string")
        return value
    if node.type == "number":
        number = float(text.replace("_", ""))
        return int(number) if number.is_integer() and "." not in text and "e" not in text.lower() else number
    if node.type == "unary_expression" and text.startswith("-"):
        value = literal_value(node.named_children[0])
        if isinstance(value, int | float) and not isinstance(value, bool):
            return -value
    if node.type in ("true", "false"):
        return node.type == "true"
    if node.type == "null":
        return None
    if node.type == "array":
        return [literal_value(item) for item in node.named_children if item.type != "comment"]
    if node.type == "object":
        out: dict[str, Any] = {}
        for pair in node.named_children:
            if pair.type == "comment":
                continue
            if pair.type != "pair":
                raise Unreadable(pair, "not a plain key: value")
            out[_key(pair)] = literal_value(pair.child_by_field_name("value"))
        return out
    raise Unreadable(node, f"`{text[:40]}` is not a literal")


def _key(pair: Node) -> str:
    key = pair.child_by_field_name("key")
    if key is not None and key.type == "property_identifier":
        return node_text(key)
    name = literal_string(key)
    if name is None or key is None:
        raise Unreadable(key or pair, "a computed key")
    return name


class _Zod:
    """One zod schema being built: its JSON Schema and whether the key may be left out."""

    def __init__(self, schema: dict[str, Any]) -> None:
        self.schema = schema
        self.optional = False


def _arguments(call: Node) -> list[Node]:
    args = call.child_by_field_name("arguments")
    return [a for a in args.named_children if a.type != "comment"] if args is not None else []


def _constructor(name: str, args: list[Node], bases: frozenset[str], call: Node) -> _Zod:
    if name in ("string", "number", "boolean", "null"):
        return _Zod({"type": name})
    if name in ("int", "int32"):
        return _Zod({"type": "integer", "minimum": -_SAFE, "maximum": _SAFE})
    if name in ("any", "unknown"):
        return _Zod({})
    if name == "enum" and args:
        values = literal_value(args[0])
        if isinstance(values, list) and values and all(isinstance(v, str) for v in values):
            return _Zod({"type": "string", "enum": values})
    if name == "literal" and args:
        value = literal_value(args[0])
        kind = {str: "string", bool: "boolean", int: "number", float: "number", type(None): "null"}
        if type(value) in kind:
            return _Zod({"type": kind[type(value)], "const": value})
    if name == "array" and args:
        return _Zod({"type": "array", "items": zod_schema(args[0], bases).schema})
    if name in ("object", "strictObject", "looseObject") and args:
        return _Zod(object_schema(args[0], bases))
    if name == "union" and args and _strip(args[0]).type == "array":
        return _Zod({"anyOf": [zod_schema(item, bases).schema for item in _strip(args[0]).named_children
                               if item.type != "comment"]})
    if name == "record" and args:
        keys = zod_schema(args[0], bases).schema if len(args) > 1 else {"type": "string"}
        return _Zod({"type": "object", "propertyNames": keys,
                     "additionalProperties": zod_schema(args[-1], bases).schema})
    if name == "optional" and args:
        inner = zod_schema(args[0], bases)
        inner.optional = True
        return inner
    raise Unreadable(call, f"`{name}(...)` is not a zod type forge-tools reads")


def _number_arg(args: list[Node], call: Node) -> float | int:
    value = literal_value(args[0]) if args else None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise Unreadable(call, "a bound that is not a number literal")
    return value


def _modify(made: _Zod, name: str, args: list[Node], call: Node) -> _Zod:
    schema = made.schema
    kind = schema.get("type")
    if name == "describe" and args:
        text = literal_value(args[0])
        if not isinstance(text, str):
            raise Unreadable(call, "a description that is not a string literal")
        made.schema = {"description": text, **{k: v for k, v in schema.items() if k != "description"}}
    elif name in ("optional", "nullish"):
        made.optional = True
        if name == "nullish":
            made.schema = {"anyOf": [schema, {"type": "null"}]}
    elif name == "nullable":
        made.schema = {"anyOf": [schema, {"type": "null"}]}
    elif name in ("default", "prefault") and args:
        made.schema = {"default": literal_value(args[0]), **schema}
        made.optional = True
    elif name in _NO_EFFECT:
        pass
    elif kind in ("number", "integer"):
        _number_check(made, name, args, call)
    elif kind == "string":
        _string_check(schema, name, args, call)
    elif kind == "array" and name in ("min", "max", "length", "nonempty"):
        bound = 1 if name == "nonempty" else _number_arg(args, call)
        if name in ("min", "length", "nonempty"):
            schema["minItems"] = bound
        if name in ("max", "length"):
            schema["maxItems"] = bound
    else:
        raise Unreadable(call, f"`.{name}(...)` is not a zod method forge-tools reads")
    return made


def _number_check(made: _Zod, name: str, args: list[Node], call: Node) -> None:
    schema = made.schema
    if name in ("int", "safe"):
        schema["type"] = "integer"
        schema["minimum"] = max(schema.get("minimum", -_SAFE), -_SAFE)
        schema["maximum"] = min(schema.get("maximum", _SAFE), _SAFE)
    elif name in ("min", "gte"):
        value = _number_arg(args, call)
        schema["minimum"] = max(schema.get("minimum", value), value)
    elif name in ("max", "lte"):
        value = _number_arg(args, call)
        schema["maximum"] = min(schema.get("maximum", value), value)
    elif name in ("gt", "positive"):
        schema["exclusiveMinimum"] = _number_arg(args, call) if name == "gt" else 0
    elif name in ("lt", "negative"):
        schema["exclusiveMaximum"] = _number_arg(args, call) if name == "lt" else 0
    elif name == "nonnegative":
        schema["minimum"] = max(schema.get("minimum", 0), 0)
    elif name == "nonpositive":
        schema["maximum"] = min(schema.get("maximum", 0), 0)
    elif name == "multipleOf" or name == "step":
        schema["multipleOf"] = _number_arg(args, call)
    else:
        raise Unreadable(call, f"`.{name}(...)` is not a zod number method forge-tools reads")


_FORMATS = {"email": "email", "url": "uri", "uuid": "uuid", "datetime": "date-time", "date": "date",
            "time": "time", "ipv4": "ipv4", "ipv6": "ipv6", "guid": "uuid", "duration": "duration"}


def _string_check(schema: dict[str, Any], name: str, args: list[Node], call: Node) -> None:
    if name in ("min", "max", "length", "nonempty"):
        bound = 1 if name == "nonempty" else _number_arg(args, call)
        if name in ("min", "length", "nonempty"):
            schema["minLength"] = bound
        if name in ("max", "length"):
            schema["maxLength"] = bound
    elif name in _FORMATS:
        schema["format"] = _FORMATS[name]
    elif name == "regex" and args and _strip(args[0]).type == "regex":
        pattern = _strip(args[0]).child_by_field_name("pattern")
        schema["pattern"] = node_text(pattern) if pattern is not None else ""
    else:
        raise Unreadable(call, f"`.{name}(...)` is not a zod string method forge-tools reads")


def zod_schema(node: Node, bases: frozenset[str]) -> _Zod:
    """The JSON Schema of one zod expression (`tool.schema.string().optional().describe("x")`)."""
    node = _strip(node)
    if node.type != "call_expression":
        raise Unreadable(node, f"`{node_text(node)[:40]}` is not a zod call")
    callee = node.child_by_field_name("function")
    if callee is None or callee.type != "member_expression":
        raise Unreadable(node, f"`{node_text(node)[:40]}` is not a zod call")
    target, prop = callee.child_by_field_name("object"), callee.child_by_field_name("property")
    if target is None or prop is None:
        raise Unreadable(node, "not a zod call")
    name, args, base = node_text(prop), _arguments(node), node_text(_strip(target))
    if base in bases or (base.endswith(".coerce") and base[:-len(".coerce")] in bases):
        return _constructor(name, args, bases, node)
    return _modify(zod_schema(target, bases), name, args, node)


def object_schema(node: Node, bases: frozenset[str]) -> dict[str, Any]:
    """`{a: zod, b: zod}` as zod writes `z.object` (properties in order, `required` when any)."""
    node = _strip(node)
    if node.type != "object":
        raise Unreadable(node, f"`{node_text(node)[:40]}` is not an object literal")
    properties: dict[str, Any] = {}
    required: list[str] = []
    for pair in node.named_children:
        if pair.type == "comment":
            continue
        if pair.type != "pair":
            raise Unreadable(pair, f"`{node_text(pair)[:40]}` is not a `name: zod` entry")
        name = _key(pair)
        value = pair.child_by_field_name("value")
        if value is None:
            raise Unreadable(pair, "an entry without a value")
        made = zod_schema(value, bases)
        properties[name] = made.schema
        if not made.optional:
            required.append(name)
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    return schema


def parameters_schema(args: Node, bases: frozenset[str], values: dict[str, Node | None]) -> dict[str, Any]:
    """The schema opencode sends for a tool whose `args` is `args` (an object literal, or the name of
    a module-level one); `Unreadable` says where it could not be read."""
    node = _strip(args)
    if node.type == "identifier" and values.get(node_text(node)) is not None:
        held = values[node_text(node)]
        assert held is not None
        node = _strip(held)
    return {"$schema": SCHEMA_DIALECT, **object_schema(node, bases)}
