"""opencode's own environment variables (issue 10), beside the FORGE_* ones, through the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest


def write(path: Path, data: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


def tools(cli, *args: str) -> dict[str, dict]:
    code, out, err = cli("layers", "--format", "json", *args)
    assert code == 0, err
    return {t["id"]: t for t in json.loads(out)["tools"]}


@pytest.fixture
def plain(project: Path) -> Path:
    write(project / "opencode.json", {"model": "anthropic/claude-sonnet-4"})
    return project


def test_opencode_experimental_turns_on_exa_lsp_and_plan(cli, plain: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    before = tools(cli)
    assert "lsp" not in before and "plan_exit" not in before and not before["websearch"]["visible"]
    monkeypatch.setenv("OPENCODE_EXPERIMENTAL", "1")
    after = tools(cli)
    assert after["websearch"]["visible"] and "lsp" in after and "plan_exit" in after
    # a switch of its own, when set, decides instead of OPENCODE_EXPERIMENTAL (as in opencode)
    monkeypatch.setenv("OPENCODE_EXPERIMENTAL_LSP_TOOL", "false")
    assert "lsp" not in tools(cli) and "plan_exit" in tools(cli)


def test_client_and_question_switches(cli, plain: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENCODE_CLIENT", "acp")
    assert not tools(cli)["question"]["visible"]
    assert tools(cli, "--client", "app")["question"]["visible"]  # the option wins over the variable
    monkeypatch.setenv("OPENCODE_ENABLE_QUESTION_TOOL", "yes")
    assert tools(cli)["question"]["visible"]


@pytest.mark.parametrize(("switch", "tool", "args"), [
    (("OPENCODE_ENABLE_EXA", "1"), "websearch", {"query": "forge"}),
    (("OPENCODE_CLIENT", "acp"), "question", {"questions": [{"question": "go?", "header": "go",
                                                             "options": [{"label": "yes",
                                                                          "description": "go"}]}]}),
])
def test_every_command_reads_the_same_switches(cli, plain: Path, monkeypatch: pytest.MonkeyPatch,
                                               switch: tuple[str, str], tool: str,
                                               args: dict[str, object]) -> None:
    """explain --call, check --expect, check's findings, layers and the library all take the turn's
    client and flags from the environment: the same call gets the same answer from each."""
    import forge_tools

    def answers() -> tuple[bool, str, str, bool]:
        visible = tools(cli)[tool]["visible"]
        code, out, err = cli("explain", tool, "--call", json.dumps(args), "--format", "json")
        assert code == 0, err
        action = json.loads(out)["call"]["action"]
        library = forge_tools.decide_call(plain, tool, args).action
        assert forge_tools.tool_visibility(plain, tool).visible == visible
        expect = plain / "expect.json"
        expect.write_text(json.dumps([{"agent": "build", "call": {"tool": tool, "args": args},
                                       "expect": action},
                                      {"agent": "build", "visible" if visible else "hidden": [tool]}]))
        code, out, err = cli("check", "--expect", str(expect), "--format", "json")
        results = json.loads(out)["expectations"]["results"]
        return visible, action, library, all(r["passed"] for r in results) and len(results) == 2

    before = answers()
    monkeypatch.setenv(*switch)
    after = answers()
    assert before[3] and after[3], "check --expect disagreed with explain --call"
    assert before[1] == before[2] and after[1] == after[2]  # the library's decide_call too
    assert before[0] != after[0]  # the switch changes the tool's visibility in every command
    assert "deny" in (before[1], after[1])  # a hidden tool's call is a deny


def test_a_value_opencode_refuses_is_a_usage_error(cli, plain: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENCODE_ENABLE_EXA", "TRUE")
    code, out, err = cli("layers")
    assert code == 2 and out == ""
    assert "env OPENCODE_ENABLE_EXA" in err and "'TRUE'" in err and len(err.strip().splitlines()) == 1


def test_config_variables_load_in_opencode_order_forge_after(cli, project: Path, isolated_env,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    home = isolated_env["home"]
    write(project / "opencode.json", {"permission": {"bash": "allow"}})
    monkeypatch.setenv("OPENCODE_CONFIG", str(write(home / "oc.json", {"permission": {"grep": "ask"}})))
    monkeypatch.setenv("OPENCODE_CONFIG_CONTENT", '{"permission": {"bash": "ask"}}')
    monkeypatch.setenv("OPENCODE_PERMISSION", '{"webfetch": "deny"}')
    monkeypatch.setenv("FORGE_PERMISSION", '{"webfetch": "allow"}')
    code, out, err = cli("rules", "--format", "json")
    assert code == 0, err
    last = {}
    for rule in json.loads(out)["rules"]:
        last[rule["permission"]] = (rule["action"], rule["origin"])
    assert last["grep"][0] == "ask" and last["bash"][0] == "ask"
    assert last["webfetch"][0] == "allow"  # FORGE_PERMISSION comes after OPENCODE_PERMISSION
    monkeypatch.setenv("OPENCODE_DISABLE_PROJECT_CONFIG", "1")
    monkeypatch.delenv("OPENCODE_CONFIG_CONTENT")
    code, out, err = cli("config", "--format", "json")
    assert code == 0, err
    assert "bash" not in json.loads(out).get("permission", {}), out


def test_a_bad_opencode_permission_is_located_in_check_and_stops_other_commands(
        cli, plain: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENCODE_PERMISSION", '{"bash": "allwo"}')
    code, out, err = cli("rules")
    assert code == 3 and out == ""
    assert err.startswith("forge-tools: error: env OPENCODE_PERMISSION: permission.bash: unknown action")
    code, out, _ = cli("check", "--format", "json")
    assert code == 1 and "FT003" in out and "OPENCODE_PERMISSION" in out
