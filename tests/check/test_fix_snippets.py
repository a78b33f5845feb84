"""Fix advice is written in the syntax of the file it is about (each format module writes its own
snippets): what `check` and `explain` tell a person to paste reads back in that file's format."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml

READ_BACK = {"forge.json": json.loads, "forge.yaml": yaml.safe_load, "forge.toml": tomllib.loads}

CONFIGS = {
    "forge.json": json.dumps({"tools": {"edit": False},
                              "permission": {"read": {"/opt/data/*": "allow"},
                                             "bash": {"git *": "allow", "*": "deny"}}}),
    "forge.yaml": 'tools:\n  edit: false\npermission:\n  read:\n    "/opt/data/*": allow\n'
                  '  bash:\n    "git *": allow\n    "*": deny\n',
    "forge.toml": '[tools]\nedit = false\n\n[permission.read]\n"/opt/data/*" = "allow"\n\n'
                  '[permission.bash]\n"git *" = "allow"\n"*" = "deny"\n',
}


def findings(cli: Any, project: Path, name: str) -> dict[str, dict[str, Any]]:
    (project / name).write_text(CONFIGS[name])
    code, out, err = cli("check", "--select", "FT", "--format", "json")
    assert code in (0, 1), err
    return {f["code"]: f for f in json.loads(out)["findings"]}


def reads_back(name: str, snippet: str) -> Any:
    """A snippet as the file holds it: TOML as written, JSON and YAML as members of a mapping."""
    return READ_BACK[name](snippet if name == "forge.toml" else "{" + snippet + "}")


@pytest.mark.parametrize("name", list(CONFIGS))
def test_external_directory_advice_is_in_the_files_syntax(cli: Any, project: Path, name: str) -> None:
    hint = findings(cli, project, name)["FT113"]["hint"]
    snippet = hint.split(" add ", 1)[1].split(", or write the pattern", 1)[0]
    assert reads_back(name, snippet) == {"external_directory": {"/opt/data/*": "allow"}}


@pytest.mark.parametrize("name", list(CONFIGS))
def test_legacy_tools_advice_is_in_the_files_syntax(cli: Any, project: Path, name: str) -> None:
    found = findings(cli, project, name)["FT107"]
    snippet = found["hint"].split(" with ", 1)[1].split(", at the start", 1)[0]
    assert reads_back(name, snippet) == {"permission": {"edit": "deny"}}
    shown = found["message"].split("form: ", 1)[1]
    assert reads_back(name, shown) == {"permission": {"edit": "deny"}}


@pytest.mark.parametrize("name", list(CONFIGS))
def test_catch_all_deny_advice_is_in_the_files_syntax(cli: Any, project: Path, name: str) -> None:
    hint = findings(cli, project, name)["FT104"]["hint"]
    snippet = re.match(r"put (.+) first and", hint)
    assert snippet is not None
    assert reads_back(name, snippet.group(1)) == {"*": "deny"}


@pytest.mark.parametrize("name", list(CONFIGS))
def test_explain_fix_is_in_the_files_syntax(cli: Any, project: Path, name: str) -> None:
    (project / name).write_text(CONFIGS[name])
    code, out, err = cli("explain", "bash")
    assert code == 0, err
    # "... write the map as SNIPPET[ in the `permission` map] (the last matching rule decides ..."
    found = re.search(r"write the map as (.+?)(?: in the `[^`]+` map)? \(the last matching", out)
    assert found is not None, out
    data = reads_back(name, found.group(1))
    rules = data["permission"]["bash"] if "permission" in data else data["bash"]
    assert list(rules.items()) == [("*", "deny"), ("git *", "allow")]
