"""`forge-tools hook` as the agents run it: a real process, a payload on stdin, the exact answer each
agent honours (agent-hooks.md), and a deny on every way the hook can fail (issue 32 items 1, 2, 6)."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

CLAUDE_DENY = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny"}}
# FT116's spellings of a denied `rm`, each run past some agent's own rule
SPELLINGS = ["rm -rf x", "/bin/rm x", "command rm x", "env rm x", "bash -c 'rm x'", "\\rm x", "time rm x",
             "sudo rm -rf x"]


def hook(runtime: str, payload: object, env: dict[str, str] | None = None, *extra: str,
         raw: bytes | None = None) -> subprocess.CompletedProcess[str]:
    data = raw if raw is not None else json.dumps(payload).encode()
    return subprocess.run([sys.executable, "-m", "forge_tools", "hook", "--runtime", runtime, *extra],
                          input=data.decode("utf-8", "replace"), capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, timeout=60)


def claude_payload(project: Path, command: str, tool: str = "Bash") -> dict[str, object]:
    return {"session_id": "s", "cwd": str(project), "hook_event_name": "PreToolUse", "tool_name": tool,
            "tool_input": {"command": command, "description": "d"}, "tool_use_id": "t"}


def codex_payload(project: Path, command: str) -> dict[str, object]:
    return {"session_id": "s", "turn_id": "t", "cwd": str(project), "hook_event_name": "PreToolUse",
            "model": "gpt-5", "permission_mode": "default", "tool_name": "Bash",
            "tool_input": {"command": command}, "tool_use_id": "k0"}


def gemini_payload(project: Path, command: str, tool: str = "run_shell_command") -> dict[str, object]:
    return {"session_id": "s", "cwd": str(project), "hook_event_name": "BeforeTool",
            "timestamp": "2026-12-03T05:48:47.252Z", "tool_name": tool,
            "tool_input": {"command": command, "description": "w"}}


def opencode_payload(project: Path, command: str) -> dict[str, object]:
    return {"tool": "bash", "args": {"command": command, "description": "w"}, "cwd": str(project)}


@pytest.fixture
def claude_project(project: Path) -> Path:
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text(json.dumps(
        {"permissions": {"deny": ["Bash(rm:*)", "mcp__docs"], "ask": ["Bash(curl:*)"]}}, indent=2))
    return project


@pytest.fixture
def codex_project(project: Path) -> Path:
    (project / ".codex" / "rules").mkdir(parents=True)
    (project / ".codex" / "rules" / "default.rules").write_text(
        'prefix_rule(pattern=["rm"], decision="forbidden")\n'
        'prefix_rule(pattern=["curl"], decision="prompt")\n')
    return project


@pytest.fixture
def gemini_project(project: Path, isolated_env: dict[str, Path]) -> Path:
    policies = isolated_env["home"] / ".gemini" / "policies"
    policies.mkdir(parents=True)
    (policies / "team.toml").write_text(
        '[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = "rm"\ndecision = "deny"\npriority = 100\n')
    return project


@pytest.fixture
def opencode_project(project: Path) -> Path:
    rules = {"permission": {"bash": {"*": "allow", "rm *": "deny"}}}
    (project / "opencode.json").write_text(json.dumps(rules))
    return project


def claude_answer(result: subprocess.CompletedProcess[str]) -> dict[str, str]:
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    out = json.loads(result.stdout)
    assert set(out) == {"hookSpecificOutput"}
    return out["hookSpecificOutput"]  # type: ignore[no-any-return]


@pytest.mark.parametrize("command", SPELLINGS)
def test_claude_every_spelling_of_a_denied_rm_is_denied_with_rule_and_line(claude_project: Path,
                                                                           command: str) -> None:
    answer = claude_answer(hook("claude", claude_payload(claude_project, command)))
    assert set(answer) == {"hookEventName", "permissionDecision", "permissionDecisionReason"}
    assert answer["permissionDecision"] == "deny" and answer["hookEventName"] == "PreToolUse"
    assert f"{claude_project / '.claude' / 'settings.json'}:4:7" in answer["permissionDecisionReason"]
    assert "rm *" in answer["permissionDecisionReason"]


@pytest.mark.parametrize("command", SPELLINGS)
def test_codex_every_spelling_is_denied_in_the_exact_form_codex_honours(codex_project: Path,
                                                                        command: str) -> None:
    result = hook("codex", codex_payload(codex_project, command))
    assert result.returncode == 0 and result.stderr == ""
    out = json.loads(result.stdout)
    assert out == {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                                          "permissionDecisionReason": out["hookSpecificOutput"][
                                              "permissionDecisionReason"]}}
    assert "default.rules:1:1" in out["hookSpecificOutput"]["permissionDecisionReason"]


@pytest.mark.parametrize("command", SPELLINGS)
def test_gemini_every_spelling_is_denied_in_gemini_s_own_form(gemini_project: Path, command: str) -> None:
    result = hook("gemini", gemini_payload(gemini_project, command))
    assert result.returncode == 0 and result.stderr == ""
    out = json.loads(result.stdout)
    assert set(out) == {"decision", "reason"} and out["decision"] == "deny"
    assert "team.toml:1:1" in out["reason"]


@pytest.mark.parametrize("command", SPELLINGS)
def test_opencode_every_spelling_is_denied_for_the_shim(opencode_project: Path, command: str) -> None:
    out = json.loads(hook("opencode", opencode_payload(opencode_project, command)).stdout)
    assert out["decision"] == "deny" and "opencode.json" in out["reason"]


@pytest.mark.parametrize(("runtime", "payload"), [
    ("claude", claude_payload), ("codex", codex_payload), ("gemini", gemini_payload)])
def test_an_allowed_command_gets_no_decision(  # type: ignore[no-untyped-def]
        runtime: str, payload, claude_project: Path, codex_project: Path, gemini_project: Path) -> None:
    result = hook(runtime, payload(claude_project, "git status"))
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")


def test_opencode_gets_a_clear_allow(opencode_project: Path) -> None:
    out = hook("opencode", opencode_payload(opencode_project, "ls")).stdout
    assert json.loads(out) == {"decision": "allow"}


def test_an_ask_asks_on_claude_and_is_a_deny_saying_how_to_allow_elsewhere(
        claude_project: Path, codex_project: Path) -> None:
    asked = claude_answer(hook("claude", claude_payload(claude_project, "curl https://x.example")))
    assert asked["permissionDecision"] == "ask"
    out = json.loads(hook("codex", codex_payload(codex_project, "curl https://x.example")).stdout)
    reason = out["hookSpecificOutput"]["permissionDecisionReason"]
    assert out["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert "cannot ask from a hook" in reason and "default.rules:2:1" in reason


def test_mcp_tools_in_the_agent_s_names_and_an_unknown_tool(claude_project: Path,
                                                           isolated_env: dict[str, Path]) -> None:
    payload = {**claude_payload(claude_project, ""), "tool_name": "mcp__docs__lookup",
               "tool_input": {"q": "x"}}
    assert claude_answer(hook("claude", payload))["permissionDecision"] == "deny"
    unknown = {**payload, "tool_name": "BrandNewTool"}
    result = hook("claude", unknown)
    assert (result.returncode, result.stdout) == (0, "")
    log = (isolated_env["data"] / "hook-audit.jsonl").read_text().splitlines()
    assert json.loads(log[-1])["note"] == "unknown tool"


@pytest.mark.parametrize(("runtime", "deny_key"), [("claude", "hookSpecificOutput"),
                                                   ("codex", "hookSpecificOutput"), ("gemini", "decision"),
                                                   ("opencode", "decision")])
@pytest.mark.parametrize("failure", ["garbage", "truncated", "empty", "forced", "deadline", "bad input",
                                     "not an object"])
def test_every_failure_is_a_deny_the_agent_honours(runtime: str, deny_key: str, failure: str,
                                                   claude_project: Path) -> None:
    event = {"gemini": "BeforeTool"}.get(runtime, "PreToolUse")
    good = json.dumps({**claude_payload(claude_project, "ls"), "hook_event_name": event, "tool": "bash",
                       "args": {"command": "ls"}})
    env: dict[str, str] = {}
    extra: tuple[str, ...] = ()
    raw = good.encode()
    if failure == "garbage":
        raw = b"\x00\xffnot json at all"
    elif failure == "truncated":
        raw = good.encode()[: len(good) // 2]
    elif failure == "empty":
        raw = b""
    elif failure == "forced":
        env["FORGE_TOOLS_HOOK_TEST_FAULT"] = "raise"
    elif failure == "deadline":
        env["FORGE_TOOLS_HOOK_TEST_FAULT"] = "sleep"
        extra = ("--deadline", "1")
    elif failure == "bad input":
        raw = json.dumps({**json.loads(good), "tool_input": {"command": 7}, "args": {"command": 7}}).encode()
    else:
        raw = b"[1, 2]"
    result = hook(runtime, None, env, *extra, raw=raw)
    assert result.returncode == 0 and "Traceback" not in result.stdout + result.stderr
    out = json.loads(result.stdout)
    assert set(out) == {deny_key} | ({"reason"} if deny_key == "decision" else set())
    if deny_key == "decision":
        assert out["decision"] == "deny" and out["reason"].startswith("forge-tools hook refused the call")
    else:
        inner = out["hookSpecificOutput"]
        assert inner["permissionDecision"] == "deny"
        assert inner["permissionDecisionReason"].startswith("forge-tools hook refused the call")


def test_no_runtime_is_exit_2_with_a_reason_which_every_command_hook_agent_denies() -> None:
    result = subprocess.run([sys.executable, "-m", "forge_tools", "hook"], input="{}", capture_output=True,
                            text=True, timeout=60)
    assert result.returncode == 2 and result.stderr.startswith("forge-tools hook: refused:")


def test_the_audit_log_is_private_and_holds_no_environment_value(gemini_project: Path,
                                                                 isolated_env: dict[str, Path]) -> None:
    secret = "sk-test-do-not-log-4711"
    hook("gemini", gemini_payload(gemini_project, "rm x"), {"GEMINI_API_KEY": secret, "OTHER": secret})
    hook("gemini", None, {"GEMINI_API_KEY": secret}, raw=b"garbage")
    log = isolated_env["data"] / "hook-audit.jsonl"
    assert stat.S_IMODE(log.stat().st_mode) == 0o600
    text = log.read_text()
    assert secret not in text
    records = [json.loads(line) for line in text.splitlines()]
    assert [r["action"] for r in records] == ["deny", "deny"]
    assert records[0]["subject"] == "rm x" and records[0]["rule"]["origin"]["line"] == 1


def test_the_hook_path_imports_neither_typer_nor_rich_nor_pydantic(claude_project: Path) -> None:
    result = subprocess.run([sys.executable, "-X", "importtime", "-m", "forge_tools", "hook", "--runtime",
                             "claude"], input=json.dumps(claude_payload(claude_project, "rm x")),
                            capture_output=True, text=True, timeout=60)
    imported = {line.split("|")[-1].strip() for line in result.stderr.splitlines() if "|" in line}
    assert "forge_tools.runtimes.hook_gate" in imported
    assert not {m for m in imported if m.split(".")[0] in ("typer", "rich", "pydantic", "click")}
    # what the lean path leaves out (hook/lean.py, permission/audit.now_iso, hook_gate's context): a
    # dataclass without a docstring on the path would load inspect again
    assert not imported & {"inspect", "ipaddress", "datetime", "forge_tools.tools.contract",
                           "forge_tools.tools.context"}, sorted(imported)


def _imports(runtime: str, payload: object) -> tuple[set[str], str]:
    result = subprocess.run([sys.executable, "-X", "importtime", "-m", "forge_tools", "hook", "--runtime",
                             runtime], input=json.dumps(payload), capture_output=True, text=True, timeout=60)
    return {line.split("|")[-1].strip() for line in result.stderr.splitlines() if "|" in line}, result.stdout


def test_opencode_s_unchanged_config_is_validated_once_then_remembered_clean(
        opencode_project: Path, isolated_env: dict[str, Path]) -> None:
    first, said_first = _imports("opencode", opencode_payload(opencode_project, "/bin/rm x"))
    again, said_again = _imports("opencode", opencode_payload(opencode_project, "/bin/rm x"))
    # the validator is built from config.core_schema's shipped data: not at all when the tree is known
    assert "forge_tools.config.core_schema" in first
    assert not {m for m in again if m.startswith("pydantic") or m == "forge_tools.config.core_schema"}
    assert said_first == said_again and json.loads(said_again)["decision"] == "deny"
    memo = isolated_env["data"] / "hook-validated.json"
    assert stat.S_IMODE(memo.stat().st_mode) == 0o600 and len(json.loads(memo.read_text())["clean"]) >= 1


def test_a_config_changed_after_it_was_remembered_clean_is_validated_again(
        opencode_project: Path, isolated_env: dict[str, Path]) -> None:
    first = hook("opencode", opencode_payload(opencode_project, "ls")).stdout
    assert json.loads(first)["decision"] == "allow"
    # a misspelt action: opencode refuses such a file; the hook refuses the call rather than guess
    (opencode_project / "opencode.json").write_text(json.dumps({"permission": {"bash": {"*": "alow"}}}))
    imported, said = _imports("opencode", opencode_payload(opencode_project, "ls"))
    out = json.loads(said)
    assert "pydantic_core" in imported
    assert out["decision"] == "deny" and out["reason"].startswith("forge-tools hook refused the call")
