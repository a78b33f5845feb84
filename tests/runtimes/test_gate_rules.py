"""Issue 28 item 2: forge-tools' gate reads the answering agent's rules (Codex, Claude Code, Gemini
CLI), translated into the gate's terms and read fail-closed; each gate rule keeps its file:line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from forge_tools.runtimes.gate_rules import prefix_patterns, translate

CODEX_RULES = 'prefix_rule(pattern=["git", "push"], decision="forbidden")\n' \
              'prefix_rule(pattern=["npm", ["publish", "unpublish"]], decision="prompt")\n' \
              'prefix_rule(pattern=["git", "status"], decision="allow")\n'


def codex_project(project: Path, home: Path, trusted: bool = True) -> None:
    (project / ".codex" / "rules").mkdir(parents=True)
    (project / ".codex" / "rules" / "default.rules").write_text(CODEX_RULES)
    if trusted:
        (home / ".codex").mkdir(exist_ok=True)
        (home / ".codex" / "config.toml").write_text(f'[projects."{project}"]\ntrust_level = "trusted"\n')


def gate(cli, tool: str, command: str) -> dict:  # type: ignore[no-untyped-def]
    code, out, err = cli("explain", tool, "--call", json.dumps({"command": command}), "--format", "json")
    assert code == 0, err
    return json.loads(out)["call"]["gate"]


@pytest.mark.parametrize("command", ["git push --force", "/usr/bin/git push", "sudo git push origin",
                                     "bash -c 'git push'", "env git push"])
def test_a_codex_forbidden_rule_is_a_gate_deny_read_fail_closed(
        cli, project: Path, isolated_env: dict[str, Path], command: str) -> None:  # type: ignore[no-untyped-def]
    codex_project(project, isolated_env["home"])
    decided = gate(cli, "bash", command)
    assert decided["action"] == "deny"
    origin = decided["deciding_rule"]["origin"]
    assert origin["path"] == str(project / ".codex" / "rules" / "default.rules") and origin["line"] == 1


def test_codex_prompt_is_an_ask_and_allow_an_allow(cli, project: Path,  # type: ignore[no-untyped-def]
                                                     isolated_env: dict[str, Path]) -> None:
    codex_project(project, isolated_env["home"])
    assert gate(cli, "bash", "npm unpublish x")["action"] == "ask"
    assert gate(cli, "bash", "npm publish")["deciding_rule"]["origin"]["line"] == 2
    assert gate(cli, "bash", "git status")["action"] == "allow"


def test_an_untrusted_codex_project_s_forbidden_rule_still_denies_but_its_allow_does_not(
        project: Path) -> None:
    (project / ".codex" / "rules").mkdir(parents=True)
    (project / ".codex" / "rules" / "default.rules").write_text(CODEX_RULES)
    translation = translate("codex", project, project)
    assert translation is not None
    said = {(r.pattern, r.action) for r in translation.rules}
    assert ("git push *", "deny") in said and ("npm unpublish *", "ask") in said
    assert not any(r.action == "allow" for r in translation.rules)
    assert any("Codex does not use it" in u for u in translation.untranslated)


def test_the_json_gate_of_a_codex_project_is_the_deny(cli, project: Path,  # type: ignore[no-untyped-def]
                                                      isolated_env: dict[str, Path]) -> None:
    codex_project(project, isolated_env["home"])
    code, out, err = cli("explain", "exec_command", "--call", '{"cmd": "git push --force"}',
                         "--format", "json")
    assert code == 0, err
    call = json.loads(out)["call"]
    assert call["gate"]["action"] == "deny" and call["runtime"]["action"] == "deny"


def test_check_expect_and_run_use_the_translated_gate(cli, project: Path,  # type: ignore[no-untyped-def]
                                                      isolated_env: dict[str, Path]) -> None:
    codex_project(project, isolated_env["home"], trusted=False)  # Codex ignores them; the gate does not
    (project / "expect.yaml").write_text(
        '- {runtime: codex, call: {tool: bash, args: {command: "/usr/bin/git push"}}, expect: deny}\n')
    code, out, _ = cli("check", "--expect", "expect.yaml")
    assert "expected deny, got allow" in out  # Codex itself runs it: its rules are not read
    assert "forge-tools run would deny it" in out
    code, out, err = cli("run", "bash", "--args", '{"command": "git push --force", "description": "x"}',
                         "--yes")
    assert code != 0 and "git push" in (out + err) and "default.rules:1" in (out + err)


@pytest.mark.parametrize("command", ["rm -rf x", "sudo rm -rf x", "/bin/rm x", "bash -c 'rm x'"])
def test_a_claude_bash_deny_is_a_gate_deny(cli, project: Path,  # type: ignore[no-untyped-def]
                                           command: str) -> None:
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text('{"permissions": {"deny": ["Bash(rm:*)"]}}')
    decided = gate(cli, "Bash", command)
    assert decided["action"] == "deny"
    assert decided["deciding_rule"]["origin"]["path"] == str(project / ".claude" / "settings.json")


def test_a_claude_path_deny_outside_the_project_is_an_ask_never_dropped(  # type: ignore[no-untyped-def]
        project: Path) -> None:
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text(
        '{"permissions": {"deny": ["Read(~/.ssh/**)", "mcp__docs"], "allow": ["Read(~/notes/**)"]}}')
    translation = translate("claude", project, project)
    assert translation is not None
    said = {(r.permission, r.pattern, r.action) for r in translation.written}
    assert ("external_directory", "*", "ask") in said
    assert ("docs_*", "*", "deny") in said
    assert not any(r.action == "allow" for r in translation.written)  # the ~/ allow has no gate form


@pytest.mark.parametrize("command", ["rm -rf x", "sudo rm -rf x", "/bin/rm x", "bash -c 'rm x'"])
def test_a_gemini_policy_deny_is_a_gate_deny(cli, project: Path, gemini_home: Path,  # type: ignore[no-untyped-def]
                                              command: str) -> None:
    (gemini_home / ".gemini" / "policies" / "team.toml").write_text(
        '[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = "rm"\ndecision = "deny"\npriority = 100\n')
    (project / ".gemini").mkdir()
    (project / ".gemini" / "settings.json").write_text("{}")
    decided = gate(cli, "run_shell_command", command)
    assert decided["action"] == "deny"
    team = gemini_home / ".gemini" / "policies" / "team.toml"
    assert decided["deciding_rule"]["origin"]["path"] == str(team)


def test_a_gemini_allow_list_keeps_its_priority_order(project: Path, gemini_home: Path) -> None:
    (project / ".gemini").mkdir()
    (project / ".gemini" / "settings.json").write_text(
        '{"tools": {"allowed": ["run_shell_command(git status)"], "exclude": ["run_shell_command(rm)"]}}')
    translation = translate("gemini", project, project)
    assert translation is not None
    from forge_tools.permission.evaluate import evaluate

    rules = translation.rules
    assert evaluate("bash", "git status", rules).action == "allow"  # the allow is above "deny the rest"
    assert evaluate("bash", "ls", rules).action == "deny"  # the allow-list's narrowing deny
    assert evaluate("bash", "rm x", rules).action == "deny"


def test_a_gemini_args_pattern_deny_is_an_ask_of_the_tool(project: Path, gemini_home: Path) -> None:
    (gemini_home / ".gemini" / "policies" / "team.toml").write_text(
        '[[rule]]\ntoolName = "run_shell_command"\ncommandRegex = "curl.*"\ndecision = "deny"\n'
        'priority = 10\n')
    translation = translate("gemini", project, project)
    assert translation is not None
    assert [(r.permission, r.pattern, r.action) for r in translation.written] == [("bash", "*", "ask")]
    assert "no faithful form" in translation.untranslated[0]


def test_prefix_patterns() -> None:
    assert prefix_patterns([("git",), ("push", "fetch")]) == (["git push *", "git fetch *"], "")
    assert prefix_patterns([("git",), ("commit",), ("-m 'x y'",)]) == (None, "git commit *")
    assert prefix_patterns([("a*",)]) == (None, "*")
