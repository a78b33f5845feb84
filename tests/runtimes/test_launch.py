"""Issue 28 item 4: `--launch 'AGENT FLAGS'` and an expectation's `launch:`: the agent's own flag
grammar (an unknown flag is a one-line usage error naming it), the launch picks the answering agent,
and the flags change its answers as the recorded binaries do (tests/compat/*/launch-*.json and the
flag configs of tests/compat/claude and codex, replayed through the same parser)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from forge_tools.errors import UsageError
from forge_tools.runtimes.launch import choose, parse_launch


@pytest.mark.parametrize(("text", "flag"), [
    ("claude -p --bogus", "'--bogus'"), ("codex exec --full-auto", "'--full-auto'"),
    ("codex exec -a never", "'-a'"), ("gemini --bogus -p x", "'--bogus'"),
    ("claude --permission-mode bogus", "bogus"), ("codex -a untrusted", "untrusted"),
    ("gemini --approval-mode bogus", "bogus"), ("gemini -y --approval-mode plan -p x", "--yolo"),
    ("codex --approve-for-me", "--approve-for-me"), ("claude --tools Bash", "--tools"),
    ("codex mcp list", "codex mcp"), ("aider --yes", "'aider'"), ("claude -p 'x", "cannot split"),
])
def test_a_bad_launch_is_one_usage_error_naming_the_flag(text: str, flag: str) -> None:
    with pytest.raises(UsageError) as raised:
        parse_launch(text)
    assert flag in raised.value.one_line() and raised.value.one_line().startswith("--launch: ")
    assert "\n" not in raised.value.one_line()


def test_claude_flags() -> None:
    launch = parse_launch("/usr/local/bin/claude -p 'do it' --permission-mode acceptEdits --add-dir ../lib "
                          "--allowedTools 'Bash(git add:*),Edit' Read --disallowedTools WebFetch "
                          "--setting-sources user,local --model sonnet")
    o = launch.options
    assert launch.runtime == "claude" and launch.headless
    assert (o.permission_mode, o.add_dirs) == ("acceptEdits", ("../lib",))
    assert o.setting_sources == ("user", "local")
    assert o.allowed_tools == ("Bash(git add:*)", "Edit", "Read") and o.disallowed_tools == ("WebFetch",)
    assert launch.neutral == ("--model",)
    bypass = parse_launch("claude --dangerously-skip-permissions").options
    assert bypass.permission_mode == "bypassPermissions"
    assert bypass.mode_flag == "--dangerously-skip-permissions"
    assert not parse_launch("claude").headless


def test_codex_flags() -> None:
    exec_ = parse_launch("codex -a on-request exec -s workspace-write -c 'x=1' --profile ci --json go")
    assert exec_.headless and exec_.options.overrides == ("x=1",) and exec_.options.profile == "ci"
    # codex exec never asks a person, whatever -a said before it
    assert exec_.options.values[-1] == ("approval_policy", "never", "codex exec")
    assert ("sandbox_mode", "workspace-write", "--sandbox") in exec_.options.values
    bypass = parse_launch("codex --dangerously-bypass-approvals-and-sandbox").options.values
    assert ("sandbox_mode", "danger-full-access", "--dangerously-bypass-approvals-and-sandbox") in bypass
    assert not parse_launch("codex -a never 'fix it'").headless
    assert parse_launch("codex e").headless  # exec's alias


def test_gemini_flags() -> None:
    plan = parse_launch("gemini -p 'look' --approval-mode plan")
    assert plan.headless and plan.options.mode == "plan" and not plan.options.interactive
    assert parse_launch("gemini --approval-mode auto_edit").options.mode == "autoEdit"
    yolo = parse_launch("gemini -y")
    assert yolo.options.mode == "yolo" and not yolo.headless
    assert parse_launch("gemini -p x --skip-trust").options.skip_trust


def test_runtime_and_launch_must_agree() -> None:
    launch = parse_launch("codex exec")
    assert choose(launch, None) == "codex" and choose(launch, "codex") == "codex"
    assert choose(launch, "all") == "all"
    with pytest.raises(UsageError, match="conflicts"):
        choose(launch, "claude")


def _claude_project(project: Path, home: Path) -> None:
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text(json.dumps(
        {"permissions": {"deny": ["Bash(rm:*)"]}}))
    (home / ".claude").mkdir(exist_ok=True)
    trusted = {"projects": {str(project): {"hasTrustDialogAccepted": True}}}
    (home / ".claude.json").write_text(json.dumps(trusted))
    (home / ".claude" / ".claude.json").write_text(json.dumps(trusted))  # with CLAUDE_CONFIG_DIR set


def test_explain_answers_under_the_launch(cli, project: Path, isolated_env, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Claude Code's recorded acceptEdits answers (`mode-cli-acceptEdits`: `touch` in the project runs,
    a deny rule still denies) come out of `explain --launch`, named on the first line."""
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(isolated_env["home"] / ".claude"))
    _claude_project(project, isolated_env["home"])
    call = json.dumps({"command": "touch made.txt"})
    code, plain, _ = cli("explain", "bash", "--call", call)
    assert code == 0 and "ASK" in plain.upper()
    launch = "claude -p --permission-mode acceptEdits"
    code, out, err = cli("explain", "bash", "--call", call, "--launch", launch)
    first = out.splitlines()[0]
    assert code == 0, err
    assert first.startswith("Answering: Claude Code") and f"--launch {launch!r}" in first
    assert "headless" in first and "permission mode acceptEdits" in first
    data = json.loads(cli("explain", "bash", "--call", call, "--format", "json", "--launch",
                          "claude -p --permission-mode acceptEdits")[1])
    assert data["call"]["action"] == "allow" and data["runtime"]["launch"]["headless"] is True
    rm = json.loads(cli("explain", "bash", "--call", json.dumps({"command": "rm -rf x"}), "--format", "json",
                        "--launch", "claude -p --dangerously-skip-permissions")[1])
    assert rm["call"]["action"] == "deny"  # an explicit deny beats bypassPermissions


def test_launch_errors_on_the_command_line(cli, project: Path) -> None:  # type: ignore[no-untyped-def]
    code, _, err = cli("explain", "bash", "--call", "{}", "--launch", "codex exec --full-auto")
    assert code == 2 and err.strip() == ("forge-tools: error: --launch: codex exec has no flag '--full-auto' "
                                         "(in 'codex exec --full-auto'); Codex CLI 0.171.0 refuses it "
                                         "(`unexpected argument`); write -s workspace-write")
    code, _, err = cli("layers", "--launch", "codex exec", "--runtime", "gemini")
    assert code == 2 and "conflicts" in err and len(err.strip().splitlines()) == 1


def _codex_project(project: Path, home: Path) -> None:
    (home / ".codex").mkdir(parents=True)
    (home / ".codex" / "config.toml").write_text(f'[projects."{project}"]\ntrust_level = "trusted"\n')
    (project / ".codex").mkdir()
    (project / ".codex" / "config.toml").write_text('approval_policy = "on-request"\n')


def test_expectation_launch_codex_exec(cli, project: Path, isolated_env, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """`launch: codex exec` per expectation: no person is asked, so what would ask is refused (recorded:
    tests/compat/codex `exec-*`, `approval-required`), while the plain start asks."""
    home = isolated_env["home"]
    monkeypatch.setenv("CODEX_HOME", str(home / ".codex"))
    _codex_project(project, home)
    expect = project / "expect.yaml"
    expect.write_text(
        "- {name: plain, call: {tool: bash, args: {command: 'rm -rf build'}}, expect: ask}\n"
        "- {name: ci, launch: 'codex exec -s workspace-write',"
        " call: {tool: bash, args: {command: 'rm -rf build'}}, expect: deny}\n"
        "- {name: bad, launch: 'codex exec --full-auto',"
        " call: {tool: bash, args: {command: ls}}, expect: allow}\n")
    code, out, _ = cli("check", "--expect", str(expect), "--format", "json", "--select", "FT2")
    data = json.loads(out)
    results = {r["assertion"]: r for r in data["expectations"]["results"]}
    assert code == 1 and results["plain"]["passed"] and results["ci"]["passed"], results
    assert "approval_policy never" in results["ci"]["explanation"]
    (bad,) = [f for f in data["findings"] if f["code"] == "FT202"]
    assert "codex exec has no flag '--full-auto'" in bad["message"]
    assert (bad["location"]["line"], bad["location"]["key_path"]) == (3, ["2", "launch"])


def test_gemini_plan_mode_removes_the_shell_tool(cli, project: Path, gemini_home: Path) -> None:  # type: ignore[no-untyped-def]
    """Gemini CLI's plan mode (recorded: gemini's `mode: plan` configs; `--approval-mode plan` is read
    as plan, tests/compat/gemini/launch-0.61.0.json): run_shell_command is not offered, so `rm -rf`
    cannot run; plain interactive Gemini asks; headless denies what would ask."""
    (project / ".gemini").mkdir()
    (project / ".gemini" / "settings.json").write_text("{}")
    call = json.dumps({"command": "rm -rf build"})

    def action(launch: str) -> str:
        code, out, err = cli("explain", "run_shell_command", "--call", call, "--format", "json",
                             "--launch", launch)
        assert code == 0, err
        data = json.loads(out)
        assert data["runtime"]["launch"]["text"] == launch
        return str(data["call"]["action"])

    assert action("gemini") == "ask"
    assert action("gemini -p go --approval-mode plan") == "deny"
    assert action("gemini -p go") == "deny"
    assert action("gemini --yolo") == "allow"


def test_a_headless_ask_is_said_not_to_run(cli, project: Path, isolated_env, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """`claude -p` asks nobody. With the default `--permission-prompts host` and no host, what would
    ask is refused (recorded: `launch-prompts-host`, "you haven't granted it yet"): deny. With
    `--permission-prompts none` the binary reports it as a permission request denied (`asyncAgent`,
    every other Claude record): an ask that does not run, said on its own line."""
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(isolated_env["home"] / ".claude"))
    _claude_project(project, isolated_env["home"])
    call = json.dumps({"command": "touch made.txt"})

    def answer(launch: str) -> tuple[str, str]:
        code, out, err = cli("explain", "bash", "--call", call, "--launch", launch)
        data = json.loads(cli("explain", "bash", "--call", call, "--launch", launch, "--format", "json")[1])
        assert code == 0, err
        return str(data["call"]["action"]), out

    assert answer("claude")[0] == "ask" and answer("claude -p")[0] == "deny"
    action, out = answer("claude -p --permission-prompts none")
    assert action == "ask"
    line = "headless: 'claude -p --permission-prompts none' asks nobody: a call that would ask does not run"
    assert line in out.splitlines()
    assert "headless:" not in answer("claude")[1]


def test_the_library_takes_a_launch(project: Path, isolated_env, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """`forge_tools.call_answers(..., launch=...)`: the same launch as `--launch`, the same answers."""
    import forge_tools

    home = isolated_env["home"]
    monkeypatch.setenv("CODEX_HOME", str(home / ".codex"))
    _codex_project(project, home)
    plain = forge_tools.call_answers(project, "bash", {"command": "rm -rf build"})
    ci = forge_tools.call_answers(project, "bash", {"command": "rm -rf build"}, launch="codex exec")
    assert (plain.runtime.action, ci.runtime.action) == ("ask", "deny")
    assert ci.chosen.launch is not None and ci.chosen.launch.headless
    with pytest.raises(UsageError, match="full-auto"):
        forge_tools.call_answers(project, "bash", {"command": "ls"}, launch="codex exec --full-auto")


def test_layers_lists_the_tools_of_the_launch(cli, project: Path, gemini_home: Path) -> None:  # type: ignore[no-untyped-def]
    (project / ".gemini").mkdir()
    (project / ".gemini" / "settings.json").write_text("{}")

    def shell_row(*launch: str) -> str:
        code, out, err = cli("layers", *launch)
        assert code == 0, err
        return next(line for line in out.splitlines() if line.startswith("run_shell_command"))

    assert "offered" in shell_row()
    assert "HIDDEN" in shell_row("--launch", "gemini -p go --approval-mode plan")


def test_diff_answers_both_sides_under_the_launch(cli, project: Path, tmp_path: Path,  # type: ignore[no-untyped-def]
                                                  isolated_env, monkeypatch) -> None:
    """A project's `defaultMode: acceptEdits` removed: `touch` went from allowed to asking, unless the
    agent is started with `--permission-mode acceptEdits` anyway (recorded: mode-cli-acceptEdits)."""
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(isolated_env["home"] / ".claude"))
    _claude_project(project, isolated_env["home"])
    old = tmp_path / "old"
    (old / ".claude").mkdir(parents=True)
    (old / ".claude" / "settings.json").write_text(json.dumps(
        {"permissions": {"deny": ["Bash(rm:*)"], "defaultMode": "acceptEdits"}}))
    (project / "expect.yaml").write_text(
        '- {call: {tool: bash, args: {command: "touch made.txt"}}, expect: allow}\n')
    args = ("diff", str(old), str(project), "--expect", str(project / "expect.yaml"), "--format", "json")
    code, out, err = cli(*args)
    assert code == 0, err
    assert [(c["old"], c["new"]) for c in json.loads(out)["calls"]] == [("allow", "ask")]
    code, out, err = cli(*args, "--launch", "claude --permission-mode acceptEdits")
    assert code == 0, err
    assert json.loads(out)["calls"] == []
