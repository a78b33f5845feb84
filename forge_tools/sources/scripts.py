"""Config-dir tool scripts (SPEC 2, source 2): `tool/*.py` and `tools/*.py` of every config directory.

A script is imported and every module-level binding that holds a `Tool` becomes a candidate. Its id
comes from where it is bound: `default` or the file's stem gives the stem, any other name `N` gives
`<stem>_N` (so one file can hold several related tools without clashing with other files). A script
that fails to import is reported as one line with its path; the other scripts still load.
"""

from __future__ import annotations

import ast
import copy
import importlib.util
import re
import zlib
from collections.abc import Iterable, Sequence
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from forge_tools.named_tuple import NamedTuple
from forge_tools.tools.contract import Tool, ToolSource

if TYPE_CHECKING:
    from forge_tools.tools.contract import Listing, SourceQuery

TOOL_FOLDERS = ("tool", "tools")
# opencode's own script tools (sources/opencode_scripts.py): its glob is `{tool,tools}/*.{js,ts}`
OPENCODE_SUFFIXES = (".ts", ".js")


class ScriptError(NamedTuple):
    """A script that could not be imported (or gave nothing usable), with where and why."""

    path: Path
    message: str
    line: int | None = None

    def one_line(self) -> str:
        where = f"{self.path}:{self.line}" if self.line is not None else str(self.path)
        return f"{where}: {self.message}"

    def to_json(self) -> dict[str, Any]:
        return {"path": str(self.path), "line": self.line, "message": self.message}


class ScriptLoadResult(NamedTuple):
    """Tools found in scripts, in load order, and the scripts that failed."""

    tools: list[Tool]
    errors: list[ScriptError]


def is_opencode_dir(directory: Path) -> bool:
    """One of opencode's config dirs (a `.opencode/` dir, or opencode's global `~/.config/opencode/`),
    where opencode 1.18.33 reads only `tool/*.ts|.js`: a `.py` there is no tool of the agent."""
    from forge_tools.paths import opencode_global_dir

    if directory.name == ".opencode":
        return True
    try:
        return directory.resolve() == opencode_global_dir().resolve()
    except OSError:
        return False


def script_files(config_dirs: Iterable[Path], suffixes: tuple[str, ...] = (".py",)) -> list[Path]:
    """Every `*.py` (or other `suffixes`) directly inside `tool/` or `tools/` of each dir (not
    recursive; dotfiles included); `.py` files only in forge's dirs, not opencode's (`is_opencode_dir`).

    Order: config dir order, then file name (then folder); a file reachable twice is listed once.
    """
    seen: set[Path] = set()
    found: list[Path] = []
    for config_dir in config_dirs:
        if ".py" in suffixes and is_opencode_dir(Path(config_dir)):
            continue  # opencode lists only tool/*.ts|.js there; forge's Python tools live in .forge/
        here: list[tuple[str, str, Path]] = []
        for folder in TOOL_FOLDERS:
            directory = Path(config_dir) / folder
            if not directory.is_dir():
                continue
            try:
                entries = list(directory.iterdir())
            except OSError:
                continue
            for entry in entries:
                if entry.suffix in suffixes and entry.is_file():
                    here.append((entry.name, folder, entry))
        for _name, _folder, path in sorted(here):
            key = path.resolve()
            if key not in seen:
                seen.add(key)
                found.append(path)
    return found


def tool_id_for(stem: str, binding: str) -> str:
    """The SPEC 2 id rule: `default` or the stem itself gives the stem; any other name N gives stem_N."""
    return stem if binding in ("default", stem) else f"{stem}_{binding}"


def _module_name(path: Path, prefix: str = "_forge_tool_script") -> str:
    """A unique module name per file path, so two `tools.py` in different dirs never collide."""
    # two checksums, not hashlib: its import (OpenSSL) costs a small project's start-up more than this
    key = str(path.resolve()).encode("utf-8", "surrogateescape")
    digest = f"{zlib.crc32(key):08x}{zlib.adler32(key):08x}"
    stem = re.sub(r"\W", "_", path.stem) or "script"
    return f"{prefix}_{stem}_{digest}"


def _binding_lines(path: Path) -> dict[str, int]:
    """Line of each top-level binding (assignment, def, class, import), for locating a tool."""
    try:
        tree = ast.parse(path.read_bytes(), filename=str(path))
    except (SyntaxError, ValueError, OSError):
        return {}
    lines: dict[str, int] = {}

    def note(target: ast.AST, line: int) -> None:
        if isinstance(target, ast.Name):
            lines.setdefault(target.id, line)
        elif isinstance(target, ast.Tuple | ast.List):
            for elt in target.elts:
                note(elt, line)

    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            lines.setdefault(node.name, node.lineno)
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                note(target, node.lineno)
        elif isinstance(node, ast.AnnAssign):
            note(node.target, node.lineno)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            for alias in node.names:
                lines.setdefault(alias.asname or alias.name.split(".")[0], node.lineno)
    return lines


def _error_line(path: Path, exc: BaseException) -> int | None:
    if isinstance(exc, SyntaxError) and exc.filename and Path(exc.filename) == path:
        return exc.lineno
    import traceback

    line = None
    for frame in traceback.extract_tb(exc.__traceback__):
        if Path(frame.filename) == path:
            line = frame.lineno
    return line


def import_file(path: Path, prefix: str = "_forge_tool_script") -> ModuleType:
    """Import a project `.py` file (tool script or plugin) under a unique name; a failed import leaves
    no half-made module in `sys.modules`."""
    from forge_tools.extensions import load_spec

    spec = importlib.util.spec_from_file_location(_module_name(path, prefix), path)
    if spec is None or spec.loader is None:
        raise ImportError("cannot be imported as a Python module")
    return load_spec(spec)


def _exported_names(module: ModuleType) -> list[str]:
    """Module-level names in definition order; `__all__` narrows them; `_private` names are skipped."""
    names = [n for n in vars(module) if not n.startswith("_")]
    declared = getattr(module, "__all__", None)
    if isinstance(declared, list | tuple):
        wanted = {str(n) for n in declared}
        names = [n for n in names if n in wanted]
    return names


def tools_from_module(module: ModuleType, path: Path) -> list[Tool]:
    """One candidate per binding holding a `Tool`, with the SPEC 2 id and a script source."""
    lines = _binding_lines(path)
    stem = path.stem
    out: list[Tool] = []
    for binding in _exported_names(module):
        value = getattr(module, binding)
        if not isinstance(value, Tool):
            continue
        candidate = copy.copy(value)
        candidate.id = tool_id_for(stem, binding)  # SPEC 2: the binding decides, even over @tool(name=)
        candidate.source = ToolSource("script", path=str(path), line=lines.get(binding))
        candidate.__dict__["_binding"] = binding
        out.append(candidate)
    return out


def load_script(path: Path) -> tuple[list[Tool], ScriptError | None]:
    """Import one script; never raises for a broken script (the error is returned instead)."""
    try:
        module = import_file(path)
    except KeyboardInterrupt:
        raise
    except BaseException as exc:
        message = f"{type(exc).__name__}: {exc}".strip().splitlines()[0] if str(exc) else type(exc).__name__
        return [], ScriptError(path, f"failed to import: {message}", _error_line(path, exc))
    return tools_from_module(module, path), None


def load_scripts(config_dirs: Sequence[Path]) -> ScriptLoadResult:
    """Every tool script of the given config dirs, in order, with import failures reported."""
    result = ScriptLoadResult([], [])
    for path in script_files(config_dirs):
        tools, error = load_script(path)
        result.tools.extend(tools)
        if error is not None:
            result.errors.append(error)
    return result


NOTE_SCRIPTS_STATIC = "script tools found by a static scan (not imported): their definitions are unknown"


class ScriptSource:
    """The second source (`tools.contract.Source`): forge's Python tool scripts. `scan` reads each
    script's syntax tree (`static_scripts.py`) for the ids and binding lines the import would give;
    `load` imports them. A script that cannot be read or imported is a problem located in it."""

    name = "scripts"

    def scan(self, query: SourceQuery) -> Listing:
        from forge_tools.sources.candidates import script_problem
        from forge_tools.sources.static_scripts import scan_static_scripts
        from forge_tools.tools.contract import Listed, Listing

        found = scan_static_scripts(query.config_dirs)
        return Listing(
            [Listed(t.id, None, ToolSource("script", path=str(t.path), line=t.line)) for t in found.tools],
            [script_problem(p.message, str(p.path), p.line, column=p.column) for p in found.problems],
            [NOTE_SCRIPTS_STATIC] if found.tools else [])

    def load(self, query: SourceQuery) -> Listing:
        from forge_tools.sources.candidates import script_problem
        from forge_tools.tools.contract import Listed, Listing

        loaded = load_scripts(query.config_dirs)
        return Listing([Listed(t.id, t, t.source) for t in loaded.tools],
                       [script_problem(e.message, str(e.path), e.line) for e in loaded.errors])


SOURCE = ScriptSource()
