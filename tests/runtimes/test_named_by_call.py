"""A call written in another agent's words: whose answer it is, said as why, and a difference line that
never calls the gate's rule the other agent's own."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

OPENCODE = {"permission": {"bash": {"*": "allow", "git push *": "deny"}}}


def test_a_gemini_call_in_an_opencode_project_is_opencodes_and_gemini_is_said_beside(  # type: ignore[no-untyped-def]
        project: Path, gemini_home: Path, cli) -> None:
    """Issue 28: the files choose (opencode.json makes it opencode's), not the tool's spelling; the
    other configured agent whose answer differs gets one line at the end."""
    (project / "opencode.json").write_text(json.dumps(OPENCODE))
    (project / ".gemini").mkdir()
    (project / ".gemini" / "settings.json").write_text("{}")
    code, out, err = cli("explain", "run_shell_command", "--call", '{"command": "git push"}',
                         "--format", "json")
    assert code == 0, err
    data = json.loads(out)
    assert data["runtime"]["name"] == "opencode" and data["call"]["action"] == "deny"
    assert data["translated"] == "run_shell_command is bash in opencode's words"
    assert any(line.startswith("Gemini CLI 0.61.0 would ask it") for line in data["others"]), data["others"]
    code, out, err = cli("explain", "run_shell_command", "--call", '{"command": "git push"}')
    assert out.splitlines()[0] == "Answering: opencode 1.18.33 (config: opencode's files only)"
    assert out.rstrip().splitlines()[-1].startswith("other agent: Gemini CLI 0.61.0 would ask it")


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


@pytest.mark.parametrize("key,runtime", [("patchText", "opencode"), ("input", "opencode")])
def test_apply_patch_in_an_opencode_project_is_opencodes_in_either_words(  # type: ignore[no-untyped-def]
        project: Path, cli, key: str, runtime: str) -> None:
    """opencode has an apply_patch too: its call (`patchText`) and Codex's (`input`, read back as
    `patchText`) in an opencode project are opencode's answer (the files choose)."""
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
