"""Issue 28: in a Claude-only, a Codex-only and a Gemini-only project, `explain bash --call`, `explain
<native name> --call`, `check --expect` (with `bash` and with the native name) and `diff --expect` give
the same agent's answer for the same call, named on the first line. The answers are the ones recorded
from each agent's binary in tests/compat/{claude,codex,gemini} (the runtimes reproduce them there);
here they must come out of every command, whatever the spelling."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

COMPAT = Path(__file__).parent.parent / "compat"


def _records(agent: str, file: str) -> dict[str, Any]:
    return {c["name"]: c for c in json.loads((COMPAT / agent / file).read_text())["configs"]}


def _cases(agent: str) -> dict[str, Any]:
    return {c["name"]: c for c in json.loads((COMPAT / agent / "cases.json").read_text())["configs"]}


def _claude(project: Path, home: Path) -> list[tuple[str, str]]:
    """Claude Code's `read-env-deny` config (a project settings file denying Read(./.env)), trusted."""
    case = _cases("claude")["read-env-deny"]
    (project / ".claude").mkdir()
    settings = case["files"]["$PROJECT/.claude/settings.json"]
    (project / ".claude" / "settings.json").write_text(json.dumps(settings))
    for rel, text in case.get("project_files", {}).items():
        (project / rel).parent.mkdir(parents=True, exist_ok=True)
        (project / rel).write_text(text)
    (home / ".claude").mkdir(exist_ok=True)
    trusted = {"projects": {str(project): {"hasTrustDialogAccepted": True}}}
    (home / ".claude.json").write_text(json.dumps(trusted))
    calls = _records("claude", "claude-2.1.332.json")["read-env-deny"]["calls"]
    return [(c["input"]["command"], c["decision"]) for c in calls if c["tool"] == "Bash"]


def _codex(project: Path, home: Path) -> list[tuple[str, str]]:
    """Codex CLI's `exec-lowering` config (`codex exec`: approval never; the user's rules), in a trusted
    project whose own `.codex/config.toml` makes it a Codex project."""
    case = _cases("codex")["exec-lowering"]
    rules = home / ".codex" / "rules"
    rules.mkdir(parents=True)
    for name, text in case["rules"].items():
        (rules / name).write_text(text)
    (home / ".codex" / "config.toml").write_text(
        f'approval_policy = "never"\n[projects."{project}"]\ntrust_level = "trusted"\n')
    (project / ".codex").mkdir()
    (project / ".codex" / "config.toml").write_text("")
    outcome = {"ran": "allow", "forbidden": "deny"}
    calls = _records("codex", "codex-0.171.0.json")["exec-lowering"]["calls"]
    return [(c["call"]["cmd"], outcome[c["outcome"]]) for c in calls if c["outcome"] in outcome]


def _gemini(project: Path, home: Path) -> list[tuple[str, str]]:
    """Gemini CLI's `user-team` config (the user's team.toml policy), trusted, with a workspace
    `.gemini/settings.json` that makes it a Gemini project."""
    case = _cases("gemini")["user-team"]
    for name, text in case["user_policies"].items():
        (home / ".gemini" / "policies" / name).write_text(text)
    (project / ".gemini").mkdir()
    # the recorder offered the case's MCP tools as from configured servers (`mcp_tools`); Gemini
    # registers no tool of a server it is not given
    servers = {server: {"command": f"{server}-mcp"} for server in case.get("mcp_tools", {}).values()}
    (project / ".gemini" / "settings.json").write_text(json.dumps({"mcpServers": servers}))
    calls = _records("gemini", "gemini-0.61.0.json")["user-team"]["calls"]
    decision = {"allow": "allow", "ask_user": "ask", "deny": "deny"}
    return [(c["call"][1]["command"], decision[c["decision"]]) for c in calls
            if c["call"][0] == "run_shell_command"]


#: agent -> (layout, its shell tool, the shell tool's command argument, the first line's agent)
AGENTS = {
    "claude": (_claude, "Bash", "command", "Claude Code 2.1.332"),
    "codex": (_codex, "exec_command", "cmd", "Codex CLI 0.171.0"),
    "gemini": (_gemini, "run_shell_command", "command", "Gemini CLI 0.61.0"),
}


@pytest.fixture
def agent_project(request: pytest.FixtureRequest, project: Path, gemini_home: Path,
                  monkeypatch: pytest.MonkeyPatch) -> tuple[str, list[tuple[str, str]]]:
    for name in ("CLAUDE_CONFIG_DIR", "CODEX_HOME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("FORGE_TOOLS_CLAUDE_MANAGED_DIR", str(gemini_home / "no-managed"))
    agent = request.param
    return agent, AGENTS[agent][0](project, gemini_home)


def _pick(calls: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """A few recorded calls with different answers (each action once where there is one)."""
    seen: dict[str, tuple[str, str]] = {}
    for command, action in calls:
        seen.setdefault(action, (command, action))
    return list(seen.values())


@pytest.mark.parametrize("agent_project", list(AGENTS), indirect=True)
def test_every_command_and_spelling_gives_the_recorded_answer(  # type: ignore[no-untyped-def]
        agent_project: tuple[str, list[tuple[str, str]]], project: Path, cli) -> None:
    agent, calls = agent_project
    _layout, native, key, label = AGENTS[agent]
    picked = _pick(calls)
    assert len(picked) >= 2, calls
    for command, want in picked:
        for tool, args in (("bash", {"command": command}), (native, {key: command})):
            code, out, err = cli("explain", tool, "--call", json.dumps(args))
            assert code == 0, err
            assert out.startswith(f"Answering: {label} (config: "), out
            code, out, err = cli("explain", tool, "--call", json.dumps(args), "--format", "json")
            data = json.loads(out)
            assert (data["runtime"]["name"], data["call"]["action"]) == (agent, want), (tool, command, data)
            assert data["call"]["runtime"]["action"] == want and "gate" in data["call"]
    lines = []
    for command, want in picked:
        lines.append(json.dumps({"call": {"tool": "bash", "args": {"command": command}}, "expect": want}))
        lines.append(json.dumps({"call": {"tool": native, "args": {key: command}}, "expect": want}))
    (project / "expect.yaml").write_text("".join(f"- {line}\n" for line in lines))
    code, out, err = cli("check", "--expect", "expect.yaml", "--select", "FT2", "--format", "json")
    results = json.loads(out)["expectations"]["results"]
    assert all(r["passed"] for r in results), results
    assert all(label.split()[0].lower() in r["explanation"].lower() for r in results), results


@pytest.mark.parametrize("agent_project", list(AGENTS), indirect=True)
def test_diff_expect_compares_the_agents_answers(  # type: ignore[no-untyped-def]
        agent_project: tuple[str, list[tuple[str, str]]], project: Path, tmp_path: Path, cli) -> None:
    """The same project before and after, with the same calls: nothing the agent answers changed (its
    files are the same); a change to forge-tools' gate alone (an opencode.json beside) is not a change
    of the agent's answer."""
    agent, calls = agent_project
    _layout, native, key, _label = AGENTS[agent]
    command, _want = _pick(calls)[0]
    old = tmp_path / "old"
    shutil.copytree(project, old, symlinks=True)
    if agent == "codex":  # the copy is another project: trust it too
        config = Path(project.parent / "home" / ".codex" / "config.toml")
        config.write_text(config.read_text() + f'[projects."{old}"]\ntrust_level = "trusted"\n')
    (project / "expect.yaml").write_text(
        f"- {json.dumps({'call': {'tool': 'bash', 'args': {'command': command}}, 'expect': 'allow'})}\n"
        f"- {json.dumps({'call': {'tool': native, 'args': {key: command}}, 'expect': 'allow'})}\n")
    code, out, err = cli("diff", str(old), str(project), "--expect", str(project / "expect.yaml"),
                         "--format", "json")
    assert code == 0, err
    assert json.loads(out)["calls"] == []


def test_diff_expect_in_an_opencode_project_compares_opencodes_answers(project: Path, tmp_path: Path,  # type: ignore[no-untyped-def]
                                                                     cli) -> None:
    """Removing `"rm *": "deny"` changes the gate's answer about `/bin/rm -rf x`, not opencode's (its
    rule never matched that text): diff --expect compares opencode's answers, as check --expect does."""
    old = tmp_path / "old"
    old.mkdir()
    (old / "opencode.json").write_text(json.dumps({"permission": {"bash": {"*": "allow", "rm *": "deny"}}}))
    (project / "opencode.json").write_text(json.dumps({"permission": {"bash": {"*": "allow"}}}))
    (project / "expect.yaml").write_text(
        '- {agent: build, call: {tool: bash, args: {command: "/bin/rm -rf x"}}, expect: allow}\n'
        '- {agent: build, call: {tool: bash, args: {command: "rm -rf x"}}, expect: allow}\n')
    code, out, err = cli("diff", str(old), str(project), "--expect", str(project / "expect.yaml"),
                         "--format", "json")
    assert code == 0, err
    changed = [(c["call"], c["old"], c["new"]) for c in json.loads(out)["calls"]]
    assert changed == [('bash {"command": "rm -rf x"}', "deny", "allow")], changed


def test_runtime_all_in_an_untrusted_codex_project_names_the_ignored_files(  # type: ignore[no-untyped-def]
        project: Path, isolated_env: dict[str, Path], monkeypatch: pytest.MonkeyPatch, cli) -> None:
    monkeypatch.delenv("CODEX_HOME", raising=False)
    (project / ".codex" / "rules").mkdir(parents=True)
    rules = project / ".codex" / "rules" / "default.rules"
    rules.write_text('prefix_rule(pattern=["git", "push"], decision="forbidden")\n')
    (isolated_env["home"] / ".codex").mkdir()
    (isolated_env["home"] / ".codex" / "config.toml").write_text(
        f'[projects."{project}"]\ntrust_level = "untrusted"\n')
    for extra in (("--runtime", "all"), ()):
        code, out, err = cli("explain", "bash", "--call", '{"command": "git push"}', *extra)
        assert code == 0, err
        said = [line for line in out.splitlines() if str(rules) in line and "does not read" in line]
        assert said and "trust_level" in said[0], out  # the reason and the fix
    code, out, _ = cli("layers")
    assert any(str(rules) in line and line.startswith("ignored: ") for line in out.splitlines()), out


def test_gemini_visibility_assertions_agree_with_layers_in_geminis_own_names(  # type: ignore[no-untyped-def]
        project: Path, gemini_home: Path, cli) -> None:
    """`tools-exclude-layers` (recorded): web_fetch excluded by the user's settings, glob by the
    workspace's. explain, bare forge-tools, layers and hidden:/visible: say the same, in any spelling;
    `runtime: gemini` on an assertion needs no agent."""
    case = _cases("gemini")["tools-exclude-layers"]
    record = _records("gemini", "gemini-0.61.0.json")["tools-exclude-layers"]
    (gemini_home / ".gemini" / "settings.json").write_text(json.dumps(case["user_settings"]))
    (project / ".gemini").mkdir()
    (project / ".gemini" / "settings.json").write_text(json.dumps(case["workspace_settings"]))
    assert "web_fetch" in record["excluded"] and "glob" in record["excluded"]
    _, layers, _ = cli("layers")
    _, bare, _ = cli()
    for listing in (layers, bare):
        assert any(line.startswith("web_fetch") and "HIDDEN" in line for line in listing.splitlines())
    for tool in ("web_fetch", "webfetch", "WebFetch"):
        _, out, _ = cli("explain", tool)
        assert "web_fetch: HIDDEN" in out, out
    _, out, _ = cli("explain", "run_shell_command")
    assert "run_shell_command: offered" in out
    (project / "expect.yaml").write_text(
        "- {hidden: [web_fetch, webfetch, glob], visible: [run_shell_command, bash]}\n"
        "- {runtime: gemini, hidden: [web_fetch]}\n")
    _code, out, _err = cli("check", "--expect", "expect.yaml", "--select", "FT2", "--format", "json")
    results = json.loads(out)["expectations"]["results"]
    assert [r["passed"] for r in results] == [True, True], results
    assert "unknown agent" not in out


def test_gemini_mcp_names_and_free_text_fetch_prompts_are_answered(  # type: ignore[no-untyped-def]
        project: Path, gemini_home: Path, cli) -> None:
    """Recorded in `user-team`: mcp_github_create_issue allow, mcp_github_delete_repo ask, and a
    web_fetch ask; Gemini 0.61's web_fetch takes URLs from its free-text `prompt` (parsePrompt)."""
    _gemini(project, gemini_home)
    record = {c["call"][0]: c for c in _records("gemini", "gemini-0.61.0.json")["user-team"]["calls"]}
    for tool in ("mcp_github_create_issue", "mcp_github_delete_repo"):
        want = {"allow": "allow", "ask_user": "ask"}[record[tool]["decision"]]
        for runtime in ((), ("--runtime", "all")):
            code, out, err = cli("explain", tool, "--call", "{}", *runtime, "--format", "json")
            assert code == 0, err
            data = json.loads(out)
            got = data["call"]["action"] if not runtime else data["runtimes"][0]["action"]
            assert got == want, (tool, runtime, data)
    code, out, err = cli("explain", "web_fetch", "--call", '{"prompt": "summarise https://example.com"}',
                         "--format", "json")
    assert code == 0, err
    data = json.loads(out)
    assert data["call"]["action"] == "ask" and data["call"]["gate"]["args"]["url"] == "https://example.com"


def test_codex_visibility_agrees_with_layers_and_json_action_is_codexs(  # type: ignore[no-untyped-def]
        project: Path, gemini_home: Path, monkeypatch: pytest.MonkeyPatch, cli) -> None:
    """In a Codex-only project `explain apply_patch`, `layers`, bare `forge-tools` and `hidden:` /
    `visible:` give the same state; `call.action` is Codex's (the recorded forbidden push), the gate's
    answer is `call.gate`."""
    monkeypatch.delenv("CODEX_HOME", raising=False)
    _codex(project, gemini_home)
    _, layers, _ = cli("layers")
    _, bare, _ = cli()
    state = next(line.split()[1] for line in layers.splitlines() if line.startswith("apply_patch "))
    assert any(line.split()[:2] == ["apply_patch", state] for line in bare.splitlines())
    for tool in ("apply_patch", "edit", "Edit", "write_file"):
        _, out, _ = cli("explain", tool)
        assert f"apply_patch: {state}" in out, (tool, out)
    (project / "expect.yaml").write_text(
        "- {visible: [apply_patch, edit, bash, exec_command], hidden: [read, webfetch]}\n"
        "- {visible: [read]}\n"
        "- {hidden: [exec_comand]}\n")  # no agent has that name: a mistake of the file
    _code, out, _err = cli("check", "--expect", "expect.yaml", "--select", "FT2", "--format", "json")
    results = json.loads(out)["expectations"]["results"]
    assert [r["passed"] for r in results] == [True, False, False], results
    assert "Codex CLI 0.171.0 has no tool 'exec_comand'" in out and "has no tool 'read'" not in out
    _, out, _ = cli("explain", "bash", "--call", '{"command": "git push origin main"}', "--format", "json")
    call = json.loads(out)["call"]
    assert call["action"] == "deny" and call["runtime"]["action"] == "deny" and "action" in call["gate"]


def test_an_expectation_says_the_agents_reason_once(project: Path, isolated_env: dict[str, Path],  # type: ignore[no-untyped-def]
                                                   cli) -> None:
    """In a Claude-only project a read-only `ls` is Claude's allow and the gate's ask: the
    explanation gives Claude's reason once and then the gate's side, never Claude's reason twice nor
    a gate rule passed off as Claude's ("its rule "*" does not match")."""
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text(json.dumps({"permissions": {"deny": ["Bash(rm:*)"]}}))
    (project / "expect.yaml").write_text('- {call: {tool: Bash, args: {command: "ls"}}, expect: allow}\n')
    code, out, err = cli("check", "--expect", "expect.yaml", "--select", "FT2", "--format", "json")
    assert code == 0, err
    (result,) = json.loads(out)["expectations"]["results"]
    why = result["explanation"]
    assert "forge-tools run would ask first" in why, why
    assert why.count("a read-only command") == 1 and "does not match" not in why, why
