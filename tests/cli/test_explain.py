"""`forge-tools explain TOOL` through the CLI: the whole story, --call, did-you-mean, JSON."""

from __future__ import annotations

import json
from pathlib import Path

import pytest


def test_explain_edit_for_plan_names_the_rule_and_where(cli, forge_project: Path, write_file) -> None:
    write_file(forge_project / "forge.toml", """
        model = "anthropic/claude-sonnet-4"

        [agent.plan.permission]
        edit = "deny"
    """)
    code, out, err = cli("explain", "edit", "--agent", "plan")
    assert code == 0, err
    toml = forge_project / "forge.toml"
    assert out.splitlines()[1].startswith("edit: HIDDEN (at the permission layer)")
    sections = ["Fix:", "1. Source", "2. Layers", "3. Deciding rule", "4. Definition sent to the model"]
    positions = [out.index(s) for s in sections]
    assert positions == sorted(positions)
    assert f"`edit * deny` at {toml}:4:1" in out
    fix = out.split("Fix:")[1]
    assert "remove the rule `edit * deny`" in fix and f"{toml}:4:1" in fix


def test_explain_a_builtin_rule_suggests_adding_one_after_it(cli, project: Path) -> None:
    code, out, _ = cli("explain", "todowrite", "--agent", "general")
    assert code == 0
    assert "builtin agent general" in out
    fix = out.split("Fix:")[1]
    assert "agent.general.permission.todowrite" in fix and "forge.toml" in fix


def test_explain_wildcard_deny_suggests_a_rule_after_it(cli, project: Path, write_file) -> None:
    text = '{\n  "permission": {\n    "*": "deny",\n    "read": "allow"\n  }\n}\n'
    write_file(project / "opencode.json", text)
    code, out, _ = cli("explain", "grep")
    assert code == 0
    assert "HIDDEN" in out and f"{project / 'opencode.json'}:3:5" in out
    assert "add a rule for grep after `* * deny`" in out
    # the suggestion is written in the file's own syntax (JSON here), not TOML
    assert '"grep": "ask" as a later entry of the `permission` map' in out
    assert " = " not in out.split("Fix:")[1]


def test_explain_model_drop_quotes_the_rule(cli, project: Path) -> None:
    code, out, _ = cli("explain", "apply_patch", "--model", "anthropic/claude-sonnet-4")
    assert code == 0
    assert "HIDDEN (at the model layer)" in out
    assert "model rule patch-mode" in out and "openai/gpt-5" in out.split("Fix:")[1]


def test_explain_shows_plugin_changes_as_a_diff_and_the_source(cli, forge_project: Path) -> None:
    code, out, _ = cli("explain", "read", "--definition")
    assert code == 0
    assert "changed by policy:" in out
    assert "+  Read a file (house rule: never print secrets)." in out
    code, out, _ = cli("explain", "count_lines")
    assert "script " in out and "count_lines.py" in out


def test_explain_call_checks_each_command_of_a_bash_chain(cli, forge_project: Path) -> None:
    code, out, err = cli("explain", "bash", "--call", '{"command": "git status && rm -rf /"}')
    assert code == 0, err
    toml = forge_project / "forge.toml"
    call = out.split("Call decision:")[1]
    assert call.startswith(" DENY")
    assert f"bash 'git status': allow (by `bash git * allow` at {toml}:4:" in call
    assert f"bash 'rm -rf /': deny (by `bash rm * deny` at {toml}:4:" in call


def test_explain_json_has_the_same_content(cli, forge_project: Path) -> None:
    code, out, _ = cli("explain", "bash", "--format", "json", "--call", '{"command": "ls; rm x"}')
    assert code == 0
    data = json.loads(out)
    for key in ("tool", "agent", "source", "shadowed", "layers", "deciding_rule", "definition",
                "definition_changes", "fix", "call", "visible", "hidden_at"):
        assert key in data
    assert data["call"]["action"] == "deny"
    assert [c["pattern"] for c in data["call"]["checks"]] == ["ls", "rm x"]
    first = data["call"]["checks"][0]
    assert first["action"] == "ask" and first["rule"]["pattern"] == "*"


def test_unknown_tool_did_you_mean_exit_1(cli, project: Path) -> None:
    code, out, err = cli("explain", "bsh")
    assert code == 1 and out == ""
    assert "unknown tool 'bsh'" in err and "'bash'" in err
    code, _, err = cli("explain", "lsp")
    assert code == 1 and "--flag lsp" in err


@pytest.mark.parametrize("call", ["not json", "[1]", '{"commnd": "ls"}'])
def test_bad_call_is_a_usage_error(cli, project: Path, call: str) -> None:
    code, _, err = cli("explain", "bash", "--call", call)
    assert code == 2 and err.startswith("forge-tools: error: --call:")


def test_request_drop_fix_names_the_option(cli, project: Path) -> None:
    code, out, _ = cli("explain", "bash", "--tools", '{"bash": false}')
    assert code == 0
    assert "HIDDEN (at the request layer)" in out and 'drop "bash": false from --tools' in out


def test_session_overlay_rule_is_the_deciding_rule(cli, project: Path, write_file) -> None:
    overlay = write_file(project / "session.toml", '[permission]\nbash = "deny"\n')
    code, out, _ = cli("explain", "bash", "--session-permission", str(overlay))
    assert code == 0 and f"`bash * deny` at {overlay}:2:1" in out


# ---- the same questions on a project with only an opencode.json (opencode's semantics, SPEC 3-4)

OPENCODE = """{
  "$schema": "https://opencode.ai/config.json",
  "model": "anthropic/claude-sonnet-4-5",
  "tools": {"write": false},
  "permission": {
    "bash": {"*": "ask", "git *": "allow", "rm *": "deny"},
    "glob": {"*.key": "deny"}
  },
  "agent": {
    "review": {"mode": "subagent", "description": "Reviews code.", "permission": {"task": "deny"}}
  }
}
"""


def test_opencode_json_project_gets_opencode_answers(cli, project: Path, write_file) -> None:
    write_file(project / "opencode.json", OPENCODE)
    code, out, err = cli("layers", "--format", "json")
    assert code == 0, err
    tools = {t["id"]: t for t in json.loads(out)["tools"]}
    # legacy `tools: {write: false}` folds into the edit permission: every edit-family tool is hidden
    for tool_id in ("edit", "write"):
        assert tools[tool_id]["hidden_at"] == "permission"
    # a deny with a specific pattern rejects calls but does not hide the tool; ask never hides
    assert tools["glob"]["visible"] and tools["bash"]["visible"]
    # opencode's layer one: no websearch without provider opencode or a flag; no apply_patch for claude
    assert tools["websearch"]["hidden_at"] == "model" and tools["apply_patch"]["hidden_at"] == "model"
    code, out, _ = cli("explain", "task", "--format", "json")
    description = json.loads(out)["definition"]["description"]
    assert "- review: Reviews code." in description and "- explore" in description
    code, out, _ = cli("explain", "bash", "--call", '{"command": "git status && rm -rf /"}')
    assert "Call decision: DENY" in out and "opencode.json:6:" in out


def test_a_request_true_re_allows_and_becomes_the_deciding_rule(cli, project: Path) -> None:
    code, out, _ = cli("explain", "todowrite", "--agent", "general", "--tools", '{"todowrite": true}')
    assert code == 0 and out.splitlines()[1].startswith("todowrite: VISIBLE")
    assert "re-allowed" in out
    assert "`todowrite * allow` from option --tools" in out.split("3. Deciding rule")[1]


def test_call_with_an_opaque_command_is_asked_like_run_would(cli, project) -> None:
    (project / "opencode.json").write_text('{"permission": {"bash": {"*": "allow", "rm *": "deny"}}}')
    code, out, _ = cli("explain", "bash", "--call", '{"command": "X=rm; $X -rf /"}', "--format", "json")
    assert code == 0
    import json

    checks = {c["pattern"]: c for c in json.loads(out)["call"]["gate"]["checks"]}  # what run enforces
    assert checks["$X -rf /"]["action"] == "ask"
    assert checks["$X -rf /"]["escalated_by"]["pattern"] == "rm *"


def test_explain_says_the_agent_is_disabled(cli, project: Path, write_file) -> None:
    import json

    write_file(project / "opencode.json", '{"agent": {"plan": {"disable": true}}}')
    code, out, _ = cli("explain", "edit", "--agent", "plan")
    assert code == 0 and "disabled" in "\n".join(out.splitlines()[:4]) and "would not be used" in out
    _, out, _ = cli("explain", "edit", "--agent", "plan", "--format", "json")
    assert json.loads(out)["agent_disabled"] is True
    _, out, _ = cli("explain", "edit", "--format", "json")
    assert json.loads(out)["agent_disabled"] is False


FAILING_DEFINITION_HOOK = """\
from forge_tools import hookimpl


@hookimpl
def tool_definition(tool_id, definition):
    if tool_id == "grep":
        definition.description = "half-written"
        raise RuntimeError("kaboom")
"""


def test_a_definition_hook_failing_on_the_explained_tool_is_reported(cli, project: Path) -> None:
    plugin = project / ".forge" / "plugins" / "boom.py"
    plugin.parent.mkdir(parents=True)
    plugin.write_text(FAILING_DEFINITION_HOOK)
    code, out, err = cli("explain", "grep", "--format", "json")
    assert code == 0
    data = json.loads(out)
    [failed] = data["definition_problems"]
    assert failed["kind"] == "plugin" and failed["name"] == "boom" and "kaboom" in failed["message"]
    assert failed in data["problems"] and "kaboom" in err
    assert data["definition"]["description"] != "half-written"  # the definition from before the hook
    reason = next(lv for lv in data["layers"] if lv["layer"] == "definition")["reason"]
    assert "plugin boom" in reason and "failed" in reason
    code, out, _ = cli("explain", "grep")
    assert "HOOK FAILED: plugin boom" in out and "kaboom" in out
    # another tool's explanation does not run grep's hook, and says nothing of it
    code, out, _ = cli("explain", "read", "--format", "json")
    assert json.loads(out)["definition_problems"] == []
