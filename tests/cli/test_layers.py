"""`forge-tools layers` (and bare `forge-tools`) through the CLI."""

from __future__ import annotations

import json
from pathlib import Path


def test_layers_shows_every_tool_fate(cli, forge_project: Path) -> None:
    code, out, err = cli("layers")
    assert code == 0, err
    assert "agent build (primary)" in out and "forge.toml" in out
    lines = {line.split()[0]: line for line in out.splitlines()
             if line and not line.startswith(("agent", "config"))}
    assert "visible" in lines["bash"]
    assert "hidden at model" in lines["apply_patch"] and "patch mode" in lines["apply_patch"]
    assert "script .forge/tools/count_lines.py" in lines["count_lines"]
    assert "changed" in lines["read"]
    assert "candidate tools are sent to the model" in out


def test_layers_json_shape(cli, forge_project: Path) -> None:
    code, out, _ = cli("layers", "--agent", "plan", "--format", "json")
    assert code == 0
    data = json.loads(out)
    assert {"agent", "model", "client", "flags", "tools"} <= set(data)
    assert data["agent"] == "plan" and data["client"] == "cli" and data["flags"] == []
    tool = next(t for t in data["tools"] if t["id"] == "webfetch")
    assert {"id", "source", "permission", "visible", "hidden_at", "reason", "layers"} <= set(tool)
    assert set(tool["source"]) == {"kind", "path", "plugin"}
    assert tool["visible"] is False and tool["hidden_at"] == "permission"
    [perm] = [lv for lv in tool["layers"] if lv["layer"] == "permission"]
    assert set(perm) == {"layer", "kept", "reason", "rule"}
    rule = perm["rule"]
    assert {"permission", "pattern", "action", "origin"} <= set(rule)
    assert rule["origin"]["path"].endswith("forge.toml") and rule["origin"]["line"] == 7
    model_rule = next(t for t in data["tools"] if t["id"] == "apply_patch")["layers"][0]["rule"]
    assert model_rule["kind"] == "model" and model_rule["id"] == "patch-mode" and model_rule["text"]
    # every rule has the shape, a model rule too (its permission fields are null)
    for t in data["tools"]:
        for lv in t["layers"]:
            if lv["rule"] is not None:
                assert {"permission", "pattern", "action", "origin"} <= set(lv["rule"]), (t["id"], lv)
                assert {"path", "line", "column"} <= set(lv["rule"]["origin"])
    layers = (None, "model", "definition", "permission", "request")
    assert all(t["hidden_at"] in layers for t in data["tools"])


def test_layers_matrix_shows_every_agent(cli, forge_project: Path) -> None:
    code, out, _ = cli("layers", "--matrix")
    assert code == 0
    header = out.splitlines()[1]
    for agent in ("build", "plan", "general", "explore"):
        assert agent in header
    rows = {line.split()[0]: line.split()[1:] for line in out.splitlines()[2:] if line and line[0].isalpha()}
    assert rows["bash"][0] == "ask"  # bash `*` is ask in forge.toml
    assert rows["edit"][:2] == ["allow", "limited"]  # plan: `edit * deny` then allow for plan files
    assert rows["webfetch"][1] == "hidden"
    assert rows["todowrite"][2] == "hidden"  # general denies todowrite
    assert "legend:" in out
    code, out, _ = cli("layers", "--matrix", "--format", "json")
    data = json.loads(out)
    assert data["matrix"]["explore"]["edit"] == "hidden" and data["matrix"]["build"]["read"] == "allow"


def test_problems_go_to_stderr_and_the_rest_works(cli, forge_project: Path, write_file) -> None:
    write_file(forge_project / ".forge" / "plugins" / "typo.py", """
        from forge_tools import hookimpl

        @hookimpl
        def tool_defintion(definition):
            pass
    """)
    code, out, err = cli("layers")
    assert code == 0
    assert "plugin typo" in err and "tool_defintion" in err and "typo.py" in err
    assert "count_lines" in out


def test_shadowing_is_never_silent(cli, forge_project: Path, write_file) -> None:
    write_file(forge_project / ".forge" / "tools" / "bash.py", """
        from forge_tools import tool

        @tool
        def bash(command: str) -> str:
            "My bash."
            return command
    """)
    code, out, _ = cli("layers")
    assert code == 0
    assert "shadowed: bash: script .forge/tools/bash.py replaces builtin" in out
    code, out, _ = cli("layers", "--format", "json")
    bash = next(t for t in json.loads(out)["tools"] if t["id"] == "bash")
    assert bash["source"]["kind"] == "script" and bash["shadowed"][0]["kind"] == "builtin"


def test_pure_drops_the_plugin(cli, forge_project: Path) -> None:
    _, out, _ = cli("layers", "--pure", "--format", "json")
    read = next(t for t in json.loads(out)["tools"] if t["id"] == "read")
    definition = next(lv for lv in read["layers"] if lv["layer"] == "definition")
    assert "policy" not in definition["reason"]


def test_flags_client_and_model_change_layer_one(cli, project: Path) -> None:
    _, out, _ = cli("layers", "--format", "json", "--model", "openai/gpt-5", "--flag", "lsp", "--flag", "exa",
                    "--client", "vscode")
    tools = {t["id"]: t for t in json.loads(out)["tools"]}
    assert tools["apply_patch"]["visible"] and not tools["edit"]["visible"]
    assert tools["websearch"]["visible"] and "lsp" in tools
    assert tools["question"]["hidden_at"] == "model"


def test_bad_tools_option_is_exit_2(cli, project: Path) -> None:
    code, _, err = cli("layers", "--tools", "{edit: false}")
    assert code == 2 and "--tools" in err and "Traceback" not in err
    code, _, err = cli("layers", "--model", "gpt-5")
    assert code == 2 and "--model" in err


def test_bare_forge_tools_works_with_no_config(cli, project: Path) -> None:
    code, out, err = cli()
    assert code == 0, err
    assert "the embedded default" in out
    assert "bash" in out and "explain" in out.splitlines()[-1]


def test_a_flag_typo_is_a_usage_error_with_did_you_mean(cli, project: Path) -> None:
    code, out, err = cli("layers", "--flag", "lspp")
    assert code == 2 and out == ""
    assert "--flag" in err and "'lspp'" in err and "did you mean --flag lsp" in err
    assert "Traceback" not in err
    for flag in ("lsp", "plan", "exa", "parallel", "question"):  # every flag some rule reads is accepted
        code, _, err = cli("layers", "--flag", flag)
        assert code == 0, err


def test_an_unknown_client_is_accepted_with_a_note_of_what_it_changes(cli, project: Path) -> None:
    code, out, err = cli("layers", "--client", "foo", "--format", "json")
    assert code == 0
    assert json.loads(out)["client"] == "foo"
    [note] = [line for line in err.splitlines() if "--client" in line]
    assert "'foo'" in note and "question" in note and "plan_exit" in note and "app, cli, desktop" in note
    for client in ("app", "cli", "desktop"):
        _, _, err = cli("layers", "--client", client)
        assert "--client" not in err


def test_a_tools_name_matching_no_tool_is_warned_about(cli, project: Path) -> None:
    code, out, err = cli("layers", "--tools", '{"bogus": true, "edti": false}', "--format", "json")
    assert code == 0 and json.loads(out)["tools"]
    lines = [line for line in err.splitlines() if "--tools" in line]
    assert len(lines) == 2
    assert any("'bogus'" in line for line in lines)
    assert any("'edti'" in line and "did you mean 'edit'" in line for line in lines)
    # a real tool, a permission name that covers tools (edit: write too), a flag-gated builtin, a wildcard
    _, _, err = cli("layers", "--tools", '{"bash": false, "edit": false, "lsp": false, "web*": false}')
    assert "--tools" not in err
    _, _, err = cli("layers", "--matrix", "--tools", '{"bogus": true}')
    assert "'bogus'" in err


def test_a_disabled_agent_is_said_to_be_disabled(cli, project: Path, write_file) -> None:
    write_file(project / "opencode.json", '{"agent": {"plan": {"disable": true}}}')
    code, out, _ = cli("layers", "--agent", "plan")
    assert code == 0
    assert "disabled" in "\n".join(out.splitlines()[:3]) and "would not be used" in out
    _, out, _ = cli("layers", "--agent", "plan", "--format", "json")
    assert json.loads(out)["agent_disabled"] is True
    _, out, _ = cli("layers", "--agent", "build", "--format", "json")
    assert json.loads(out)["agent_disabled"] is False
    _, out, _ = cli("layers", "--agent", "build")
    assert "would not be used" not in out
    _, out, _ = cli("layers", "--matrix")
    assert "disabled agents (not shown): plan" in out
    _, out, _ = cli("layers", "--matrix", "--agent", "plan")
    assert "not shown" not in out and "would not be used" in out


def test_matrix_help_names_the_legend_states(cli, project: Path) -> None:
    import re

    code, out, _ = cli("layers", "--help")
    assert code == 0
    text = re.sub(r"[\s│|]+", " ", out)
    assert "allow, ask, limited" in text and "hidden" in text
    assert "ask-gated" not in text


FAILING_DEFINITION_HOOK = """\
from forge_tools import hookimpl


@hookimpl
def tool_definition(tool_id, definition):
    if tool_id == "grep":
        definition.description = "half-written"
        raise RuntimeError("kaboom")
"""


def _plugin(project: Path, name: str, body: str) -> Path:
    path = project / ".forge" / "plugins" / f"{name}.py"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(body)
    return path


def test_problems_are_objects_naming_kind_name_and_origin(cli, project: Path) -> None:
    plugin = _plugin(project, "broken", "import no_such_module_here\n")
    script = project / ".forge" / "tools" / "bad.py"
    script.parent.mkdir(parents=True)
    script.write_text("x = 1\nraise ValueError('no')\n")
    code, out, err = cli("layers", "--format", "json")
    assert code == 0, err
    problems = json.loads(out)["problems"]
    by_kind = {p["kind"]: p for p in problems}
    assert set(by_kind) == {"plugin", "script"}
    for p in problems:
        assert set(p) == {"kind", "name", "origin", "message", "text"}
        assert {"path", "line", "column"} <= set(p["origin"])  # the one JSON form of an origin
        assert p["message"] in p["text"] and p["text"] in err
    assert by_kind["plugin"]["name"] == "broken" and "no_such_module_here" in by_kind["plugin"]["message"]
    assert by_kind["plugin"]["origin"]["path"] == str(plugin)
    assert by_kind["script"]["name"] == "bad.py" and by_kind["script"]["origin"]["path"] == str(script)
    assert by_kind["script"]["origin"]["line"] == 2


def test_a_failed_definition_hook_is_said_in_the_definition_layer(cli, project: Path) -> None:
    _plugin(project, "boom", FAILING_DEFINITION_HOOK)
    code, out, _ = cli("layers", "--format", "json")
    assert code == 0
    data = json.loads(out)
    grep = next(t for t in data["tools"] if t["id"] == "grep")
    reason = next(lv for lv in grep["layers"] if lv["layer"] == "definition")["reason"]
    assert "plugin boom" in reason and "failed" in reason and "before that hook" in reason
    assert "as the tool declares it" not in reason.split("(")[0]
    read = next(t for t in data["tools"] if t["id"] == "read")
    assert next(lv for lv in read["layers"] if lv["layer"] == "definition")["reason"] == (
        "definition as the tool declares it")
    [problem] = data["problems"]
    assert problem["kind"] == "plugin" and problem["name"] == "boom" and "kaboom" in problem["message"]
    code, out, _ = cli("layers")
    [row] = [line for line in out.splitlines() if line.startswith("grep ")]
    assert "hook failed" in row
