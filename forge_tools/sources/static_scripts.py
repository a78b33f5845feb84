"""Config-dir tool script ids found without importing the scripts (SPEC 2, issue 5 safety).

`check` and `diff` run in CI on untrusted pull requests, so they must never execute a project's tool
scripts. This module reads each script's syntax tree instead and applies the same id rule as the
importing loader: a tool bound to `default` or to the file's stem gets the stem, a tool bound to any
other name `N` gets `<stem>_N` (an `@tool(name="x")` does not change a script tool's id).
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from pathlib import Path

from forge_tools.config.files import read_regular_bytes
from forge_tools.named_tuple import NamedTuple
from forge_tools.sources.scripts import script_files, tool_id_for

_PACKAGE = "forge_tools"
_DECORATOR_NAMES = frozenset({"tool"})
_CLASS_NAMES = frozenset({"Tool"})


class StaticScriptTool(NamedTuple):
    """A tool id a script would register, with the line that binds it."""

    id: str
    path: Path
    line: int
    column: int = 1
    binding: str = ""


class StaticScriptProblem(NamedTuple):
    """A script whose syntax tree could not be read (it would also fail to import)."""

    path: Path
    message: str
    line: int | None = None
    column: int | None = None


class StaticScan(NamedTuple):
    """What a scan of the config dirs' scripts found: tools, unreadable scripts, every script looked at."""

    tools: list[StaticScriptTool]
    problems: list[StaticScriptProblem]
    scripts: list[Path]


def script_tool_id(stem: str, binding: str) -> str:
    """The SPEC 2 id rule, shared with the importing loader."""
    return tool_id_for(stem, binding)


class _Names:
    """Which local names refer to `forge_tools.tool` / `forge_tools.Tool` or to the package itself."""

    def __init__(self) -> None:
        self.decorators: set[str] = set(_DECORATOR_NAMES)
        self.classes: set[str] = set(_CLASS_NAMES)
        self.modules: set[str] = {_PACKAGE}

    def learn(self, node: ast.stmt) -> None:
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == _PACKAGE:
            for alias in node.names:
                local = alias.asname or alias.name
                if alias.name in _DECORATOR_NAMES:
                    self.decorators.add(local)
                elif alias.name in _CLASS_NAMES:
                    self.classes.add(local)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == _PACKAGE:
                    self.modules.add(alias.asname or alias.name.split(".")[0])

    def _is(self, expr: ast.expr, locals_: set[str], attrs: frozenset[str]) -> bool:
        if isinstance(expr, ast.Name):
            return expr.id in locals_
        if isinstance(expr, ast.Attribute) and expr.attr in attrs:
            root: ast.expr = expr.value
            while isinstance(root, ast.Attribute):
                root = root.value
            return isinstance(root, ast.Name) and root.id in self.modules
        return False

    def is_decorator(self, expr: ast.expr) -> bool:
        return self._is(expr, self.decorators, _DECORATOR_NAMES)

    def is_class(self, expr: ast.expr) -> bool:
        return self._is(expr, self.classes, _CLASS_NAMES)


def _tool_expression(expr: ast.expr, names: _Names) -> bool:
    """Whether `expr` builds a tool: `tool(fn)`, `tool(name="x")(fn)` or `Tool(...)`."""
    if not isinstance(expr, ast.Call):
        return False
    func = expr.func
    if names.is_decorator(func) or names.is_class(func):
        return True
    return isinstance(func, ast.Call) and names.is_decorator(func.func)


def _decorated(fn: ast.FunctionDef | ast.AsyncFunctionDef, names: _Names) -> bool:
    return any(names.is_decorator(dec) or (isinstance(dec, ast.Call) and names.is_decorator(dec.func))
               for dec in fn.decorator_list)


def _targets(node: ast.stmt) -> list[str]:
    if isinstance(node, ast.Assign):
        return [t.id for t in node.targets if isinstance(t, ast.Name)]
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
        return [node.target.id]
    return []


def scan_script(path: Path) -> tuple[list[StaticScriptTool], StaticScriptProblem | None]:
    """The tools one script binds at module level (later bindings of a name replace earlier ones)."""
    try:
        # a symlink in an untrusted checkout may point at a huge file or a pipe: regular files only
        source = read_regular_bytes(path)
    except OSError as exc:
        return [], StaticScriptProblem(path, f"cannot read tool script: {exc.strerror or exc}")
    try:
        tree = ast.parse(source, filename=str(path))
    except SyntaxError as exc:
        return [], StaticScriptProblem(path, f"tool script has a syntax error: {exc.msg}", exc.lineno,
                                       exc.offset)
    except ValueError as exc:  # e.g. NUL bytes
        return [], StaticScriptProblem(path, f"tool script cannot be parsed: {exc}")
    stem = path.stem
    names = _Names()
    bound: dict[str, StaticScriptTool] = {}
    for node in tree.body:
        names.learn(node)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if _decorated(node, names):
                bound[node.name] = StaticScriptTool(script_tool_id(stem, node.name), path,
                                                    node.lineno, node.col_offset + 1, node.name)
            else:
                bound.pop(node.name, None)
            continue
        targets = _targets(node)
        if not targets:
            continue
        value = node.value if isinstance(node, (ast.Assign, ast.AnnAssign)) else None
        is_tool = _tool_expression(value, names) if value is not None else False
        for name in targets:
            if is_tool:
                bound[name] = StaticScriptTool(script_tool_id(stem, name), path, node.lineno,
                                               node.col_offset + 1, name)
            else:
                bound.pop(name, None)
    exported = _declared_all(tree)
    tools = [t for name, t in bound.items()
             if not name.startswith("_") and (exported is None or name in exported)]
    return sorted(tools, key=lambda t: (t.line, t.column)), None


def _declared_all(tree: ast.Module) -> set[str] | None:
    """A literal module-level `__all__` narrows the exported names, as it does for the importer."""
    declared: set[str] | None = None
    for node in tree.body:
        if "__all__" in _targets(node) and isinstance(node, ast.Assign | ast.AnnAssign):
            value = node.value
            if isinstance(value, ast.List | ast.Tuple):
                declared = {e.value for e in value.elts
                            if isinstance(e, ast.Constant) and isinstance(e.value, str)}
    return declared


def scan_static_scripts(config_dirs: Iterable[Path]) -> StaticScan:
    """Every script's tools and every script that could not be parsed, without importing anything."""
    scan = StaticScan([], [], [])
    for path in script_files(list(config_dirs)):
        scan.scripts.append(path)
        tools, problem = scan_script(path)
        scan.tools.extend(tools)
        if problem is not None:
            scan.problems.append(problem)
    return scan


def static_script_ids(config_dirs: Iterable[Path]) -> list[StaticScriptTool]:
    """The script tools `check`, `diff` and `resolve(load_code=False)` see, in candidate order."""
    return scan_static_scripts(config_dirs).tools


def top_level_definitions(path: Path) -> dict[str, tuple[int, int]]:
    """(line, column) of each module-level function and class of a Python file, read without importing
    it: `check --load-code` points a plugin problem that names a hook at the hook's definition. Empty
    when the file cannot be read or parsed."""
    try:
        tree = ast.parse(read_regular_bytes(path), filename=str(path))
    except (OSError, SyntaxError, ValueError):
        return {}
    found: dict[str, tuple[int, int]] = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            found.setdefault(node.name, (node.lineno, node.col_offset + 1))
    return found
