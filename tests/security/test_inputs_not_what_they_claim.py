"""Inputs that are not what they claim (issue 22): a NUL in a path or a working directory and a lone
surrogate in a command name the field and the problem (it was `forge-tools: read: error in 0.00s`),
through `run`, `explain --call` and `check --expect` alike; non-finite and out-of-range numbers are
refused with the accepted range, one line, exit 2."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

CASES = [
    ("read", {"filePath": "a\u0000b"}, "filePath", "NUL"),
    ("list", {"path": "a\u0000b"}, "path", "NUL"),
    ("glob", {"pattern": "*", "path": "a\u0000b"}, "path", "NUL"),
    ("grep", {"pattern": "x", "path": "a\u0000b"}, "path", "NUL"),
    ("bash", {"command": "ls", "workdir": "a\u0000b"}, "workdir", "NUL"),
    ("bash", {"command": "ls \u0000"}, "command", "NUL"),
    ("bash", {"command": "\ud800"}, "command", "lone surrogate"),
    ("write", {"filePath": "x.txt", "content": "a\udfffb"}, "content", "lone surrogate"),
]


@pytest.fixture(autouse=True)
def allow_all(project: Path) -> None:
    (project / "forge.json").write_text(json.dumps({"permission": {"*": "allow"}}))


@pytest.mark.parametrize(("tool", "args", "field", "problem"), CASES)
def test_run_names_the_field(cli: Any, project: Path, tool: str, args: dict[str, Any], field: str,
                             problem: str) -> None:
    code, _, err = cli("run", tool, "--args", json.dumps(args))
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert f"{field}: contains a" in lines[0] and problem in lines[0], err
    assert not (project / "x.txt").exists()


@pytest.mark.parametrize(("tool", "args", "field", "problem"), CASES)
def test_explain_and_check_name_the_field(cli: Any, project: Path, tool: str, args: dict[str, Any],
                                          field: str, problem: str) -> None:
    code, _, err = cli("explain", tool, "--call", json.dumps(args))
    assert code == 2, err  # --call arguments that do not fit are a usage error
    lines = err.strip().splitlines()
    assert len(lines) == 1 and f"({field}: contains a" in lines[0] and problem in lines[0], err
    expect = project / "expect.json"
    expect.write_text(json.dumps([{"call": {"tool": tool, "args": args}, "expect": "deny",
                                   "runtime": "forge"}]))
    code, out, err = cli("check", "--expect", str(expect), "--format", "json")
    report = json.loads(out)
    if problem == "lone surrogate":  # the expectations file itself is not text: located there
        assert any(f["code"] == "FT202" and field in f["location"]["key_path"] for f in report["findings"])
        return
    (result,) = report["expectations"]["results"]
    assert not result["passed"] and f"{field}: contains a" in result["explanation"], result


@pytest.mark.parametrize("value", ["nan", "1e999", "-inf", "-1", "1e300"])
def test_outputs_clean_older_than_range(cli: Any, value: str) -> None:
    code, _, err = cli("outputs", "clean", "--older-than", value)
    assert code == 2
    assert err.strip().splitlines() == [
        f"forge-tools: error: --older-than: must be a number of days at least 0 and at most 36500, got "
        f"{float(value):g}"]


@pytest.mark.parametrize("value", ["nan", "1e999", "0", "-5", "1e300"])
def test_run_timeout_range(cli: Any, project: Path, value: str) -> None:
    code, _, err = cli("run", "bash", "--args", json.dumps({"command": f"touch {project}/canary"}),
                         "--timeout", value)
    assert code == 2
    assert err.strip().splitlines() == [
        f"forge-tools: error: --timeout: must be a number of seconds more than 0 and at most 31536000, "
        f"got {float(value):g}"]
    assert not (project / "canary").exists()


def test_in_range_numbers_still_work(cli: Any, project: Path) -> None:
    assert cli("outputs", "clean", "--older-than", "0.5", "--dry-run")[0] == 0
    assert cli("run", "bash", "--args", '{"command": "true"}', "--timeout", "2.5")[0] == 0
