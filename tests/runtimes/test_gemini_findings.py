"""check's Gemini CLI findings (FT341-FT347) at their file:line:col, `check --expect` with
`runtime: gemini`, and FT118 between Gemini CLI and opencode."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

TEAM = '''[[rule]]
toolName = "run_shell_command"
commandPrefix = "git push"
decision = "deny"
priority = 200

[[rule]]
toolName = "run_shell_command"
commandPrefix = ["git status", "npm run test:", "rm *"]
decision = "allow"
priority = 100

[[rule]]
toolName = "run_shell"
decision = "deny"
priority = 10

[[rule]]
mcpName = "*"
toolName = "write"
decision = "deny"
priority = 10

[[rule]]
toolName = "run_shell_command"
commandRegex = "^curl"
decision = "deny"
priority = 10
'''


@pytest.fixture
def gemini_repo(project: Path, gemini_home: Path) -> Path:
    (project / ".gemini" / "policies").mkdir(parents=True)
    (project / ".gemini" / "policies" / "ws.toml").write_text(TEAM)
    (gemini_home / ".gemini" / "policies" / "team.toml").write_text(TEAM)
    return project


def _settings(project: Path, data: object) -> None:
    (project / ".gemini" / "settings.json").write_text(
        data if isinstance(data, str) else json.dumps(data, indent=2))


def _findings(cli, code: str | None = None) -> list[dict]:
    _, out, _ = cli("check", "--format", "json")
    found = json.loads(out)["findings"]
    return [f for f in found if code is None or f["code"] == code]


def _at(finding: dict) -> tuple[str, int, int]:
    loc = finding["location"]
    return Path(loc["path"]).name, loc["line"], loc["column"]


def test_workspace_policies_rules_that_never_match_and_unknown_tools(cli, gemini_repo: Path) -> None:
    _settings(gemini_repo, {"tools": {"exclude": ["web_fetch"]}})
    assert [_at(f) for f in _findings(cli, "FT342")] == [("ws.toml", 1, 1)]
    never = _findings(cli, "FT346")
    messages = " | ".join(f["message"] for f in never)
    assert "'npm run test:'" in messages and "`npm run test:unit` is not matched" in messages
    assert "'rm *'" in messages and "mcp_*_write" in messages and "`^`" in messages
    assert {_at(f) for f in never} == {("team.toml", 7, 1), ("team.toml", 18, 1), ("team.toml", 24, 1)}
    unknown = _findings(cli, "FT347")
    assert [_at(f) for f in unknown] == [("team.toml", 13, 1)]
    assert "run_shell_command" in unknown[0]["message"]


def test_allowed_with_arguments_and_core_over_a_deny(cli, gemini_repo: Path) -> None:
    _settings(gemini_repo, {"tools": {"allowed": ["run_shell_command(npm test)"]}})
    narrows = _findings(cli, "FT344")
    assert [_at(f) for f in narrows] == [("settings.json", 4, 7)]
    assert "`git status` (allowed by" in narrows[0]["message"]
    _settings(gemini_repo, {"tools": {"core": ["read_file", "run_shell_command(git)"]}})
    beaten = _findings(cli, "FT345")
    assert [_at(f) for f in beaten] == [("team.toml", 1, 1)]
    assert "never decides `git push`" in beaten[0]["message"] and "settings.json:5:7" in beaten[0]["message"]


def test_untrusted_folder_and_a_file_gemini_cannot_start_with(cli, gemini_repo: Path,
                                                              gemini_home: Path) -> None:
    _settings(gemini_repo, {"tools": {"exclude": ["web_fetch"]}})
    (gemini_home / ".gemini" / "trustedFolders.json").unlink()
    not_loaded = _findings(cli, "FT343")
    assert [_at(f) for f in not_loaded] == [("settings.json", 1, 1)]
    assert "not trusted" in not_loaded[0]["message"]
    _settings(gemini_repo, '{\n  "tools": {"exclude": ["web_fetch"],},\n}\n')
    broken = _findings(cli, "FT341")
    assert [_at(f)[:2] for f in broken] == [("settings.json", 2)]
    assert "does not start" in broken[0]["message"]


def test_expect_with_runtime_gemini_needs_no_agent(cli, gemini_repo: Path) -> None:
    _settings(gemini_repo, {"tools": {"core": ["read_file", "run_shell_command(git)"]}})
    (gemini_repo / "expect.yaml").write_text(
        '- call: {tool: run_shell_command, args: {command: "git push"}}\n  expect: deny\n  runtime: gemini\n'
        '- call: {tool: bash, args: {command: "git status"}}\n  expect: allow\n  runtime: gemini\n')
    code, out, _ = cli("check", "--expect", "expect.yaml", "--format", "json")
    outcomes = json.loads(out)["expectations"]["results"]
    assert [o["passed"] for o in outcomes] == [False, True]
    assert "Settings (Core Tools)" in outcomes[0]["explanation"] and code != 0


def test_ft118_between_gemini_and_opencode(cli, gemini_repo: Path) -> None:
    _settings(gemini_repo, {"tools": {"exclude": ["web_fetch"]}})
    (gemini_repo / "opencode.json").write_text(json.dumps({"permission": {"bash": {"*": "allow"}}}))
    disagree = _findings(cli, "FT118")
    gemini_denies = [f for f in disagree if f["data"]["denied_by"] == "gemini"]
    assert gemini_denies and _at(gemini_denies[0]) == ("team.toml", 1, 1)
    assert "`git push`" in gemini_denies[0]["message"]
    assert gemini_denies[0]["data"]["allowed_by"] == "opencode"


def test_an_insecure_admin_directory_is_not_loaded(cli, gemini_repo: Path, gemini_home: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    system = gemini_home / "system"
    (system / "policies").mkdir(parents=True)
    (system / "policies" / "admin.toml").write_text(TEAM)
    (system / "policies").chmod(0o777)
    monkeypatch.setenv("FORGE_TOOLS_GEMINI_SYSTEM_DIR", str(system))
    skipped = [f for f in _findings(cli, "FT343") if f["location"]["path"].endswith("admin.toml")]
    assert len(skipped) == 1 and "writable by group or others" in skipped[0]["message"]
    (system / "policies").chmod(0o755)
    assert not [f for f in _findings(cli, "FT343") if f["location"]["path"].endswith("admin.toml")]


def test_an_answer_forge_tools_cannot_verify_says_modelled(gemini_repo: Path) -> None:
    from forge_tools.runtimes.gemini.runtime import RUNTIME

    settings = RUNTIME.settings(gemini_repo, mode="autoEdit")
    answer = RUNTIME.decide(None, "write_file", {"file_path": "a.txt", "content": ""}, gemini_repo,
                            settings=settings)
    assert answer.action == "allow" and answer.extra is not None and answer.extra["fidelity"] == "modelled"
    assert "allowed-path" in answer.reason
    plain = RUNTIME.decide(None, "read_file", {"file_path": "a.txt"}, gemini_repo)
    assert plain.extra is not None and plain.extra["fidelity"] == "reproduced"
