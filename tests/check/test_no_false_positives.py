"""Sensible configs get no false findings: opencode's documented permission examples, MCP tool names,
installed plugins that were not loaded, reads of the tool-output directory."""

from __future__ import annotations

import json
from pathlib import Path

import pytest


def test_installed_entry_point_plugins_are_counted_but_not_imported(
        project: Path, cli, tmp_path: Path, monkeypatch) -> None:
    """A distribution's `forge_tools` entry point may provide tools: without --load-code it is not
    imported, so an unknown name is only a warning and FT109 names the plugin."""
    site = tmp_path / "site"
    dist = site / "deployer-1.0.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: deployer\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[forge_tools]\ndeployer = deployer_plugin_xyz:plugin\n")
    monkeypatch.syspath_prepend(str(site))
    (project / "forge.json").write_text('{"permission": {"deploy": "ask"}}')
    code, out, _ = cli("check", "--format", "json")
    findings = json.loads(out)["findings"]
    assert code == 0
    assert [f["level"] for f in findings if f["code"] == "FT101"] == ["warning"]
    [note] = [f for f in findings if f["code"] == "FT109"]
    assert "deployer" in note["message"]


def test_mcp_tool_names_are_not_typos(project: Path, cli) -> None:
    """opencode names MCP tools `<server>_<tool>`; forge-tools cannot list them, so no FT101/FT102."""
    (project / "opencode.json").write_text(json.dumps({
        "mcp": {"my-docs": {"type": "remote", "url": "https://example.com/mcp"}},
        "permission": {"my-docs_search": "allow", "my-docs_*": "ask", "my-dcos_search": "deny"}}))
    _code, out, _ = cli("check", "--format", "json")
    flagged = [(f["code"], f["location"]["key_path"][-1]) for f in json.loads(out)["findings"]
               if f["code"] in ("FT101", "FT102")]
    assert flagged == [("FT101", "my-dcos_search")]


def test_read_allow_in_the_tool_output_dir_is_not_an_external_read(project: Path, cli,
                                                                   isolated_env: dict[str, Path]) -> None:
    """The built-in tail allows external_directory for the tool-output dir, so such reads never ask."""
    out_dir = isolated_env["data"] / "tool-output"
    (project / "forge.json").write_text(json.dumps({"permission": {"read": {f"{out_dir}/*": "allow"}}}))
    _code, out, _ = cli("check", "--format", "json")
    assert [f for f in json.loads(out)["findings"] if f["code"] == "FT108"] == []
    (project / "forge.json").write_text(json.dumps({"permission": {
        "read": {"/srv/data/*": "allow"}, "external_directory": {"/srv/*": "deny"}}}))
    _code, out, _ = cli("check", "--format", "json")
    assert [f for f in json.loads(out)["findings"] if f["code"] == "FT108"] == []  # deny is explicit


@pytest.mark.parametrize("permission", [
    {"bash": {"*": "ask", "git *": "allow"}},
    {"edit": "deny"},
    {"*": "ask", "bash": "allow", "edit": "deny"},
    {"*": "ask", "read": "allow", "bash": {"*": "ask", "git status *": "allow", "git diff *": "allow"}},
    {"external_directory": {"~/projects/personal/**": "allow"}},
    {"read": {"*": "allow", "*.env": "ask", "*.env.example": "allow"}},
    {"edit": "ask", "webfetch": "deny", "task": {"*": "deny", "explore": "allow"}, "doom_loop": "ask"},
    "allow",
])
def test_documented_examples_have_no_warnings(project: Path, cli, permission: object) -> None:
    (project / "opencode.json").write_text(json.dumps({
        "$schema": "https://opencode.ai/config.json", "permission": permission,
        "agent": {"plan": {"permission": {"edit": "deny", "bash": {"*": "ask", "git log*": "allow"}}},
                  "review": {"description": "reviews code", "mode": "subagent",
                             "permission": {"edit": "deny", "bash": "deny", "webfetch": "allow"}}}}))
    code, out, _ = cli("check", "--strict", "--format", "json")
    findings = json.loads(out)["findings"]
    assert code == 0 and [f for f in findings if f["level"] != "info"] == []


@pytest.mark.parametrize("level", [
    {"tools": {"write": False, "bash": True, "edit": True}, "permission": {"read": "allow"}},
    {"tools": {"bash": True, "webfetch": False}, "permission": {"bash": "deny"}},
    {"tools": {"bash": True}, "permission": "ask"},
    {"tools": {"bash": True, "read": False}, "permission": {"*": "ask", "bash": "deny"}},
    {"tools": {"bash": True}, "permission": {"bash": {"git *": "allow"}}},
    {"tools": {"bash": False}},
])
def test_legacy_tools_replacement_means_the_same(project: Path, cli, level: dict) -> None:
    """Applying FT107's replacement gives every agent exactly the same rules as before."""
    from forge_tools.config import LoadOptions, load_config
    from forge_tools.permission.agents import load_agents

    def rules() -> dict[str, list[tuple[str, str, str]]]:
        loaded = load_config(LoadOptions(cwd=project))
        return {n: [(r.permission, r.pattern, r.action) for r in a.ruleset]
                for n, a in load_agents(loaded).items()}

    (project / "forge.json").write_text(json.dumps(level))
    before = rules()
    _code, out, _ = cli("check", "--select", "FT107", "--format", "json")
    [finding] = [f for f in json.loads(out)["findings"] if f["code"] == "FT107"]
    permission = level.get("permission", {})
    if isinstance(permission, str):
        permission = {"*": permission}
    replacement = finding["data"]["replacement"]
    replaced = replacement if finding["data"]["replaces_permission"] else {**replacement, **permission}
    (project / "forge.json").write_text(json.dumps({"permission": replaced}))
    assert rules() == before


def test_misspelt_builtin_agent_section(project: Path, cli) -> None:
    """`agent.bulid` silently creates a new agent; a deliberately defined one (description) is fine."""
    (project / "forge.json").write_text(json.dumps({"agent": {
        "bulid": {"permission": {"bash": "deny"}},
        "plann": {"description": "my own planner"},
        "reviewer": {"permission": {"edit": "deny"}}}}))
    _code, out, _ = cli("check", "--format", "json")
    found = [f for f in json.loads(out)["findings"] if f["code"] == "FT106"]
    assert [(f["level"], f["location"]["key_path"]) for f in found] == [("warning", ["agent", "bulid"])]
    assert "'build'" in found[0]["message"]


def test_mcp_and_plugin_tools_beside_ft111(project: Path, cli) -> None:
    """FT111 (a pattern map opencode refuses) does not disturb FT101: MCP-prefixed names and, with
    --load-code, a plugin's tool are known; only the real typo is flagged."""
    (project / "opencode.json").write_text(json.dumps({
        "mcp": {"docs": {"type": "remote", "url": "https://example.com/mcp"}},
        "plugin": ["./deployer.py"],
        "permission": {"docs_search": "allow", "webfetch": {"*": "ask"}, "deploy": "ask", "raed": "allow"},
        "agent": {"plan": {"permission": {"docs_*": "deny", "question": {"*": "deny"}}}}}))
    (project / "deployer.py").write_text(
        "import forge_tools\nfrom forge_tools import tool\n\n\n@tool\ndef deploy(target: str) -> str:\n"
        "    return target\n\n\n@forge_tools.hookimpl\ndef register_tools(register):\n"
        "    register(deploy)\n")
    for args, deploy_flagged in ((), True), (("--load-code",), False):
        _code, out, _ = cli("check", "--format", "json", *args)
        findings = json.loads(out)["findings"]
        flagged = {f["location"]["key_path"][-1] for f in findings if f["code"] in ("FT101", "FT102")}
        assert flagged == ({"raed", "deploy"} if deploy_flagged else {"raed"}), findings
        assert {f["location"]["key_path"][-1] for f in findings if f["code"] == "FT111"} == {
            "webfetch", "question"}
        assert not [f for f in findings if f["code"] in ("FT009", "FT010")]
