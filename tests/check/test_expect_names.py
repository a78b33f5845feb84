"""`--expect`: unknown agents, tools and unfit call arguments are errors at the exact name; `agent: "*"`
and bash chains (strictest decision) explain the actual verdict of every agent."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def run(cli, project: Path, config: str, expect: str) -> tuple[int, dict[str, Any]]:
    (project / "forge.json").write_text(config)
    (project / "expect.yaml").write_text(expect)
    code, out, err = cli("check", "--expect", "expect.yaml", "--format", "json")
    assert "Traceback" not in err, err
    return code, json.loads(out)


def ft202(data: dict[str, Any]) -> list[tuple[int, int, str]]:
    return [(f["location"]["line"], f["location"]["column"], f["message"])
            for f in data["findings"] if f["code"] == "FT202"]


def test_unknown_agent_and_tools_point_at_the_name(project: Path, cli) -> None:
    code, data = run(cli, project, "{}", (
        "- agent: buidl\n"
        "  hidden: [edit]\n"
        "- agent: plan\n"
        "  hidden: [write, edt]\n"
        "- agent: build\n"
        "  call: {tool: bsh, args: {command: ls}}\n"
        "  expect: allow\n"))
    assert code == 1
    found = ft202(data)
    assert [(line, col) for line, col, _ in found] == [(1, 10), (4, 19), (6, 16)]
    assert "unknown agent 'buidl'" in found[0][2] and "'build'" in found[0][2]
    assert "unknown tool 'edt'" in found[1][2] and "'edit'" in found[1][2]
    assert "unknown tool 'bsh'" in found[2][2] and "'bash'" in found[2][2]
    results = data["expectations"]["results"]
    assert [r["passed"] for r in results] == [False, False, False]
    assert all(r["explanation"].startswith("not checked: ") for r in results)


def test_call_arguments_that_do_not_fit(project: Path, cli) -> None:
    _code, data = run(cli, project, "{}", (
        "- agent: build\n"
        "  call:\n"
        "    tool: bash\n"
        "    args: {cmd: ls}\n"
        "  expect: allow\n"))
    [(line, _col, message)] = ft202(data)
    assert line == 4 and "command" in message and "cmd" in message


def test_unknown_tool_mentions_plugins_when_they_were_not_loaded(project: Path, cli) -> None:
    _code, data = run(cli, project, '{"plugin": ["./p.py"]}', "- agent: build\n  visible: [deploy]\n")
    [(_line, _col, message)] = ft202(data)
    assert "--load-code" in message


def test_every_agent_names_each_agents_verdict(project: Path, cli) -> None:
    code, data = run(cli, project,
                     '{"permission": {"bash": {"*": "ask", "git status": "allow"}},\n'
                     ' "agent": {"plan": {"permission": {"bash": {"git *": "deny"}}}}}',
                     '- agent: "*"\n  call: {tool: bash, args: {command: git status}}\n  expect: allow\n')
    assert code == 1
    [result] = data["expectations"]["results"]
    text = result["explanation"]
    # plan fails (its own deny), the others pass and are not listed as failing
    assert text.startswith("plan: bash call: expected allow, got deny")
    assert "forge.json:2:" in text and "build" not in text


def test_passing_every_agent_groups_identical_verdicts(project: Path, cli) -> None:
    code, data = run(cli, project, '{"permission": {"read": "allow"}}',
                     '- agent: "*"\n  visible: [read]\n')
    assert code == 0
    [result] = data["expectations"]["results"]
    assert result["passed"]
    assert result["explanation"].startswith("build, plan, general, explore: read is visible")


def test_bash_chain_takes_the_strictest_decision(project: Path, cli) -> None:
    code, data = run(cli, project,
                     '{"permission": {"bash": {"*": "allow", "git push *": "ask", "rm *": "deny"}}}',
                     "- agent: build\n"
                     "  call: {tool: bash, args: {command: 'git push origin && rm -rf build'}}\n"
                     "  expect: deny\n"
                     "- agent: build\n"
                     "  call: {tool: bash, args: {command: 'ls; git push origin'}}\n"
                     "  expect: ask\n")
    assert code == 0, data["expectations"]
    first, second = data["expectations"]["results"]
    assert 'bash "rm -rf build": rule bash "rm *" deny (forge.json:1:' in first["explanation"]
    assert 'bash "git push origin": rule bash "git push *" ask' in second["explanation"]



def test_an_opaque_bash_command_is_decided_as_run_would_ask_it(project: Path, cli) -> None:
    code, data = run(cli, project, '{"permission": {"bash": {"*": "allow", "rm *": "deny"}}}', (
        "- agent: build\n"
        "  call: {tool: bash, args: {command: 'X=rm; $X -rf /'}}\n"
        "  expect: allow\n"))
    assert code == 1
    [result] = data["expectations"]["results"]
    assert not result["passed"]
    assert "known only when it runs" in result["explanation"] and "rm *" in result["explanation"]


def test_a_misspelt_argument_name_gets_a_did_you_mean(project: Path, cli) -> None:
    _code, data = run(cli, project, "{}", (
        "- agent: build\n"
        "  call: {tool: bash, args: {comand: ls}}\n"
        "  expect: allow\n"
        "- agent: build\n"
        "  call: {tool: read, args: {filePath: a.txt, ofset: 2, zzz: 1}}\n"
        "  expect: allow\n"))
    [(_l1, _c1, bash), (_l2, _c2, read)] = ft202(data)
    assert "comand: Extra inputs are not permitted (did you mean 'command'?)" in bash
    assert read.endswith("(ofset: Extra inputs are not permitted (did you mean 'offset'?); "
                         "zzz: Extra inputs are not permitted)")  # no guess without a close name
    results = data["expectations"]["results"]
    assert "did you mean 'command'" in results[0]["explanation"]
