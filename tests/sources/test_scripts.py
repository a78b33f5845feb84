"""Config-dir tool scripts (SPEC 2, source 2): which files, the id rule, and broken scripts."""

from __future__ import annotations

import textwrap
from pathlib import Path

from forge_tools.sources.scripts import load_scripts, script_files, tool_id_for
from forge_tools.tools.contract import ToolContext
from forge_tools.tools.wrapper import call_tool

TOOL_HEADER = "from forge_tools import tool, ToolContext\n\n"


def write(path: Path, body: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(TOOL_HEADER + textwrap.dedent(body))
    return path


def test_id_rule() -> None:
    assert tool_id_for("greet", "default") == "greet"
    assert tool_id_for("greet", "greet") == "greet"
    assert tool_id_for("math", "add") == "math_add"


def test_ids_from_bindings(tmp_path: Path) -> None:
    write(tmp_path / "tools" / "greet.py", '''
        @tool
        def greet(name: str) -> str:
            """Say hello."""
            return f"hello {name}"
    ''')
    write(tmp_path / "tools" / "math.py", '''
        @tool
        def add(a: int, b: int) -> str:
            """Add."""
            return str(a + b)

        @tool
        def sub(a: int, b: int) -> str:
            """Subtract."""
            return str(a - b)

        helper = 3
    ''')
    write(tmp_path / "tool" / "weather.py", '''
        def _impl() -> str:
            return "sunny"

        default = tool(_impl, description="Today's weather")
    ''')
    result = load_scripts([tmp_path])
    assert result.errors == []
    assert [t.id for t in result.tools] == ["greet", "math_add", "math_sub", "weather"]
    by_id = {t.id: t for t in result.tools}
    src = by_id["math_sub"].source
    assert src.kind == "script" and src.path == str(tmp_path / "tools" / "math.py")
    math_lines = (tmp_path / "tools" / "math.py").read_text().splitlines()
    assert src.line == next(i for i, line in enumerate(math_lines, 1) if line.startswith("def sub"))
    assert by_id["weather"].description == "Today's weather"
    assert call_tool(by_id["math_add"], {"a": 2, "b": 3}, ToolContext()).output == "5"


def test_only_direct_py_files_dotfiles_included(tmp_path: Path) -> None:
    write(tmp_path / "tools" / ".hidden.py", "@tool\ndef x() -> str:\n    return 'x'\n")
    write(tmp_path / "tools" / "nested" / "deep.py", "@tool\ndef deep() -> str:\n    return 'd'\n")
    (tmp_path / "tools" / "notes.txt").write_text("not a script")
    write(tmp_path / "plugins" / "p.py", "@tool\ndef p() -> str:\n    return 'p'\n")
    assert [p.name for p in script_files([tmp_path])] == [".hidden.py"]
    assert [t.id for t in load_scripts([tmp_path]).tools] == [".hidden_x"]


def test_a_failing_script_is_reported_and_the_others_load(tmp_path: Path) -> None:
    write(tmp_path / "tools" / "a_ok.py", "@tool\ndef a_ok() -> str:\n    return 'fine'\n")
    broken = write(tmp_path / "tools" / "b_broken.py", "import does_not_exist_anywhere\n")
    syntax = tmp_path / "tools" / "c_syntax.py"
    syntax.write_text("def (:\n")
    raising = write(tmp_path / "tools" / "d_raises.py", "raise RuntimeError('boom at import')\n")
    result = load_scripts([tmp_path])
    assert [t.id for t in result.tools] == ["a_ok"]
    assert [e.path for e in result.errors] == [broken, syntax, raising]
    lines = [e.one_line() for e in result.errors]
    assert all("\n" not in line for line in lines)
    assert "does_not_exist_anywhere" in lines[0] and str(broken) in lines[0]
    assert lines[1].startswith(f"{syntax}:1:") and "SyntaxError" in lines[1]
    assert lines[2].startswith(f"{raising}:3:") and "boom at import" in lines[2]


def test_order_is_config_dir_order_then_file_name(tmp_path: Path) -> None:
    first, second = tmp_path / "global", tmp_path / "project"
    write(second / "tools" / "aaa.py", "@tool\ndef aaa() -> str:\n    return ''\n")
    write(first / "tools" / "zzz.py", "@tool\ndef zzz() -> str:\n    return ''\n")
    write(first / "tool" / "mmm.py", "@tool\ndef mmm() -> str:\n    return ''\n")
    ids = [t.id for t in load_scripts([first, second, tmp_path / "missing"]).tools]
    assert ids == ["mmm", "zzz", "aaa"]
    # the same file reached twice is loaded once
    assert [t.id for t in load_scripts([first, first]).tools] == ["mmm", "zzz"]


def test_same_stem_in_two_dirs_gives_two_candidates_with_one_id(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    write(a / "tools" / "dup.py", "@tool\ndef dup() -> str:\n    return 'a'\n")
    write(b / "tools" / "dup.py", "@tool\ndef dup() -> str:\n    return 'b'\n")
    tools = load_scripts([a, b]).tools
    assert [t.id for t in tools] == ["dup", "dup"]
    outputs = [call_tool(t, {}, ToolContext()).output for t in tools]
    assert outputs == ["a", "b"]  # each file imported as its own module


def test_private_names_and_all_narrow_the_bindings(tmp_path: Path) -> None:
    write(tmp_path / "tools" / "kit.py", '''
        @tool
        def one() -> str:
            return "1"

        @tool
        def two() -> str:
            return "2"

        _hidden = one
        __all__ = ["two"]
    ''')
    assert [t.id for t in load_scripts([tmp_path]).tools] == ["kit_two"]


def test_the_context_reaches_a_script_tool(tmp_path: Path) -> None:
    write(tmp_path / "tools" / "who.py", '''
        @tool
        def who(ctx: ToolContext) -> str:
            """Which agent calls."""
            return ctx.agent
    ''')
    (only,) = load_scripts([tmp_path]).tools
    assert call_tool(only, {}, ToolContext(agent="explore")).output == "explore"
    assert "ctx" not in only.json_schema().get("properties", {})


def test_plain_tool_objects_and_named_tools_follow_the_binding_rule(tmp_path: Path) -> None:
    write(tmp_path / "tools" / "lookup.py", '''
        from forge_tools import Tool

        default = Tool(
            id="ignored",
            description="Look a key up",
            parameters={"type": "object", "properties": {"key": {"type": "string"}}, "required": ["key"]},
            execute=lambda args, ctx: args["key"][::-1],
        )

        @tool(name="fixed_name")
        def anything() -> str:
            return "named"
    ''')
    tools = {t.id: t for t in load_scripts([tmp_path]).tools}
    assert set(tools) == {"lookup", "lookup_anything"}  # SPEC 2: the binding decides, not name=
    assert call_tool(tools["lookup"], {"key": "abc"}, ToolContext()).output == "cba"
    bad = call_tool(tools["lookup"], {}, ToolContext())
    assert bad.is_error and "- key: Field required" in bad.output
