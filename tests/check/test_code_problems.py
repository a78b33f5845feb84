"""`check --load-code`: plugin problems are FT010 at the plugin's file and line (not FT009, which is for
tool scripts), script import failures carry the script's location, and the "plugin tools unknown" note
is said only when there are plugins."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def check(cli, *args: str) -> tuple[int, dict[str, Any]]:
    code, out, err = cli("check", "--format", "json", *args)
    assert "Traceback" not in err, err
    return code, json.loads(out)


def by_code(data: dict[str, Any], code: str) -> list[dict[str, Any]]:
    return [f for f in data["findings"] if f["code"] == code]


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_plugin_problems_are_ft010_at_the_hook(project: Path, cli) -> None:
    (project / "forge.json").write_text('{"plugin": ["./lib/listed.py"]}')
    write(project / ".forge" / "plugins" / "undecorated.py",
          "x = 1\n\n\ndef register_tools(register):\n    pass\n")
    write(project / ".forge" / "plugins" / "broken.py", "x = 1\ndef f(:\n")
    write(project / "lib" / "listed.py",
          "import forge_tools\n\n\n@forge_tools.hookimpl\ndef register_tools(register):\n"
          "    raise RuntimeError('bad')\n")
    code, data = check(cli, "--load-code")
    assert code == 1  # an error: a plugin that does not load leaves its blocking hooks out
    found = {f["location"]["path"]: f for f in by_code(data, "FT010")}
    assert set(found) == {".forge/plugins/undecorated.py", ".forge/plugins/broken.py", "lib/listed.py"}
    assert all(f["level"] == "error" for f in found.values())
    undecorated = found[".forge/plugins/undecorated.py"]
    assert (undecorated["location"]["line"], undecorated["location"]["column"]) == (4, 1)
    assert "implements no forge-tools hook" in undecorated["message"]
    broken = found[".forge/plugins/broken.py"]
    assert (broken["location"]["line"], broken["location"]["column"]) == (2, 7)
    listed = found["lib/listed.py"]
    assert listed["location"]["line"] == 5 and "raised RuntimeError" in listed["message"]
    [related] = listed["related"]
    assert related["location"]["path"] == "forge.json" and related["location"]["line"] == 1
    assert not by_code(data, "FT009")


def test_a_module_plugin_is_located_where_it_is_listed(project: Path, cli) -> None:
    (project / "forge.json").write_text('{\n  "plugin": ["no_such_forge_plugin_module"]\n}')
    _code, data = check(cli, "--load-code")
    [f] = by_code(data, "FT010")
    assert f["location"]["path"] == "forge.json" and f["location"]["line"] == 2
    assert "no_such_forge_plugin_module" in f["message"]


def test_script_import_failures_keep_ft009_with_the_scripts_location(project: Path, cli) -> None:
    (project / "forge.json").write_text("{}")
    write(project / ".forge" / "tools" / "raises.py", "import os\n\nraise RuntimeError('boom')\n")
    write(project / ".forge" / "tools" / "syntax.py", "def f(:\n")
    _code, data = check(cli, "--load-code")
    found = {f["location"]["path"]: f for f in by_code(data, "FT009")}
    assert found[".forge/tools/raises.py"]["location"]["line"] == 3
    assert (found[".forge/tools/syntax.py"]["location"]["line"],
            found[".forge/tools/syntax.py"]["location"]["column"]) == (1, 7)
    assert all(f["level"] == "warning" for f in found.values())
    assert not by_code(data, "FT010")


def test_no_plugin_note_without_plugins(project: Path, cli) -> None:
    (project / "forge.json").write_text('{"permission": {"read": "allow"}}')
    code, out, _ = cli("check", "--format", "text")
    assert code == 0
    assert "plugin" not in out
    _code, data = check(cli)
    assert not any("plugin" in n for n in data["notes"])


def test_plugins_without_load_code_are_said_once(project: Path, cli) -> None:
    (project / "forge.json").write_text('{"plugin": ["./p.py"]}')
    (project / "p.py").write_text("")
    _code, out, _ = cli("check", "--format", "text")
    assert "FT109" in out
    assert out.count("plugin tools are unknown") + out.count("plugin tools unknown") == 1
