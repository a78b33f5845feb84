"""`check --expect` reports every problem of the expectations file in one run, each at its own
line:col, with did-you-mean for keys and values (it used to stop at the first one)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from forge_tools.errors import ConfigError

EXPECT = (
    "- agent: buidl\n"                              # 1: unknown agent
    "  hidden: [edit]\n"
    "- agent: plan\n"
    "  hidden: [edt]\n"                             # 4: unknown tool
    "- agent: build\n"
    "  call: {tool: bash, args: {cmd: ls}}\n"       # 6: args do not fit
    "  expect: allow\n"
    "- agent: build\n"
    "  call: {tool: bash, args: {command: ls}}\n"
    "  expect: dney\n"                              # 10: bad value
    "- agnet: build\n"                              # 11: misspelt key
    "  hidden: [edit]\n"
    "- agent: plna\n"                               # 13: several problems in one assertion
    "  visble: [read]\n"
    "  call: {tol: bash}\n"
    "  expect: alow\n"
    "- agent: build\n"                              # a good one is still evaluated
    "  visible: [read]\n"
)


def run(cli, project: Path, expect: str) -> tuple[int, dict[str, Any]]:
    (project / "forge.json").write_text("{}")
    (project / "expect.yaml").write_text(expect)
    code, out, err = cli("check", "--expect", "expect.yaml", "--format", "json")
    assert "Traceback" not in err, err
    return code, json.loads(out)


def test_every_problem_is_reported_at_its_position(project: Path, cli) -> None:
    code, data = run(cli, project, EXPECT)
    assert code == 1
    found = [(f["location"]["line"], f["location"]["column"], f["message"])
             for f in data["findings"] if f["code"] == "FT202"]
    assert [(line, col) for line, col, _ in found] == [
        (1, 10), (4, 12), (6, 28), (10, 11), (11, 3), (13, 10), (14, 3), (15, 10), (16, 11)]
    texts = [m for _, _, m in found]
    expected_hints = ["'build'", "'edit'", "cmd", "'deny'", "'agent'", "'plan'", "'visible'", "'tool'",
                      "'allow'"]
    for text, hint in zip(texts, expected_hints, strict=True):
        assert hint in text, (hint, text)
    # the misspelt `agnet` is not also reported as a missing `agent`
    assert not any("needs `agent`" in t for t in texts)
    results = data["expectations"]["results"]
    assert [r["passed"] for r in results] == [False] * 6 + [True]


def test_a_file_that_is_not_a_list_is_one_problem(project: Path, cli) -> None:
    code, data = run(cli, project, "agent: build\n")
    assert code == 1
    assert [f["code"] for f in data["findings"]] == ["FT202"]


def test_diff_names_the_first_problem_and_how_many_more(project: Path) -> None:
    from forge_tools.check.expect import load_expectations

    (project / "expect.yaml").write_text(EXPECT)
    with pytest.raises(ConfigError) as info:
        load_expectations(project / "expect.yaml")
    assert info.value.origin is not None and info.value.origin.line == 10
    assert "more problem" in info.value.message
