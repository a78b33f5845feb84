"""opencode's own script tools: `tool/*.ts|.js` and `tools/*.ts|.js` of every config directory (SPEC 2).

opencode imports each file and turns every export into a tool: the default export gets the file's stem
as id, a named export `N` gets `<stem>_N`. forge-tools cannot run TypeScript and must not need Node, so
the exports are read from the file's syntax tree (tree-sitter's TypeScript/JavaScript grammars); the
description is shown when it is a literal in the `tool({description: ...})` call, and the parameters
are the JSON Schema opencode sends for its zod `args` (`zod_args`) when they are written as zod calls.
These tools are candidates like any other (the permission layers apply) but `run` says plainly that it
cannot run them.
"""

from __future__ import annotations

import codecs
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from forge_tools.config.files import read_regular_bytes
from forge_tools.named_tuple import NamedTuple
from forge_tools.sources.scripts import OPENCODE_SUFFIXES, script_files

if TYPE_CHECKING:
    from tree_sitter import Node

    from forge_tools.tools.contract import Tool, ToolSource

FLAVOUR = "opencode"
CANNOT_RUN = ("it is one of opencode's TypeScript/JavaScript script tools, read from its syntax tree and "
              "never executed; run it in opencode")
UNKNOWN_DESCRIPTION = "description not written as a literal in the file (unknown without running it)"
PARAMETERS_UNKNOWN: dict[str, Any] = {"type": "object", "description": "parameters not read (TypeScript)"}
#: opencode 1.18.33 runs a script tool with the model's input as it is (recorded: facts/script-args)
UNCHECKED_INPUT = ("opencode runs its script tools with the input as the model wrote it: the schema is "
                   "only shown to the model, nothing is checked against it")


class OpencodeScriptTool(NamedTuple):
    """One export of an opencode script file, with where it is written and its literal description."""

    id: str
    path: Path
    line: int
    column: int
    export: str
    description: str | None = None
    parameters: dict[str, Any] | None = None  # the JSON Schema opencode sends, when it could be read
    parameters_problem: str | None = None  # why not, with its place (file:line:col)


class OpencodeScriptProblem(NamedTuple):
    """An opencode script file that cannot be read or parsed, and where."""

    path: Path
    message: str
    line: int | None = None
    column: int | None = None


class OpencodeScan(NamedTuple):
    """Every opencode script tool found, and the files that could not be read."""

    tools: list[OpencodeScriptTool]
    problems: list[OpencodeScriptProblem]


def opencode_script_files(config_dirs: Iterable[Path]) -> list[Path]:
    return script_files(config_dirs, OPENCODE_SUFFIXES)


def _parser(path: Path) -> Any:
    from tree_sitter import Parser

    from forge_tools.grammars import language

    if path.suffix == ".js":
        return Parser(language("tree_sitter_javascript"))
    return Parser(language("tree_sitter_typescript", "language_typescript"))


def node_text(node: Node) -> str:
    return (node.text or b"").decode("utf-8", "replace")


def literal_string(node: Node | None) -> str | None:
    """The value of a string literal or a template without `${}`; None for anything computed."""
    if node is None:
        return None
    if node.type == "parenthesized_expression" and node.named_child_count == 1:
        return literal_string(node.named_children[0])
    if node.type not in ("string", "template_string"):
        return None
    parts: list[str] = []
    for child in node.named_children:
        if child.type == "string_fragment":
            parts.append(node_text(child))
        elif child.type == "escape_sequence":
            try:
                parts.append(codecs.decode(node_text(child), "unicode_escape"))
            except UnicodeDecodeError:
                parts.append(node_text(child))
        else:  # a template substitution or something the grammar adds later: not a literal
            return None
    return "".join(parts)


def _description_of(value: Node | None) -> str | None:
    """`tool({description: "..."})` (any callee) or a bare object literal -> the literal description."""
    if value is None:
        return None
    obj = value
    if value.type == "call_expression":
        args = value.child_by_field_name("arguments")
        first = args.named_children[0] if args is not None and args.named_children else None
        if first is None:
            return None
        obj = first
    if obj.type != "object":
        return None
    for pair in obj.named_children:
        if pair.type != "pair":
            continue
        key = pair.child_by_field_name("key")
        plain = key is not None and key.type == "property_identifier"
        name = node_text(key) if plain and key is not None else literal_string(key)
        if name == "description":
            return literal_string(pair.child_by_field_name("value"))
    return None


def _tool_object(value: Node | None) -> Node | None:
    """The object literal a tool export is written as: `tool({...})`'s argument or `{...}` itself."""
    while value is not None and value.type in ("parenthesized_expression", "as_expression",
                                               "satisfies_expression") and value.named_child_count:
        value = value.named_children[0]
    if value is not None and value.type == "call_expression":
        args = value.child_by_field_name("arguments")
        value = args.named_children[0] if args is not None and args.named_children else None
    return value if value is not None and value.type == "object" else None


def _parameters_of(path: Path, value: Node | None, bases: frozenset[str],
                   values: dict[str, Node | None]) -> tuple[dict[str, Any] | None, str | None]:
    """(the JSON Schema of the export's zod `args`, None) or (None, why it could not be read)."""
    from forge_tools.sources.zod_args import Unreadable, parameters_schema

    obj = _tool_object(value)
    if obj is None:
        return None, "the tool is not written as an object literal"
    for entry in obj.named_children:
        if entry.type == "shorthand_property_identifier" and node_text(entry) == "args":
            where: Node = entry
        elif entry.type == "pair" and (key := entry.child_by_field_name("key")) is not None \
                and node_text(key).strip("'\"") == "args" and entry.child_by_field_name("value") is not None:
            where = entry.child_by_field_name("value")  # type: ignore[assignment]
        else:
            continue
        try:
            return parameters_schema(where, bases, values), None
        except Unreadable as problem:
            line, col = problem.node.start_point
            return None, f"{path}:{line + 1}:{col + 1}: {problem}"
    return None, "no `args` written in the tool's object"


#: the keys opencode 1.18.33 requires of an export for it to be a tool (it skips any other export)
TOOL_KEYS = frozenset({"args", "description", "execute"})
#: values that are never an object with those keys
_NOT_TOOLS = frozenset({"string", "template_string", "number", "true", "false", "null", "undefined",
                        "array", "arrow_function", "function_expression", "function", "class", "regex"})


def _object_keys(obj: Node) -> set[str] | None:
    """The keys an object literal surely has; None when a spread or computed key could add any."""
    keys: set[str] = set()
    for child in obj.named_children:
        if child.type == "pair":
            key = child.child_by_field_name("key")
            plain = key is not None and key.type == "property_identifier"
            name = node_text(key) if plain and key is not None else literal_string(key)
            if name is None:
                return None
            keys.add(name)
        elif child.type in ("method_definition", "shorthand_property_identifier"):
            name_node = child.child_by_field_name("name") if child.type == "method_definition" else child
            if name_node is not None:
                keys.add(node_text(name_node))
        elif child.type != "comment":
            return None
    return keys


def may_be_tool(where: Node, value: Node | None) -> bool:
    """Whether opencode could make a tool of this export: only an object with `args`, `description`
    and `execute` is one. A function, class or literal declaration, or an object literal (also inside
    `tool({...})`) without those keys, surely is not; a value the syntax cannot tell (an import, another
    call) is kept, as opencode may find a tool there."""
    if where.type in ("function_declaration", "generator_function_declaration", "class_declaration"):
        return False
    if value is None:
        return where.type not in ("function_declaration", "class_declaration")
    node = value
    while node.type in ("parenthesized_expression", "as_expression", "satisfies_expression") \
            and node.named_child_count:
        node = node.named_children[0]
    if node.type in _NOT_TOOLS:
        return False
    if node.type == "call_expression":
        args = node.child_by_field_name("arguments")
        first = args.named_children[0] if args is not None and args.named_children else None
        if first is None or first.type != "object":
            return True
        node = first
    if node.type == "object":
        keys = _object_keys(node)
        return keys is None or keys >= TOOL_KEYS
    return True


def _top_level_values(root: Node) -> dict[str, Node | None]:
    """Module-level `const/let/var x = value` (and function/class names) for `export { x }`."""
    values: dict[str, Node | None] = {}
    for stmt in root.named_children:
        decl = stmt.child_by_field_name("declaration") if stmt.type == "export_statement" else stmt
        if decl is None:
            continue
        if decl.type in ("lexical_declaration", "variable_declaration"):
            for declarator in decl.named_children:
                if declarator.type == "variable_declarator":
                    name = declarator.child_by_field_name("name")
                    if name is not None and name.type == "identifier":
                        values[node_text(name)] = declarator.child_by_field_name("value")
        elif decl.type in ("function_declaration", "generator_function_declaration", "class_declaration"):
            name = decl.child_by_field_name("name")
            if name is not None:
                values[node_text(name)] = None
    return values


_TYPE_ONLY = frozenset({"type_alias_declaration", "interface_declaration", "ambient_declaration"})


Exported = dict[str, tuple["Node", "Node | None"]]


def _exports(root: Node, path: Path) -> tuple[Exported, list[OpencodeScriptProblem]]:
    """Each runtime export name -> (where it is written, the value it holds when known)."""
    values = _top_level_values(root)
    found: Exported = {}
    problems: list[OpencodeScriptProblem] = []
    for stmt in root.named_children:
        if stmt.type != "export_statement":
            continue
        if any(child.type == "type" for child in stmt.children):  # `export type { X }`
            continue
        is_default = any(child.type == "default" for child in stmt.children)
        decl = stmt.child_by_field_name("declaration")
        value = stmt.child_by_field_name("value")
        source = stmt.child_by_field_name("source")
        clause = next((c for c in stmt.named_children if c.type == "export_clause"), None)
        if is_default:
            found["default"] = (stmt, value if value is not None else None)
        elif decl is not None:
            if decl.type in _TYPE_ONLY:
                continue
            if decl.type in ("lexical_declaration", "variable_declaration"):
                for declarator in decl.named_children:
                    if declarator.type != "variable_declarator":
                        continue
                    name = declarator.child_by_field_name("name")
                    if name is not None and name.type == "identifier":
                        found[node_text(name)] = (declarator, declarator.child_by_field_name("value"))
            else:
                name = decl.child_by_field_name("name")
                if name is not None:
                    found[node_text(name)] = (decl, None)
        elif clause is not None:
            for spec in clause.named_children:
                if spec.type != "export_specifier":
                    continue
                local = spec.child_by_field_name("name")
                alias = spec.child_by_field_name("alias")
                if local is None:
                    continue
                exported = node_text(alias) if alias is not None else node_text(local)
                held = values.get(node_text(local)) if source is None else None
                found[exported] = (spec, held)
        elif source is not None:  # `export * from "./x"`: the names live in another file
            line, col = stmt.start_point
            problems.append(OpencodeScriptProblem(
                path, f"`{node_text(stmt).strip()}` re-exports another module's names, which cannot be "
                "listed "
                "without running it; export the tools from this file", line + 1, col + 1))
    return found, problems


def scan_opencode_script(path: Path) -> tuple[list[OpencodeScriptTool], list[OpencodeScriptProblem]]:
    """The tools opencode would make of one file, in opencode's order (export names sorted, as a module
    namespace object lists them)."""
    try:
        source = read_regular_bytes(path)
    except OSError as exc:
        return [], [OpencodeScriptProblem(path, f"cannot read tool script: {exc.strerror or exc}")]
    tree = _parser(path).parse(source)
    root = tree.root_node
    if root.has_error:
        bad = _first_error(root)
        line, col = bad.start_point if bad is not None else (0, 0)
        return [], [OpencodeScriptProblem(path, "tool script has a syntax error (opencode would fail to "
                                          "import it)", line + 1, col + 1)]
    found, problems = _exports(root, path)
    from forge_tools.sources.zod_args import zod_bases

    bases, values = zod_bases(root), _top_level_values(root)
    stem = path.stem
    tools = []
    for export in sorted(found):
        where, value = found[export]
        if not may_be_tool(where, value):
            continue
        line, col = where.start_point
        tool_id = stem if export == "default" else f"{stem}_{export}"
        schema, why = _parameters_of(path, value, bases, values)
        tools.append(OpencodeScriptTool(tool_id, path, line + 1, col + 1, export, _description_of(value),
                                        schema, why))
    return tools, problems


def _first_error(root: Node) -> Node | None:
    """Where the parse went wrong: the first missing token (say, a `)` never closed) if there is one,
    else the innermost first ERROR node."""
    missing: Node | None = None
    error: Node | None = None
    stack = [root]
    while stack and missing is None:
        node = stack.pop()
        if node.is_missing:
            missing = node
        elif node.type == "ERROR" and (error is None or node.start_byte >= error.start_byte):
            error = node
        stack.extend(reversed([c for c in node.children if c.has_error or c.is_missing]))
    return missing or error


def scan_opencode_scripts(config_dirs: Iterable[Path]) -> OpencodeScan:
    scan = OpencodeScan([], [])
    for path in opencode_script_files(config_dirs):
        tools, problems = scan_opencode_script(path)
        scan.tools.extend(tools)
        scan.problems.extend(problems)
    return scan


def opencode_source(found: OpencodeScriptTool) -> ToolSource:
    from forge_tools.tools.contract import ToolSource

    return ToolSource("script", path=str(found.path), line=found.line, flavour=FLAVOUR)


def opencode_tool(found: OpencodeScriptTool) -> Tool:
    """A candidate that shows what is known (id, literal description) and refuses to run."""
    from forge_tools.tools.contract import Tool

    def cannot_execute(args: Any, ctx: Any) -> str:  # the wrapper refuses before this (Tool.cannot_run)
        raise RuntimeError(CANNOT_RUN)

    if found.parameters is not None:
        parameters = found.parameters
    else:
        why = f": {found.parameters_problem}" if found.parameters_problem else ""
        parameters = {**PARAMETERS_UNKNOWN, "description": f"{PARAMETERS_UNKNOWN['description']}{why}"}
    return Tool(id=found.id, description=found.description if found.description is not None
                else UNKNOWN_DESCRIPTION, parameters=parameters, execute=cannot_execute,
                source=opencode_source(found), cannot_run=CANNOT_RUN, unchecked_input=UNCHECKED_INPUT)

