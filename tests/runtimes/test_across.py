"""Across agents (issue 20): one repository holding opencode's, Claude Code's and forge-tools' files,
whose answers differ. `agents --runtimes`, `explain --call --runtime all`, `layers --matrix --runtimes`,
check's FT118 and `check --expect` with `runtime: all` / `runtimes: [...]`, and the library's
`answers_by_runtime`, all on real files read by the real readers (nothing mocked)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import forge_tools

OPENCODE = """{
  "permission": {
    "bash": {
      "*": "allow",
      "git push *": "deny",
      "rm *": "ask"
    }
  }
}
"""
CLAUDE = """{
  "permissions": {
    "allow": ["Bash(git *)", "Read"],
    "deny": ["Bash(rm *)", "WebFetch"]
  }
}
"""
FORGE = """{
  "permission": {
    "bash": {"curl *": "deny"}
  }
}
"""


@pytest.fixture
def repo(project: Path, isolated_env: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> Path:
    home = isolated_env["home"]
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    monkeypatch.setenv("FORGE_TOOLS_CLAUDE_MANAGED_DIR", str(home / "no-managed"))
    (project / "opencode.json").write_text(OPENCODE)
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text(CLAUDE)
    (project / "forge.json").write_text(FORGE)
    (home / ".claude.json").write_text(json.dumps(
        {"projects": {str(project): {"hasTrustDialogAccepted": True}}}))
    return project


def test_agents_lists_each_runtime_and_its_files(cli, repo: Path) -> None:
    code, out, err = cli("agents", "--runtimes")
    assert code == 0, err
    rows = {line.split()[0]: line for line in out.splitlines()[2:]}
    assert "opencode.json (project)" in rows["opencode"]
    assert ".claude/settings.json (project)" in rows["Claude"]
    assert "forge.json (project)" in rows["forge-tools"] and "own gate" in rows["forge-tools"]
    code, out, _ = cli("agents", "--format", "json")
    data = json.loads(out)
    assert [a["name"] for a in data["agents"]][:1] == ["build"]  # the agents are still there
    by_name = {r["name"]: r for r in data["runtimes"]}
    assert set(by_name) == {"opencode", "forge", "claude"}
    assert by_name["claude"]["file_scopes"] == [{"path": str(repo / ".claude" / "settings.json"),
                                                "scope": "project", "what": "settings file"}]
    assert by_name["claude"]["display"] == "Claude Code" and by_name["claude"]["in_project"]
    assert not by_name["forge"]["agent"] and by_name["forge"]["default"]  # forge.json: the gate answers


def test_explain_answers_for_every_agent_with_the_deciding_rules(cli, repo: Path) -> None:
    code, out, err = cli("explain", "bash", "--call", '{"command": "git push origin main"}',
                         "--runtime", "all")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0] == "`git push origin main`: opencode deny, Claude Code allow; forge-tools gate deny"
    opencode, claude, gate = lines[1:4]
    assert "DENY" in opencode and 'bash "git push *" deny at opencode.json:5:7' in opencode
    assert "ALLOW" in claude and "allow Bash(git *) at .claude/settings.json:3:15" in claude
    assert "[as Bash]" in claude
    assert gate.lstrip().startswith("forge-tools gate") and "DENY" in gate

    # the gate reads forge.json too; opencode does not
    code, out, _ = cli("explain", "Bash", "--call", '{"command": "curl example.org"}', "--runtime", "all",
                       "--format", "json")
    data = json.loads(out)
    assert data["call"] == {"tool": "bash", "args": {"command": "curl example.org"}, "mcp": None}
    got = {r["runtime"]: (r["action"], r["why"]) for r in data["runtimes"]}
    assert got["opencode"] == ("allow", 'bash "*" allow at opencode.json:4:7')
    assert got["claude"][0] == "ask"
    assert data["gate"]["action"] == "deny" and "forge.json:3:14" in data["gate"]["why"]
    assert data["disagree"] is False


def test_explain_says_where_an_agent_has_no_such_tool(cli, repo: Path) -> None:
    code, out, _ = cli("explain", "list", "--call", "{}", "--runtime", "opencode,claude")
    assert code == 0
    assert "Claude Code: no such tool" in out.splitlines()[0]
    code, out, _ = cli("explain", "webfetch", "--call", '{"url": "https://example.org"}', "--runtime", "all")
    assert "Claude Code deny" in out.splitlines()[0]
    assert "deny WebFetch at .claude/settings.json:4:28" in out


def test_all_runtimes_needs_a_call_and_known_names(cli, repo: Path) -> None:
    code, _, err = cli("explain", "bash", "--runtime", "all")
    assert code == 2 and "--runtime: answering for several runtimes needs a call" in err
    code, _, err = cli("explain", "bash", "--call", "{}", "--runtime", "opencode,nosuchagent")
    assert code == 2 and "unknown runtime 'nosuchagent'" in err  # no pretending it exists


def test_matrix_gains_a_column_per_other_agent_runtime(cli, repo: Path) -> None:
    code, plain, _ = cli("layers", "--matrix", "--no-mcp")
    assert "Claude Code" not in plain  # unchanged without the option
    code, out, err = cli("layers", "--matrix", "--runtimes", "--no-mcp")
    assert code == 0, err
    header, *rows = out.splitlines()[1:]
    assert header.split()[-3:] == ["Claude", "Code", "2.1.332"]
    cells = {r.split()[0]: r.split()[-1] for r in rows if r and not r.startswith(" ")}
    assert cells["bash"] == "ask" and cells["read"] == "allow" and cells["webfetch"] == "hidden"
    assert cells["list"] == "-"  # Claude Code has no list tool
    assert cells["glob"] == "-" and cells["grep"] == "-"  # offered by 2.1.332 only when Bash is not
    code, out, _ = cli("layers", "--matrix", "--runtimes", "--no-mcp", "--format", "json")
    claude = json.loads(out)["runtimes"][0]
    assert claude["name"] == "claude" and claude["matrix"]["webfetch"] == "hidden"


def test_check_flags_a_call_one_agent_denies_and_another_allows(cli, repo: Path) -> None:
    _, out, _ = cli("check", "--format", "json")
    data = json.loads(out)
    found = [f for f in data["findings"] if f["code"] == "FT118"]
    by_place = {(Path(f["location"]["path"]).name, f["location"]["line"], f["location"]["column"]): f
                for f in found}
    push = by_place[("opencode.json", 5, 7)]
    assert "opencode 1.18.33 denies" in push["message"] and "Claude Code 2.1.332 allows" in push["message"]
    assert "`git push x`" in push["message"]
    assert "Bash(git *) at .claude/settings.json:3:15" in push["message"]
    rm = by_place[("settings.json", 4, 14)]
    assert "Claude Code 2.1.332 denies by deny Bash(rm *)" in rm["message"]
    assert "`/bin/rm x`" in rm["message"] and "opencode 1.18.33 allows" in rm["message"]  # an FT116 probe


def test_no_disagreement_without_a_second_agent(cli, repo: Path) -> None:
    (repo / ".claude" / "settings.json").unlink()
    _, out, _ = cli("check", "--format", "json")
    assert not [f for f in json.loads(out)["findings"] if f["code"] == "FT118"]


def test_no_disagreement_when_the_agents_agree(cli, repo: Path) -> None:
    (repo / ".claude" / "settings.json").write_text(json.dumps(
        {"permissions": {"allow": ["Bash(git status)"], "deny": ["Bash(git push *)"]}}))
    (repo / "opencode.json").write_text(json.dumps(
        {"permission": {"bash": {"*": "ask", "git push *": "deny"}}}))
    _, out, _ = cli("check", "--format", "json")
    assert not [f for f in json.loads(out)["findings"] if f["code"] == "FT118"]


EXPECT = """\
- name: git push is denied in every agent
  runtime: all
  call: {tool: bash, args: {command: git push origin main}}
  expect: deny
- name: ls runs in opencode and Claude Code
  runtimes: [opencode, claude]
  call: {tool: Bash, args: {command: ls}}
  expect: allow
- runtimes: [opencode, nosuchagent]
  call: {tool: bash, args: {command: ls}}
  expect: allow
"""


def test_expect_denied_in_every_agent_fails_naming_the_agent_and_passes_once_fixed(cli, repo: Path
                                                                                   ) -> None:
    (repo / "expect.yaml").write_text(EXPECT)
    code, out, _ = cli("check", "--expect", "expect.yaml", "--format", "json")
    assert code == 1
    data = json.loads(out)
    outcomes = {e["assertion"]: e for e in data["expectations"]["results"]}
    push = outcomes["git push is denied in every agent"]
    assert push["passed"] is False
    assert ("but Claude Code 2.1.332 allow (allow Bash(git *) at .claude/settings.json:3:15)"
            in push["explanation"])
    assert "as expected: opencode 1.18.33 deny" in push["explanation"]
    failed = [f for f in data["findings"] if f["code"] == "FT201"]
    assert [(Path(f["location"]["path"]).name, f["location"]["line"]) for f in failed] == [("expect.yaml", 1)]
    assert outcomes["ls runs in opencode and Claude Code"]["passed"] is True
    unknown = [f for f in data["findings"] if f["code"] == "FT202"]
    assert len(unknown) == 1 and "unknown runtime 'nosuchagent'" in unknown[0]["message"]
    assert unknown[0]["location"]["line"] == 9

    fixed = CLAUDE.replace('"Bash(rm *)"', '"Bash(rm *)", "Bash(git push *)"')
    (repo / ".claude" / "settings.json").write_text(fixed)
    (repo / "expect.yaml").write_text(EXPECT.split("- runtimes: [opencode, nosuchagent]")[0])
    code, out, _ = cli("check", "--expect", "expect.yaml", "--format", "json")
    data = json.loads(out)
    results = data["expectations"]["results"]
    assert len(results) == 2 and all(e["passed"] for e in results), results
    assert code == 0 or [f for f in data["findings"] if f["level"] == "error"] == []


def test_library_answers_by_runtime(repo: Path) -> None:
    both = forge_tools.answers_by_runtime(repo, "Bash", {"command": "git push origin main"})
    assert both.summary() == ("`git push origin main`: opencode deny, Claude Code allow; "
                              "forge-tools gate deny")
    assert both.disagree
    actions = {e.runtime.name: e.action for e in both.entries}
    assert actions == {"opencode": "deny", "claude": "allow"}
    claude = next(e for e in both.entries if e.runtime.name == "claude")
    assert claude.call is not None and claude.call.tool == "Bash"
    assert claude.answer is not None and claude.answer.deciding_rule is not None
    assert claude.answer.deciding_rule.origin.line == 3
    only = forge_tools.answers_by_runtime(repo, "bash", {"command": "ls"}, runtimes=["opencode"])
    assert [e.runtime.name for e in only.entries] == ["opencode"] and only.gate is not None


def test_one_check_report_holds_every_agents_findings(cli, repo: Path) -> None:
    claude = CLAUDE.replace('"WebFetch"', '"WebFetch", "Write(.env)"')
    (repo / ".claude" / "settings.json").write_text(claude)
    opencode = OPENCODE.replace('"*": "allow"', '"npm *": "ask",\n      "*": "allow"')
    (repo / "opencode.json").write_text(opencode)
    _, out, _ = cli("check", "--format", "json")
    found = {(f["code"], Path(f["location"]["path"]).name) for f in json.loads(out)["findings"]}
    assert ("FT303", "settings.json") in found  # Claude Code's own (Write(path) is never consulted)
    assert ("FT103", "opencode.json") in found  # opencode's (`npm *` can never decide)
    assert ("FT118", "opencode.json") in found  # across the two


def test_matrix_and_explain_read_claude_code_mcp_servers(cli, repo: Path) -> None:
    """An MCP row gets Claude Code's state when Claude starts a server of that name (here from the
    project's .mcp.json; its deny removes one tool) and `-` when it has none; explain says which."""
    import sys

    server = [sys.executable, str(Path(__file__).parents[1] / "compat" / "claude" / "mcp_server.py")]
    config = json.loads(OPENCODE)
    config["mcp"] = {name: {"type": "local", "command": server} for name in ("srv", "other")}
    (repo / "opencode.json").write_text(json.dumps(config))
    (repo / ".mcp.json").write_text(json.dumps({"mcpServers": {"srv": {"command": server[0],
                                                                       "args": server[1:]}}}))
    claude = json.loads(CLAUDE)
    claude["permissions"]["deny"].append("mcp__srv__write_thing")
    (repo / ".claude" / "settings.json").write_text(json.dumps(claude))
    code, out, err = cli("layers", "--matrix", "--runtimes", "--format", "json")
    assert code == 0, err
    cells = json.loads(out)["runtimes"][0]["matrix"]
    assert cells["srv_read_thing"] == "ask" and cells["srv_write_thing"] == "hidden"
    assert cells["other_read_thing"] == "-" and cells["other_write_thing"] == "-"
    code, out, _ = cli("explain", "mcp__other__read_thing", "--call", "{}", "--runtime", "all")
    assert "Claude Code has no MCP server 'other' here" in out
    code, out, _ = cli("explain", "mcp__srv__read_thing", "--call", "{}", "--runtime", "claude")
    assert "Offered to the model: yes" in out and "ASK" in out
    assert "whether it has this tool is not known: it is not started here" in out
    code, out, _ = cli("layers", "--runtime", "claude")
    assert "MCP server 'srv' (project, " in out and ".mcp.json:1:" in out and "Claude Code starts it" in out


def _ft118(cli) -> dict[tuple[str, int, int], dict]:  # type: ignore[no-untyped-def]
    _, out, _ = cli("check", "--format", "json")
    return {(Path(f["location"]["path"]).name, f["location"]["line"], f["location"]["column"]): f
            for f in json.loads(out)["findings"] if f["code"] == "FT118"}


def test_check_probes_file_denies_of_each_agent(cli, repo: Path) -> None:
    """Read and edit denies are probed with a file each rule matches; Claude's Write(path) deny,
    which Claude never consults, denies nothing, so it disagrees with no one."""
    (repo / "opencode.json").write_text("""{
  "permission": {
    "read": {"*": "allow", "secrets/*": "deny"},
    "edit": {"*": "allow", "docs/*": "deny"}
  }
}
""")
    (repo / ".claude" / "settings.json").write_text("""{
  "permissions": {
    "allow": ["Edit"],
    "deny": ["Read(./config/.env)", "Edit(/build/**)", "Write(notes.txt)"]
  }
}
""")
    found = _ft118(cli)
    secrets = found[("opencode.json", 3, 28)]
    assert "opencode 1.18.33 denies by read \"secrets/*\" deny" in secrets["message"]
    assert "Claude Code 2.1.332 allows the same call: `read secrets/x`" in secrets["message"]
    assert secrets["data"]["calls"][0]["tool"] == "read"
    docs = found[("opencode.json", 4, 28)]
    assert "`edit docs/x` (by allow Edit at .claude/settings.json:3:15)" in docs["message"]
    env = found[("settings.json", 4, 14)]["message"]
    assert "Claude Code 2.1.332 denies by deny Read(./config/.env)" in env
    assert "opencode 1.18.33 allows the same call: `read config/.env`" in env
    build = found[("settings.json", 4, 37)]["message"]
    assert "deny Edit(/build/**)" in build and "`edit build/x`, `write build/x`" in build
    assert len(found) == 4  # nothing at Write(notes.txt)


def test_check_probes_url_denies_of_each_agent(cli, repo: Path) -> None:
    (repo / ".claude" / "settings.json").write_text(json.dumps(
        {"permissions": {"deny": ["WebFetch(domain:evil.example)"]}}))
    (repo / "opencode.json").write_text(json.dumps({"permission": {"webfetch": "allow"}}))
    found = _ft118(cli)
    (evil,) = found.values()
    assert "Claude Code 2.1.332 denies by deny WebFetch(domain:evil.example)" in evil["message"]
    assert "opencode 1.18.33 allows the same call: `webfetch https://evil.example/`" in evil["message"]
    (repo / ".claude" / "settings.json").write_text(json.dumps(
        {"permissions": {"allow": ["WebFetch(domain:example.com)"]}}))
    (repo / "opencode.json").write_text(json.dumps({"permission": {"webfetch": "deny"}}))
    (denied,) = _ft118(cli).values()
    assert "opencode 1.18.33 denies by webfetch \"*\" deny" in denied["message"]
    assert ("Claude Code 2.1.332 allows the same call: `webfetch https://example.com/` (by allow "
            "WebFetch(domain:example.com)") in denied["message"]


def test_no_disagreement_when_both_deny_the_file(cli, repo: Path) -> None:
    (repo / "opencode.json").write_text(json.dumps(
        {"permission": {"read": {"*": "allow", "config/.env": "deny"}}}))
    (repo / ".claude" / "settings.json").write_text(json.dumps(
        {"permissions": {"deny": ["Read(./config/.env)"]}}))
    assert _ft118(cli) == {}


def test_a_modelled_claude_answer_says_so_beside_every_agent(cli, repo: Path) -> None:
    """`jq -r` is in Claude's read-only set only by the model (the records run `jq` with no option);
    `ls` and `git log -1` are recorded."""
    code, out, err = cli("explain", "bash", "--call", '{"command": "jq -r . a.json"}', "--runtime", "all")
    assert code == 0, err
    claude = next(line for line in out.splitlines() if "Claude Code 2.1.332" in line and "ALLOW" in line)
    assert "[modelled: no record of the binary shows it]" in claude
    for command in ("ls", "git log -1", "jq . a.json"):
        _, out, _ = cli("explain", "bash", "--call", json.dumps({"command": command}), "--runtime", "all",
                        "--format", "json")
        (entry,) = [e for e in json.loads(out)["runtimes"] if e["runtime"] == "claude"]
        assert entry["action"] == "allow" and entry["modelled"] is False, command
        assert "[modelled" not in entry["why"]
