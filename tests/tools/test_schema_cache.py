"""The shipped builtin definitions are the live tools' definitions, a stale entry is never used, and a
builtin is the same tool whether declared from the file or imported."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from forge_tools.tools import schema_cache
from forge_tools.tools.builtins import ALL_BUILTINS, _declare, import_builtin, load_builtin
from forge_tools.tools.contract import LazyTool


def test_shipped_definitions_equal_the_live_tools() -> None:
    shipped = json.loads(schema_cache.CACHE_FILE.read_text())
    live = schema_cache.live_definitions()
    # compared as text: property order is what a model is shown, so it must match too
    assert json.dumps(shipped, indent=1) == json.dumps(live, indent=1), (
        "builtin_definitions.json is stale: run `python -m forge_tools.tools.schema_cache`")


def test_every_builtin_is_declared_from_the_shipped_file() -> None:
    for tool_id in ALL_BUILTINS:
        declared, real = load_builtin(tool_id), import_builtin(tool_id)
        assert isinstance(declared, LazyTool), tool_id
        assert declared.json_schema() == real.parameters.model_json_schema()  # type: ignore[union-attr]
        assert (declared.description, declared.internal) == (real.description, real.internal)
        # everything else is the module's own tool: the same model, checks and code
        assert declared.parameters is real.parameters
        assert declared.permission_requests is real.permission_requests
        assert declared.execute is real.execute
        assert declared.format_validation_error is real.format_validation_error


def test_a_stale_entry_imports_the_module(monkeypatch: pytest.MonkeyPatch) -> None:
    stale = {"read": {"source_crc32": 0, "description": "stale", "internal": False,
                      "parameters": {"type": "object", "title": "stale"}}}
    monkeypatch.setattr(schema_cache, "shipped", lambda: stale)
    tool = _declare("read")
    assert tool is import_builtin("read")
    assert tool.json_schema() == tool.parameters.model_json_schema()  # type: ignore[union-attr]


def test_callers_get_a_copy() -> None:
    tool = load_builtin("bash")
    first = tool.json_schema()
    first["properties"].clear()
    assert tool.json_schema()["properties"]


def test_listing_the_builtins_imports_no_builtin_module_and_no_pydantic_model() -> None:
    code = ("import sys\n"
            "from forge_tools.tools.builtins import builtin_tools\n"
            "tools = builtin_tools(('lsp', 'plan'), 'cli')\n"
            "defs = [(t.id, t.description, t.json_schema(), t.internal) for t in tools]\n"
            "print([m for m in sys.modules if m == 'pydantic.main' or m.startswith("
            "'forge_tools.tools.builtins.') and not m.split('.')[-1].startswith('_')])\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


SCRIPT = '''
import sys
from typing import Literal
from forge_tools import tool

@tool(description="Count the lines of a file")
def count_lines(path: str, mode: Literal["lines", "words"] = "lines", limit: int | None = None) -> str:
    return path

schema = count_lines.json_schema()
print(sorted(schema["properties"]), "pydantic.main" in sys.modules)
'''


def test_a_plain_script_tool_schema_is_built_once_then_read_from_the_data_dir() -> None:
    from forge_tools.tools.contract import tool

    def run() -> str:
        proc = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, check=True)
        return proc.stdout.strip()

    assert run() == "['limit', 'mode', 'path'] True"  # first run: the model is built, the schema kept
    assert run() == "['limit', 'mode', 'path'] False"  # later runs: no pydantic model machinery

    def count_lines(path: str, mode: str = "lines") -> str:
        return path

    made = tool(count_lines)
    assert isinstance(made, LazyTool)
    assert made.json_schema() == made.parameters.model_json_schema()
    # what the cache holds is what pydantic gives for that signature
    key = schema_cache.signature_key("CountLinesArgs", {"path": (str, ...), "mode": (str, "lines")})
    assert key is not None
    assert schema_cache.cached_script_schema(key) == made.parameters.model_json_schema()


def test_the_script_schema_cache_is_private(isolated_env: dict[str, Path]) -> None:
    subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, check=True)
    cache = isolated_env["data"] / "cache" / "script-schemas.json"
    assert cache.stat().st_mode & 0o777 == 0o600
    assert cache.parent.stat().st_mode & 0o777 == 0o700
    assert [p.name for p in cache.parent.iterdir()] == ["script-schemas.json"]  # no temp file left


def test_a_script_tool_with_a_class_of_its_own_is_never_cached() -> None:
    from forge_tools.tools.contract import tool

    def where(path: Path) -> str:
        return str(path)

    def plain(path: str, times: list[int] | None = None) -> str:
        return path

    assert schema_cache.signature_key("WhereArgs", {"path": (Path, ...)}) is None
    assert schema_cache.signature_key("PlainArgs", {"path": (str, ...), "n": (dict, None)}) is None
    assert schema_cache.signature_key("PlainArgs", {"path": (str, ...), "n": (int, [])}) is None
    assert schema_cache.signature_key("PlainArgs", {"path": (str, ...), "n": (list[int] | None, None)})
    made = tool(where)
    assert not isinstance(made, LazyTool) and made.json_schema()["properties"]["path"]["format"] == "path"
    assert tool(plain).json_schema() == tool(plain).parameters.model_json_schema()


def test_a_lazy_tool_is_still_a_dataclass_tool() -> None:
    """`dataclasses.replace` and `copy.copy` work on a `@tool` result as on any `Tool`."""
    import copy
    import dataclasses

    from forge_tools.tools.contract import Tool, tool

    @tool(description="Echo")
    def echo(text: str) -> str:
        return text

    renamed = dataclasses.replace(echo, id="echo2")
    assert isinstance(renamed, Tool) and renamed.id == "echo2" and echo.id == "echo"
    assert renamed.parameters is echo.parameters and renamed.json_schema() == echo.json_schema()
    assert renamed.execute(renamed.parameters.model_validate({"text": "hi"}), None) == "hi"
    copied = copy.copy(echo)
    copied.id = "echo3"
    assert (copied.id, echo.id) == ("echo3", "echo") and copied.json_schema() == echo.json_schema()


# --- deciding a call without the model (tools/arguments.py) -----------------------------------------

#: inputs around each lean builtin's checks: valid, defaults, coercions, extra and missing keys, wrong
#: types, and each check of `_arg_checks` on both sides
AROUND = {
    "bash": [{"command": "ls -la"}, {"command": "ls", "description": "list"}, {"command": "  "},
             {"command": "a\x00b"}, {"command": "ls", "timeout": 0}, {"command": "ls", "timeout": 5.0},
             {"command": "ls", "timeout": "7"}, {"command": "ls", "timeout": 1.5}, {"command": 3},
             {"command": "ls", "workdir": None}, {"command": "ls", "workdir": "sub"}, {"comand": "ls"},
             {}, {"command": "ls", "extra": 1}, {"command": "ls", "timeout": True}],
    "read": [{"filePath": "a.txt"}, {"filePath": "a", "offset": 2, "limit": 3}, {"filePath": 1},
             {"filePath": "a", "offset": -1}, {"path": "a"}],
    "edit": [{"filePath": "a", "oldString": "x", "newString": "y"}, {"filePath": "a", "oldString": "x"},
             {"filePath": "a", "oldString": "x", "newString": "y", "replaceAll": "yes"}],
    "write": [{"filePath": "a", "content": "x"}, {"filePath": "a"}, {"filePath": "a", "content": None}],
    "glob": [{"pattern": "*.py"}, {"pattern": "*.py", "path": "src"}, {"pattern": ""}, {"pattern": []}],
    "grep": [{"pattern": "x"}, {"pattern": "x", "include": "*.py", "path": "."}, {"pattern": None}],
    "list": [{}, {"path": "src"}, {"path": "src", "ignore": ["a"]}, {"path": "src", "ignore": "a"}],
    "webfetch": [{"url": "https://example.com"}, {"url": " http://a.b/c "}, {"url": "ftp://a"},
                 {"url": "https://a", "format": "text"}, {"url": "https://a", "format": "pdf"},
                 {"url": "https://a", "timeout": 121}, {"url": "https://a", "timeout": 0.5}],
}


def test_every_tool_of_the_lean_table_ships_its_checks() -> None:
    from forge_tools.tools.builtins.requests import REQUESTS

    assert set(AROUND) == set(REQUESTS)
    for tool_id in REQUESTS:
        assert schema_cache.shipped_validator(tool_id) is not None, tool_id


def test_the_shipped_checks_accept_what_the_model_accepts_with_its_values() -> None:
    from pydantic import ValidationError

    for tool_id, cases in AROUND.items():
        model = import_builtin(tool_id).parameters
        assert not isinstance(model, dict)
        accepted = 0
        for raw in cases:
            quick = schema_cache.quick_args(tool_id, raw)
            try:
                value = model.model_validate(raw)
            except ValidationError:
                assert quick is None, (tool_id, raw)
                continue
            accepted += 1
            assert quick is not None, (tool_id, raw)
            assert vars(quick) == dict(value), (tool_id, raw)
        assert 0 < accepted < len(cases) or tool_id == "list", tool_id


def test_a_lazy_builtin_knows_its_requests_without_its_module() -> None:
    from forge_tools.tools.builtins.requests import REQUESTS

    for tool_id in ALL_BUILTINS:
        fresh = _declare(tool_id)
        assert isinstance(fresh, LazyTool)
        unchecked = fresh.unchecked_input
        requests = fresh.permission_requests if tool_id in REQUESTS else None
        assert fresh._loaded is None, tool_id  # neither read loaded the module's tool
        real = import_builtin(tool_id)
        assert unchecked is real.unchecked_input
        if tool_id in REQUESTS:
            assert requests is real.permission_requests, tool_id


def test_a_refused_input_is_said_in_the_tools_own_words() -> None:
    from forge_tools.tools.arguments import decision_args
    from forge_tools.tools.wrapper import InvalidInput

    tool = _declare("bash")
    with pytest.raises(InvalidInput, match="command must not be empty"):
        decision_args(tool, {"command": " "})
    assert decision_args(tool, {"command": "ls", "description": "x"}).command == "ls"
    with pytest.raises(InvalidInput, match="lone surrogate"):
        decision_args(tool, {"command": "ls \ud800"})
