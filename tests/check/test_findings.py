"""Each semantic finding code on a small located project (check never imports project code)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest


def check(cli, *args: str) -> tuple[int, list[dict[str, Any]], dict[str, Any]]:
    code, out, err = cli("check", "--format", "json", *args)
    assert "Traceback" not in err, err
    data = json.loads(out)
    return code, data["findings"], data


def only(findings: list[dict[str, Any]], code: str) -> list[dict[str, Any]]:
    return [f for f in findings if f["code"] == code]


def line_of(path: Path, needle: str) -> int:
    return next(i for i, line in enumerate(path.read_text().splitlines(), 1) if needle in line)


def config(project: Path, text: str) -> Path:
    path = project / "forge.json"
    path.write_text(text)
    return path


def test_ft101_unknown_permission_with_did_you_mean(project: Path, cli) -> None:
    path = config(project, '{\n  "permission": {\n    "bsh": "deny",\n    "read": "allow"\n  }\n}\n')
    code, findings, _ = check(cli)
    [f] = only(findings, "FT101")
    assert code == 1 and f["level"] == "error"
    assert "'bash'" in f["message"] and f["location"]["line"] == line_of(path, "bsh")
    assert f["location"]["path"] == "forge.json"


def test_ft101_script_tool_ids_are_known(project: Path, cli) -> None:
    tools = project / ".forge" / "tools"
    tools.mkdir(parents=True)
    (tools / "deploy.py").write_text("from forge_tools import tool\n\n@tool\ndef default():\n    pass\n\n"
                                     "@tool\ndef rollback():\n    pass\n")
    config(project, '{"permission": {"deploy": "ask", "deploy_rollback": "deny", "deploy_rolback": "ask"}}')
    _, findings, _ = check(cli)
    assert [f["data"]["name"] for f in only(findings, "FT101")] == ["deploy_rolback"]
    assert "'deploy_rollback'" in only(findings, "FT101")[0]["message"]


def test_ft102_wildcard_matching_nothing(project: Path, cli) -> None:
    config(project, '{"permission": {"mcpx_*": "ask", "web*": "ask", "*": "allow"}}')
    code, findings, _ = check(cli)
    assert [f["message"].split("'")[1] for f in only(findings, "FT102")] == ["mcpx_*"]
    assert code == 0  # a warning


def test_ft103_unreachable_rule_exact_for_question_mark(project: Path, cli) -> None:
    path = config(project, '{"permission": {"bash": {\n'
                           '  "git status": "allow",\n'
                           '  "ls ?": "allow",\n'
                           '  "cat *": "allow",\n'
                           '  "git *": "ask",\n'
                           '  "ls ??": "deny",\n'
                           '  "cat ?": "deny"\n'
                           '}}}\n')
    _, findings, _ = check(cli)
    dead = only(findings, "FT103")
    # "git status" is covered by "git *"; "ls ?" is not covered by "ls ??" (different lengths);
    # "cat *" is not covered by "cat ?" (the later rule is narrower)
    assert [f["location"]["line"] for f in dead] == [line_of(path, "git status")]
    assert dead[0]["related"][0]["location"]["line"] == line_of(path, '"git *"')


def test_ft103_across_top_level_and_agent(project: Path, cli) -> None:
    path = config(project, '{\n'
                           '  "permission": {"webfetch": {"https://a/*": "deny"}},\n'
                           '  "agent": {\n'
                           '    "build": {"permission": {"bash": {"git push *": "deny", "*": "allow"}}}\n'
                           '  }\n'
                           '}\n')
    _, findings, _ = check(cli)
    dead = only(findings, "FT103")
    # the agent's own earlier rule is dead; the top-level webfetch deny is live in every agent
    assert len(dead) == 1 and dead[0]["location"]["line"] == line_of(path, "git push")


def test_ft103_top_level_rule_dead_in_every_agent(project: Path, cli) -> None:
    config(project, '{"permission": {"todowrite": {"x": "deny"}, "*": "ask"}}')
    _, findings, _ = check(cli)
    assert len(only(findings, "FT103")) == 1


def test_ft104_trailing_deny_hides_tool(project: Path, cli) -> None:
    path = config(project, '{"permission": {\n'
                           '  "bash": {"git *": "allow", "npm test": "allow", "*": "deny"}\n'
                           '}}\n')
    code, findings, _ = check(cli)
    [f] = only(findings, "FT104")
    assert f["level"] == "warning" and "bash" in f["message"] and code == 0
    assert f["location"]["line"] == line_of(path, '"*": "deny"')
    assert len(f["related"]) == 2
    assert sorted(f["data"]["agents"]) == sorted(["build", "plan", "general", "explore"])
    code, _, _ = check(cli, "--strict")
    assert code == 1


def test_ft104_lists_tools_agents_and_allows_in_order(project: Path, cli) -> None:
    """One finding per hiding rule: its tools in tool order, its agents in config order, the allows in
    level order (wildcard and exact names mixed), each once however many agents share the level."""
    config(project, json.dumps({
        "permission": {"*": {"tmp/*": "allow"}, "e*": {"src/*": "allow"},
                       "read": {"docs/*": "allow", "*": "deny"}, "edit": {"*.md": "allow", "*": "deny"},
                       "r*": {"x/*": "allow"}},
        "agent": {"plan": {"permission": {"b*": {"make *": "allow"},
                                          "bash": {"ls *": "allow", "*": "deny"}}}}}))
    _, findings, _ = check(cli)
    got = [(f["data"], [r["label"] for r in f["related"]]) for f in only(findings, "FT104")]
    assert got == [
        ({"tools": ["edit", "write", "apply_patch"], "agents": ["build", "plan", "general", "explore"]},
         ['overridden allow * "tmp/*" allow', 'overridden allow e* "src/*" allow',
          'overridden allow edit "*.md" allow']),
        ({"tools": ["bash"], "agents": ["plan"]},
         ['overridden allow b* "make *" allow', 'overridden allow bash "ls *" allow']),
    ]


def test_ft104_names_ten_tools_and_ten_allows_then_counts(project: Path, cli) -> None:
    """A wildcard deny can hide thousands of tools: the message names the first ten of each and counts
    the rest; the data and the related locations keep every one."""
    allows = {name: {"src/*": "allow"} for name in ("bash", "read", "glob", "grep", "list", "edit",
                                                    "webfetch", "task", "skill", "todowrite", "question")}
    config(project, json.dumps({"permission": {**allows, "*": "deny"}}))
    _, findings, _ = check(cli)
    [f] = only(findings, "FT104")
    hidden = f["data"]["tools"]
    assert len(hidden) > 11
    assert f"hides {', '.join(hidden[:10])} and {len(hidden) - 10} more tools for" in f["message"]
    assert len(f["related"]) == 11
    assert f"; {f['related'][9]['label'].removeprefix('overridden allow ')} and 1 more allow)" in f["message"]


def test_ft104_not_for_the_right_order(project: Path, cli) -> None:
    config(project, '{"permission": {"bash": {"*": "deny", "git *": "allow"}}}')
    _, findings, _ = check(cli)
    assert only(findings, "FT104") == []


def test_ft105_specific_deny_does_not_hide(project: Path, cli) -> None:
    config(project, '{"permission": {"bash": {"rm *": "deny"}}}')
    assert only(check(cli)[1], "FT105") == []  # an informational hint: off by default (issue 18)
    code, findings, _ = check(cli, "--select", "FT105")
    [f] = only(findings, "FT105")
    assert f["level"] == "info" and code == 0


def test_ft106_unknown_agents(project: Path, cli) -> None:
    path = config(project, '{\n  "default_agent": "buld",\n'
                           '  "permission": {"task": {"reviewr": "deny", "explore": "deny"}}\n}\n')
    code, findings, _ = check(cli)
    found = only(findings, "FT106")
    assert code == 1
    assert {(f["location"]["line"], f["level"]) for f in found} == {
        (line_of(path, "default_agent"), "error"), (line_of(path, "reviewr"), "warning")}
    assert any("'build'" in f["message"] for f in found)


def test_ft107_legacy_tools_map_with_replacement(project: Path, cli) -> None:
    config(project, '{"tools": {"write": false, "bash": true},\n'
                    ' "agent": {"plan": {"tools": {"webfetch": false}}}}')
    _, findings, _ = check(cli, "--select", "FT")
    found = only(findings, "FT107")
    assert [f["data"]["replacement"] for f in found] == [{"edit": "deny", "bash": "allow"},
                                                        {"webfetch": "deny"}]
    assert '"permission": {"edit": "deny", "bash": "allow"}' in found[0]["message"]


def test_ft113_absolute_read_and_edit_patterns_never_match(project: Path, cli) -> None:
    """read/edit are checked relative to the project root (opencode 1.18.33), so `~/.ssh/*` protects
    nothing: check says so, with a fix that works."""
    config(project, json.dumps({"permission": {
        "read": {"~/.ssh/*": "deny", f"{project}/docs/*": "allow", "secret/*": "deny"},
        "edit": {"/etc/*": "deny"}, "bash": {"/bin/rm *": "deny"}}}))
    _, findings, _ = check(cli)
    found = only(findings, "FT113")
    assert len(found) == 3, found  # not the relative read pattern, not bash
    ssh, docs, etc = found
    assert "never matches" in ssh["message"] and "protects nothing" in ssh["message"]
    assert '"external_directory"' in ssh["hint"] and ".ssh/*" in ssh["hint"] and '"deny"' in ssh["hint"]
    assert 'relative to the project root: "docs/*"' in docs["hint"]
    assert '"/etc/*": "deny"' in etc["hint"]
    assert all(f["level"] == "warning" for f in found)
    assert only(findings, "FT108") == []  # retired: FT113 says it


def test_ft109_plugins_unknown_and_ft101_softened(project: Path, cli) -> None:
    config(project, '{"plugin": ["./my_plugin.py"], "permission": {"mytool": "deny"}}')
    _code, findings, _ = check(cli)
    assert len(only(findings, "FT109")) == 1
    [f] = only(findings, "FT101")
    assert f["level"] == "warning" and "--load-code" in f["message"]


def test_ft110_edit_family_name(project: Path, cli) -> None:
    config(project, '{"permission": {"write": "deny"}}')
    _, findings, _ = check(cli)
    [f] = only(findings, "FT110")
    assert "'edit'" in f["hint"]


def test_ft009_tool_script_syntax_error(project: Path, cli) -> None:
    tools = project / ".forge" / "tool"
    tools.mkdir(parents=True)
    (tools / "broken.py").write_text("x = (\n")
    _, findings, _ = check(cli)
    [f] = only(findings, "FT009")
    assert f["location"]["path"] == ".forge/tool/broken.py"


def test_check_never_imports_tool_scripts(project: Path, cli, tmp_path: Path) -> None:
    marker = tmp_path / "imported.marker"
    tools = project / ".forge" / "tools"
    tools.mkdir(parents=True)
    (tools / "sneaky.py").write_text(
        f"from pathlib import Path\nPath({str(marker)!r}).write_text('x')\n"
        "from forge_tools import tool\n\n@tool\ndef default() -> str:\n    return 'hi'\n")
    (project / "expect.yaml").write_text("- agent: build\n  visible: [sneaky]\n")
    code, findings, data = check(cli, "--expect", "expect.yaml")
    assert code == 0, findings
    assert not marker.exists()
    assert data["expectations"]["results"][0]["passed"] is True  # the static id is a real candidate
    code, _, _ = check(cli, "--load-code")
    assert marker.exists()  # the same project does import it when asked


@pytest.mark.parametrize("name", ["expect.yaml", "expect.toml", "expect.json"])
def test_expectations_in_every_format(project: Path, cli, name: str) -> None:
    body = {
        "expect.yaml": "- agent: plan\n  visible: [read]\n- agent: build\n  hidden: [read]\n",
        "expect.toml": '[[expect]]\nagent = "plan"\nvisible = ["read"]\n\n'
                       '[[expect]]\nagent = "build"\nhidden = ["read"]\n',
        "expect.json": '[\n {"agent": "plan", "visible": ["read"]},\n'
                       ' {"agent": "build", "hidden": ["read"]}\n]\n',
    }[name]
    (project / name).write_text(body)
    code, findings, data = check(cli, "--expect", name)
    assert code == 1
    results = data["expectations"]["results"]
    assert [r["passed"] for r in results] == [True, False]
    assert "read is visible" in results[1]["explanation"]
    [f] = only(findings, "FT201")
    assert f["location"]["path"] == name and f["location"]["line"] is not None


def test_expectations_every_agent_and_calls(project: Path, cli) -> None:
    config(project, '{"agent": {"plan": {"permission": {"bash": {"*": "ask", "git log*": "allow"}}}}}')
    (project / "expect.yaml").write_text(
        '- agent: "*"\n  visible: [bash]\n'
        "- agent: plan\n  call: {tool: bash, args: {command: 'git log && rm -rf x'}}\n  expect: ask\n"
        "- agent: plan\n  call: {tool: bash, args: {command: 'git log'}}\n  expect: allow\n"
        "- agent: explore\n  hidden: [edit]\n")
    code, _findings, data = check(cli, "--expect", "expect.yaml")
    results = data["expectations"]["results"]
    assert [r["passed"] for r in results] == [True, True, True, True], results
    assert code == 0


def test_bad_expectations_file_is_located(project: Path, cli) -> None:
    (project / "expect.yaml").write_text("- agent: plan\n  hiden: [edit]\n")
    code, findings, _ = check(cli, "--expect", "expect.yaml")
    [f] = only(findings, "FT202")
    assert code == 1 and f["location"]["line"] == 2 and "'hidden'" in f["message"]
    (project / "expect.yaml").write_text("- agent: build\n  call: {tool: bash, args: {command: ls}}\n"
                                         "  expect: forbid\n")
    _, findings, _ = check(cli, "--expect", "expect.yaml")
    [f] = only(findings, "FT202")
    assert f["location"]["line"] == 3
    code, _, err = cli("check", "--expect", "missing.yaml")
    assert code == 3 and "not found" in err


def test_unknown_agent_in_expectations(project: Path, cli) -> None:
    (project / "expect.yaml").write_text("- agent: plann\n  hidden: [edit]\n")
    code, _, data = check(cli, "--expect", "expect.yaml")
    assert code == 1
    assert "'plan'" in data["expectations"]["results"][0]["explanation"]


def test_npm_plugin_entry_does_not_soften_a_typo(project: Path, cli) -> None:
    """An opencode npm plugin is not a forge-tools plugin: `check` and `check --load-code` agree that
    `edti` is an unknown permission (an error, exit 1); the npm entry used to make it a warning."""
    (project / "opencode.json").write_text(
        '{\n  "plugin": ["opencode-wakatime@1.2.0"],\n  "permission": {"edti": "allow"}\n}\n')
    static = check(cli)
    loaded = check(cli, "--load-code")
    for code, findings, _ in (static, loaded):
        [f] = only(findings, "FT101")
        assert code == 1 and f["level"] == "error", f
    assert only(static[1], "FT109") == []


# Each source kind: `check` (the sources' static scan) and `check --load-code` (the sources loaded) ask
# the same sources, so they agree on the tool names they know and on where each came from.


def agreeing(cli, code_name: str) -> list[dict[str, Any]]:
    """The `code_name` findings, which must be the same (level, message, location) with and without
    --load-code."""
    static, loaded = check(cli), check(cli, "--load-code")
    assert static[0] == loaded[0], (static[1], loaded[1])
    assert only(static[1], code_name) == only(loaded[1], code_name)
    return only(static[1], code_name)


def test_builtin_names_agree_with_and_without_load_code(project: Path, cli) -> None:
    config(project, '{"permission": {"bsh": "deny", "lsp": "deny", "read": "allow"}}')
    [f] = agreeing(cli, "FT101")
    assert f["data"]["name"] == "bsh" and f["level"] == "error"


def test_script_names_and_broken_scripts_agree_with_and_without_load_code(project: Path, cli) -> None:
    tools = project / ".forge" / "tools"
    tools.mkdir(parents=True)
    (tools / "deploy.py").write_text("from forge_tools import tool\n\n@tool\ndef default():\n    pass\n\n"
                                     "@tool\ndef rollback():\n    pass\n")
    (tools / "broken.py").write_text("from forge_tools import tool\n\n@tool\ndef oops(:\n    pass\n")
    config(project, '{"permission": {"deploy": "ask", "deploy_rollback": "deny", "deploy_rolback": "ask"}}')
    assert [f["data"]["name"] for f in agreeing(cli, "FT101")] == ["deploy_rolback"]
    [broken] = agreeing(cli, "FT009")
    assert broken["location"]["path"].endswith("broken.py") and broken["location"]["line"] == 4


def test_opencode_script_names_agree_with_and_without_load_code(project: Path, cli) -> None:
    folder = project / ".opencode" / "tool"
    folder.mkdir(parents=True)
    (folder / "db.ts").write_text(
        'import { tool } from "@opencode-ai/plugin"\n'
        'export const drop = tool({ description: "Drop", args: {}, async execute() { return "" } })\n')
    (project / "opencode.json").write_text('{"permission": {"db_drop": "deny", "db_dorp": "deny"}}')
    [f] = agreeing(cli, "FT101")
    assert f["data"]["name"] == "db_dorp" and f["level"] == "error"


def test_plugins_check_names_are_the_plugins_load_code_imports(project: Path, cli) -> None:
    """Without --load-code, FT109 names each plugin the plugin source found (and no other); with it,
    the tools those same plugins register are known, from the same files."""
    plugin = project / ".forge" / "plugins" / "alpha.py"
    plugin.parent.mkdir(parents=True)
    plugin.write_text("from forge_tools import hookimpl, tool\n\n@tool\ndef alpha_tool() -> str:\n"
                      "    return ''\n\n@hookimpl\ndef register_tools(register):\n    register(alpha_tool)\n")
    (project / "opencode.json").write_text(
        '{"plugin": ["opencode-wakatime@1.2.0"], "permission": {"alpha_tool": "deny"}}')
    _code, static, _ = check(cli)
    [note] = only(static, "FT109")
    assert f"(plugins: {plugin})" in note["message"]  # the Python file, not the npm entry
    [unsure] = only(static, "FT101")
    assert unsure["level"] == "warning"
    code, loaded, _ = check(cli, "--load-code")
    assert only(loaded, "FT109") == [] and only(loaded, "FT101") == [] and code == 0
    _code, out, _ = cli("layers", "--format", "json")
    [tool] = [t for t in json.loads(out)["tools"] if t["id"] == "alpha_tool"]
    assert tool["source"]["path"] == str(plugin) and tool["source"]["plugin"] == "alpha"


def test_mcp_server_names_agree_with_and_without_load_code(project: Path, cli, tmp_path: Path) -> None:
    import sys

    server = Path(__file__).parents[1] / "sources" / "mcp_demo_server.py"
    (project / "opencode.json").write_text(json.dumps({
        "mcp": {"demo": {"type": "local", "command": [sys.executable, str(server)]}},
        "permission": {"demo_echo": "deny", "demo_ecko": "deny", "dmeo_echo": "deny"}}))
    _code, static, _ = check(cli)
    _code, loaded, _ = check(cli, "--load-code")
    # statically `demo_` may be right (the server was not started); loaded, the listed tools decide;
    # in both the prefix of no configured server is an unknown name
    assert "dmeo_echo" in {f["data"]["name"] for f in only(static, "FT101")}
    assert {f["data"]["name"] for f in only(loaded, "FT101")} == {"dmeo_echo", "demo_ecko"}
    assert "demo_echo" not in {f["data"]["name"] for f in only(static, "FT101") + only(loaded, "FT101")}
