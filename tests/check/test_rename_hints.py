"""A fix that renames a key must not create a duplicate key (FT007): when the same map in the same file
already has the suggested key, FT101/FT110 say to merge into it and point at it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest


def findings(cli, code: str) -> list[dict[str, Any]]:
    _code, out, err = cli("check", "--format", "json")
    assert "Traceback" not in err, err
    return [f for f in json.loads(out)["findings"] if f["code"] == code]


@pytest.mark.parametrize("name,text,existing_line", [
    ("forge.json", '{\n  "permission": {\n    "webfetch": "ask",\n    "webfech": "allow"\n  }\n}\n', 3),
    ("forge.json",
     '{\n  "permission": {\n    "webfech": {"*": "allow"},\n    "webfetch": {"*": "ask"}\n  }\n}\n', 4),
    ("forge.toml", '[permission]\nwebfetch = "ask"\nwebfech = "allow"\n', 2),
    ("forge.json",
     '{\n  "agent": {\n    "build": {\n      "permission": {\n        "webfetch": "ask",\n'
     '        "webfech": "allow"\n      }\n    }\n  }\n}\n', 5),
])
def test_ft101_says_merge_when_the_suggested_key_is_already_there(
        project: Path, cli, name: str, text: str, existing_line: int) -> None:
    (project / name).write_text(text)
    [f] = findings(cli, "FT101")
    assert "'webfetch'" in f["message"]
    assert "rename it" not in f["hint"]
    assert "merge" in f["hint"] and f"line {existing_line}" in f["hint"]
    [related] = f["related"]
    assert related["location"]["path"] == name and related["location"]["line"] == existing_line


def test_ft101_says_rename_when_the_key_is_only_in_another_map(project: Path, cli) -> None:
    (project / "forge.json").write_text(
        '{\n  "permission": {"webfetch": "ask"},\n'
        '  "agent": {"build": {"permission": {"webfech": "allow"}}}\n}\n')
    [f] = findings(cli, "FT101")
    assert f["hint"] == "rename it to 'webfetch'" and not f["related"]


def test_ft101_says_rename_when_the_key_is_only_in_another_file(
        project: Path, cli, isolated_env: dict[str, Path]) -> None:
    global_dir = isolated_env["home"] / ".config" / "forge"
    global_dir.mkdir(parents=True)
    (global_dir / "forge.json").write_text('{"permission": {"webfech": "allow"}}')
    (project / "forge.json").write_text('{"permission": {"webfetch": "ask"}}')
    [f] = findings(cli, "FT101")
    assert f["hint"] == "rename it to 'webfetch'"


def test_ft110_says_merge_into_an_existing_edit_key(project: Path, cli) -> None:
    (project / "forge.json").write_text(
        '{\n  "permission": {\n    "edit": "ask",\n    "write": "allow"\n  }\n}\n')
    [f] = findings(cli, "FT110")
    assert "merge" in f["hint"] and "line 3" in f["hint"]
    (project / "forge.json").write_text('{"permission": {"write": "allow"}}')
    [f] = findings(cli, "FT110")
    assert f["hint"] == "rename the key 'write' to 'edit'"
