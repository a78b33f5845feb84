"""The code examples of the README and the docs pages work as written (docs that drift are worse than
none)."""

from __future__ import annotations

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def page_with(marker: str) -> str:
    """The text of the one page (README or docs/) that holds `marker`."""
    [text] = [t for t in (p.read_text(encoding="utf-8") for p in PAGES) if marker in t]
    return text


def code_block_after(marker: str) -> str:
    text = page_with(marker)
    start = text.index("```python", text.index(marker)) + len("```python")
    return text[start:text.index("```", start)]


def test_plugin_example_registers_working_tools(project: Path, cli) -> None:
    plugins = project / ".forge" / "plugins"
    plugins.mkdir(parents=True)
    (plugins / "demo.py").write_text(code_block_after("A plugin registers tools by calling"))
    code, out, err = cli("layers", "--format", "json")
    assert code == 0, err
    tools = {t["id"]: t for t in json.loads(out)["tools"]}
    assert tools["greet"]["visible"] and tools["echo"]["visible"]
    assert tools["echo"]["source"]["kind"] == "plugin"
    code, out, _ = cli("run", "echo", "--args", '{"text": "hi"}')
    assert code == 0 and out.strip() == "hi"


def test_tool_script_example_counts_lines(project: Path, cli) -> None:
    tools = project / ".forge" / "tools"
    tools.mkdir(parents=True)
    (tools / "count.py").write_text(code_block_after("# Writing tools"))
    (project / "three.txt").write_text("a\nb\nc\n")
    code, out, err = cli("run", "count_count_lines", "--args", '{"path": "three.txt"}')
    assert code == 0, err
    assert out.strip() == "3"


def test_mcp_example_is_read_as_documented() -> None:
    from forge_tools.origin import Node, Origin
    from forge_tools.sources.mcp import servers_from_config

    text = page_with("**MCP servers.**")
    start = text.index("```json", text.index("**MCP servers.**")) + len("```json")
    config = json.loads(text[start:text.index("```", start)])
    servers, problems = servers_from_config(Node.from_plain(config, Origin("file", "x")), Path("."))
    assert problems == []
    assert [(s.name, s.kind, s.timeout_ms) for s in servers] == [("files", "local", 10000),
                                                                 ("github", "remote", 5000)]


def test_library_example_decides_and_runs(project: Path, capsys) -> None:
    (project / "forge.json").write_text(json.dumps({"permission": {"bash": {
        "*": "ask", "git *": "allow", "echo *": "allow", "rm *": "deny"}}}))
    exec(compile(code_block_after("# Using forge-tools as a library"), "python-api.md", "exec"), {})
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("False permission hidden: ")  # explore may not edit
    assert lines[1].startswith("deny bash 'rm *' deny (")  # the whole line, not `ask`
    assert "bash git status allow" in lines[2] and "bash rm -rf build deny" in lines[3]
    assert lines[4].startswith("0 hi")
