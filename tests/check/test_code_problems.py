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


def test_a_missing_plugin_file_is_located_at_its_plugin_entry_in_every_format(project: Path, cli) -> None:
    (project / "forge.toml").write_text(
        'model = "a/b"\nplugin = [\n  "plug/there.py",\n  "plug/missing.py",\n]\n')
    write(project / "plug" / "there.py",
          "import forge_tools\n\n\n@forge_tools.hookimpl\ndef register_tools(register):\n    pass\n")
    code, data = check(cli, "--load-code")
    assert code == 1
    [f] = by_code(data, "FT010")
    assert (f["location"]["path"], f["location"]["line"], f["location"]["column"]) == ("forge.toml", 4, 3)
    assert "plug/missing.py" in f["message"] and "does not exist" in f["message"]
    assert "/" + project.name not in f["message"]  # the entry as written, not a checkout-specific path

    _code, out, _ = cli("check", "--load-code", "--format", "github")
    [line] = [x for x in out.splitlines() if "FT010" in x]
    assert line.startswith("::error file=forge.toml,line=4,col=3,title=FT010 plugin problem::")
    assert "plug/missing.py" in line and "file=plug" not in line

    _code, out, _ = cli("check", "--load-code", "--format", "sarif")
    [result] = [r for r in json.loads(out)["runs"][0]["results"] if r["ruleId"] == "FT010"]
    physical = result["locations"][0]["physicalLocation"]
    assert physical["artifactLocation"]["uri"] == "forge.toml"
    assert (physical["region"]["startLine"], physical["region"]["startColumn"]) == (4, 3)

    _code, out, _ = cli("check", "--load-code", "--format", "text")
    assert "plug/missing.py\n" not in out  # not a group of its own: under forge.toml
    [row] = [x for x in out.splitlines() if "FT010" in x]
    assert row.lstrip().startswith("4:3") and "plug/missing.py" in row


def test_a_plugin_path_that_is_a_directory_is_located_at_its_entry(project: Path, cli) -> None:
    (project / "forge.json").write_text('{\n  "plugin": [\n    "./plug.py"\n  ]\n}\n')
    (project / "plug.py").mkdir()
    _code, data = check(cli, "--load-code")
    [f] = by_code(data, "FT010")
    assert (f["location"]["path"], f["location"]["line"]) == ("forge.json", 3)
    assert "./plug.py" in f["message"] and "is not a file" in f["message"]


def test_same_named_plugins_in_two_folders_are_told_apart(project: Path, cli) -> None:
    (project / "forge.json").write_text('{"plugin": ["./a/p.py", "./b/p.py"]}')
    write(project / "a" / "p.py", "x = 1\ndef f(:\n")
    _code, data = check(cli, "--load-code")
    found = {(f["location"]["path"], f["location"]["line"]) for f in by_code(data, "FT010")}
    assert ("a/p.py", 2) in found  # the broken file at its line
    assert ("forge.json", 1) in found  # the missing one at its entry
