"""Project text never reaches the terminal raw (issue 22): a control character in a string that comes
from a project, a server or a tool is shown escaped (`\\u001b`) by every text renderer, and JSON output
keeps the real string. The sanitiser sits where text leaves the process (report/terminal.py), so these
cases go through the real CLI, each through a different renderer.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

OSC = "\x1b]52;c;c2VjcmV0\x07"  # OSC 52: write the clipboard
CSI = "\x1b[8m"  # SGR 8: hide the text that follows
C1 = "\x9b2J"  # C1 CSI: clear the screen
RAW = ("\x1b", "\x07", "\x9b", "\x00", "\r", "\u202e")


def assert_escaped(*texts: str) -> None:
    for text in texts:
        for ch in RAW:
            assert ch not in text, f"{ch!r} reached the terminal raw in {text!r}"


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def hostile(project: Path) -> Path:
    # a Markdown agent (YAML escapes), a JSON agent (JSON escapes), a script tool, a rule pattern
    write(project / ".forge/agent/evil.md",
          '---\ndescription: "evil \\e]52;c;c2VjcmV0\\a \\x9b2J end"\nmode: subagent\n---\nbody\n')
    write(project / ".forge/tools/t.py",
          "from forge_tools import tool\n\n"
          "@tool(description='tool \\x1b]0;title\\x07 desc \\u202e')\n"
          "def hello(x: str) -> str:\n    return x\n")
    write(project / "forge.json", json.dumps({
        "agent": {"j": {"description": f"json {CSI} hidden", "mode": "subagent"}},
        "permission": {"bash": {f"rm {OSC}*": "deny", "*": "ask"}},
    }))
    return project


@pytest.mark.parametrize("args", [
    ("agents",),
    ("explain", "task"),
    ("explain", "t_hello"),
    ("layers",),
    ("rules",),
    ("rules", "--agent", "j"),
    ("config",),
    ("config", "--show-origin"),
    ("explain", "bash", "--call", json.dumps({"command": f"rm {OSC}x"})),
    ("check",),
    ("check", "--format", "github"),
])
def test_text_output_escapes_project_controls(hostile: Path, cli: Any, args: tuple[str, ...]) -> None:
    _, out, err = cli(*args)
    assert_escaped(out, err)


def test_what_is_shown_is_the_escape(hostile: Path, cli: Any) -> None:
    code, out, _ = cli("agents")
    assert code == 0
    assert "evil \\u001b]52;c;c2VjcmV0\\u0007 \\u009b2J end" in out
    assert "json" in out  # click drops a CSI sequence when stdout is no terminal; escaped on one
    code, out, _ = cli("explain", "t_hello")
    assert "tool \\u001b]0;title\\u0007 desc \\u202e" in out


def test_json_keeps_the_real_string(hostile: Path, cli: Any) -> None:
    code, out, err = cli("agents", "--format", "json")
    assert code == 0, err
    assert_escaped(out)  # JSON escapes: the document on the terminal is still inert
    agents = {a["name"]: a for a in json.loads(out)["agents"]}
    assert agents["evil"]["description"] == "evil \x1b]52;c;c2VjcmV0\x07 \x9b2J end"
    assert agents["j"]["description"] == f"json {CSI} hidden"
    code, out, err = cli("explain", "t_hello", "--format", "json")
    assert json.loads(out)["definition"]["description"] == "tool \x1b]0;title\x07 desc \u202e"


def test_colour_terminal_keeps_its_own_codes_and_escapes_the_text(hostile: Path, cli: Any,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NO_COLOR")
    monkeypatch.setenv("FORCE_COLOR", "1")
    _, out, _ = cli("layers")  # the rich table
    assert "\x1b[" in out  # rich's own styles reach the terminal
    assert OSC not in out and "\x07" not in out
    _, out, _ = cli("check")  # check's rich report
    assert "\x1b]" not in out and "\x07" not in out


def test_a_tools_output_is_escaped_in_text_and_real_in_json(project: Path, cli: Any) -> None:
    write(project / "forge.json", json.dumps({"permission": {"bash": "allow"}}))
    command = {"command": "printf 'a\\033]52;c;eA==\\007b\\233c\\n'"}
    code, out, err = cli("run", "bash", "--args", json.dumps(command))
    assert code == 0, err
    assert_escaped(out, err)
    assert "a\\u001b]52;c;eA==\\u0007b" in out
    code, out, err = cli("run", "bash", "--args", json.dumps(command), "--format", "json")
    assert "a\x1b]52;c;eA==\x07b" in json.loads(out)["result"]["output"]


def test_an_mcp_tool_description_is_escaped(project: Path, cli: Any) -> None:
    server = Path(__file__).with_name("mcp_hostile_server.py")
    write(project / "opencode.json", json.dumps({"mcp": {"evil": {
        "type": "local", "command": [sys.executable, str(server)]}}}))
    code, out, err = cli("explain", "evil_fetch_data")
    assert code == 0, err
    assert_escaped(out, err)
    assert "fetch \\u001b]52;c;c2VjcmV0\\u0007 data \\u009b2J done" in out
    code, out, err = cli("explain", "evil_fetch_data", "--format", "json")
    assert json.loads(out)["definition"]["description"] == "fetch \x1b]52;c;c2VjcmV0\x07 data \x9b2J done"


def test_a_file_path_with_controls_is_escaped(project: Path, cli: Any) -> None:
    bad = project / "a\x1b]0;pwned\x07.txt"
    bad.write_text("x\n")
    write(project / "forge.json", json.dumps({"permission": {"read": {"*": "allow"}}}))
    _, out, err = cli("run", "read", "--args", json.dumps({"filePath": str(bad)}))
    assert_escaped(out, err)
    _, out, err = cli("explain", "read", "--call", json.dumps({"filePath": str(bad)}))
    assert_escaped(out, err)
    assert "pwned" in out


def test_an_error_message_is_escaped(project: Path, cli: Any) -> None:
    code, out, err = cli("explain", f"no{OSC}such")
    assert code != 0
    assert_escaped(out, err)
