"""A call written in another agent's words: whose answer it is, said as why, and a difference line that
never calls the gate's rule the other agent's own."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

OPENCODE = {"permission": {"bash": {"*": "allow", "git push *": "deny"}}}


def test_a_gemini_call_names_why_gemini_answers_and_its_own_reason(  # type: ignore[no-untyped-def]
        project: Path, gemini_home: Path, cli) -> None:
    (project / "opencode.json").write_text(json.dumps(OPENCODE))
    (project / ".gemini").mkdir()
    (project / ".gemini" / "settings.json").write_text("{}")
    code, out, err = cli("explain", "run_shell_command", "--call", '{"command": "git push"}',
                         "--format", "json")
    assert code == 0, err
    call = json.loads(out)["call"]
    assert call["runtime"]["runtime"] == "gemini" and call["runtime"]["action"] == "ask"
    assert json.loads(out)["runtime"]["chosen_by"] == "call: run_shell_command is Gemini CLI's tool name"
    # Gemini decided by its own default policy: opencode's "git push *" is the gate's rule, not Gemini's
    assert "its bash rule" not in call["difference"] and "never applies" not in call["difference"]
    assert call["difference"].startswith("gemini 0.61.0 asks before running this: ")
    assert call["difference"].endswith('forge-tools run would deny it (by its rule "git push *")')


def test_a_runtime_named_by_option_keeps_saying_so(  # type: ignore[no-untyped-def]
        project: Path, gemini_home: Path, cli) -> None:
    (project / "opencode.json").write_text(json.dumps(OPENCODE))
    code, out, err = cli("explain", "run_shell_command", "--call", '{"command": "ls"}', "--runtime",
                         "gemini", "--format", "json")
    assert code == 0, err
    assert json.loads(out)["runtime"]["chosen_by"] == "--runtime"


def test_an_unruled_check_says_the_answer_it_got(  # type: ignore[no-untyped-def]
        project: Path, isolated_env: dict[str, Path], monkeypatch: pytest.MonkeyPatch, cli) -> None:
    """Codex runs a known-safe `ls` with no rule: the check line says allow, not opencode's ask."""
    monkeypatch.delenv("CODEX_HOME", raising=False)
    (project / ".codex").mkdir()
    (project / ".codex" / "config.toml").write_text('sandbox_mode = "workspace-write"\n')
    (isolated_env["home"] / ".codex").mkdir()
    (isolated_env["home"] / ".codex" / "config.toml").write_text(
        f'[projects."{project}"]\ntrust_level = "trusted"\n')
    code, out, err = cli("explain", "exec_command", "--call", '{"cmd": "ls"}')
    assert code == 0, err
    unruled = [line for line in out.splitlines() if "no rule matches" in line]
    assert unruled, out
    assert any(line.strip().startswith("exec_command 'ls': allow") for line in unruled), unruled
    for line in unruled:
        action = line.split("': ", 1)[1].split(" ", 1)[0]
        assert line.endswith(f"(the answer is {action}))"), line


PATCH = "*** Begin Patch\n*** Add File: a.txt\n+hi\n*** End Patch"


@pytest.mark.parametrize("key,runtime", [("patchText", "opencode"), ("input", "codex")])
def test_apply_patch_is_codexs_only_in_codexs_words(  # type: ignore[no-untyped-def]
        project: Path, cli, key: str, runtime: str) -> None:
    """opencode has an apply_patch too: its call (`patchText`) in an opencode project is opencode's
    answer; Codex's (`input`) is Codex's."""
    (project / "opencode.json").write_text("{}")
    code, out, err = cli("explain", "apply_patch", "--model", "openai/gpt-5", "--call",
                         json.dumps({key: PATCH}), "--format", "json")
    assert code == 0, err
    assert json.loads(out)["call"]["runtime"]["runtime"] == runtime


def test_an_expectation_of_opencodes_apply_patch_is_opencodes(project: Path, cli) -> None:  # type: ignore[no-untyped-def]
    (project / "opencode.json").write_text(json.dumps({"permission": {"edit": "deny"}}))
    (project / "expect.yaml").write_text(
        "- {agent: build, model: openai/gpt-5, call: {tool: apply_patch, args: {patchText: "
        + json.dumps(PATCH) + "}}, expect: deny}\n")
    _code, out, _err = cli("check", "--expect", "expect.yaml", "--format", "json")
    result = json.loads(out)["expectations"]["results"][0]
    assert result["passed"], result
    assert "opencode 1.18.33" in result["explanation"], result
