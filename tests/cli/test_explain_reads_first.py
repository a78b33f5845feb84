"""Issue 18: explain and errors read first what matters: the verdict, the deciding rule and a fix in
the file's own syntax lead; the definition is behind --definition; a refused call is one line; bad
--call JSON shows an example; `outputs show --format json` prints the error object; no substituted key
is shown; the layers table keeps its rows on one line on a terminal."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest


def test_explain_leads_with_verdict_rule_and_fix(cli, project: Path) -> None:
    (project / "opencode.json").write_text('{"tools": {"bash": false}}\n')
    code, out, _ = cli("explain", "bash")
    assert code == 0
    answering, first, second = out.splitlines()[:3]
    assert answering == "Answering: opencode 1.18.33 (config: opencode's files only)"  # issue 28
    where = f"{project / 'opencode.json'}:1:12"
    assert first == f"bash: HIDDEN (at the permission layer), by `bash * deny` (the `tools` boolean bash: " \
                    f"false) at {where}"
    assert second.startswith('Fix: remove "bash": false from the `tools` map at ' + where)
    assert 'set it to "bash": true' in second and '"permission": {"bash": "ask"}' in second
    assert 'action to "ask"' not in out  # a tools map cannot hold "ask"
    assert '"properties"' not in out and "--definition" in out  # the schema is behind an option
    story = out.split("\nSandbox (")[0]  # bash's sandbox boundary is its own closing section
    assert len(story.splitlines()) < 25


def test_explain_tools_boolean_fix_in_yaml_and_toml(cli, project: Path) -> None:
    (project / "forge.toml").write_text("[agent.build.tools]\nwrite = false\n")
    code, out, _ = cli("explain", "edit")
    assert code == 0
    fix = out.splitlines()[2]  # after who answers and the verdict
    assert "remove write = false from the `agent.build.tools` map" in fix
    assert 'agent.build.permission = {edit = "ask"}' in fix  # TOML, as the file is written


def test_explain_definition_option_prints_the_schema(cli, project: Path) -> None:
    code, out, _ = cli("explain", "bash", "--definition")
    assert code == 0 and '"properties"' in out and '"command"' in out
    assert out.splitlines()[1].startswith("bash: VISIBLE, by ")
    code, out, _ = cli("explain", "bash", "--format", "json")
    assert json.loads(out)["definition"]["parameters"]["properties"]["command"]  # JSON keeps it


def test_explain_call_that_is_not_json_shows_an_example(cli, project: Path) -> None:
    code, _, err = cli("explain", "bash", "--call", "ls")
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert """e.g. --call '{"command": "ls"}'""" in err


def test_outputs_show_prints_the_json_error_object(cli, project: Path) -> None:
    code, out, err = cli("outputs", "show", "nope", "--format", "json")
    assert code == 1
    data = json.loads(out)
    assert data["exit_code"] == 1 and "unknown output 'nope'" in data["error"]
    assert err.count("\n") == 1


@pytest.mark.skipif(sys.platform == "win32", reason="bash")
def test_a_rejected_ask_is_one_line(cli, project: Path) -> None:
    (project / "opencode.json").write_text('{"permission": {"bash": "ask"}}\n')
    code, out, err = cli("run", "bash", "--args", '{"command": "echo hi"}')
    assert code == 4 and out == ""
    assert len(err.strip().splitlines()) == 1, err
    assert err.startswith("forge-tools: error: bash 'echo hi': not approved") and "--approve" in err


def test_a_denied_call_is_one_line(cli, project: Path) -> None:
    (project / "opencode.json").write_text('{"permission": {"read": {"*": "allow", "*.env": "deny"}}}\n')
    code, _, err = cli("run", "read", "--args", '{"filePath": "a.env"}')
    assert code == 4
    assert err.strip().splitlines() == [err.strip()]
    assert "error in" not in err and err.startswith("forge-tools: error: permission denied: read 'a.env'")


def test_no_substituted_key_is_shown(cli, project: Path, monkeypatch) -> None:
    monkeypatch.setenv("SECRETS", "vault-7f3a")
    (project / "opencode.json").write_text('{"permission": {"read": {"{env:SECRETS}/*": "deny"}}}\n')
    for args in (("config", "--show-origin"), ("config", "--show-origin", "--format", "json"),
                 ("config", "--format", "yaml"), ("check", "--select", "FT105"),
                 ("check", "--select", "FT105", "--format", "json")):
        code, out, err = cli(*args)
        assert code == 0, (args, err)
        assert "vault-7f3a" not in out + err, args
        assert "{env:SECRETS}/*" in out, args
    _, out, _ = cli("check", "--select", "FT105")
    assert "not valid" not in out and "does not hide read" in out  # FT105's own message, scrubbed


def test_layers_rows_stay_on_one_line_on_a_narrow_colour_terminal(cli, project: Path, monkeypatch) -> None:
    monkeypatch.delenv("NO_COLOR")
    monkeypatch.setenv("FORCE_COLOR", "1")
    monkeypatch.setenv("COLUMNS", "100")
    (project / "opencode.json").write_text(
        '{"model": "anthropic/claude-sonnet-4", "permission": {"todowrite": "deny"}}\n')
    code, out, _ = cli("layers")
    plain = re.sub(r"\x1b\[[0-9;]*m", "", out)
    lines = plain.splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("TOOL"))
    rows = lines[header + 1:header + 16]
    assert all(len(line.rstrip()) <= 100 for line in lines)
    assert [r.split()[0] for r in rows][:3] == ["invalid", "question", "bash"]  # one line per tool
    websearch = next(r for r in rows if r.startswith("websearch"))
    assert websearch.rstrip().endswith("…") and "builtin" in websearch
    assert "--wide" in plain
    code, out, _ = cli("layers", "--wide")
    assert code == 0
    plain = re.sub(r"\x1b\[[0-9;]*m", "", out)
    assert "flag exa or parallel is on" in plain and "…" not in plain
