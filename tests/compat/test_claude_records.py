"""The Claude Code records (tests/compat/claude) are whole and consistent with their inputs.

claude/record.py records Claude Code's own answers from its binary; this test needs no Node
and never runs the binary. It fails when a re-record is broken: a config or call missing or
duplicated, an answer out of the vocabulary, a version mismatch, or a machine path left in.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).resolve().parent / "claude"
CASES = json.loads((HERE / "cases.json").read_text())
RESULTS_PATH = HERE / f"claude-{CASES['version']}.json"
RESULTS = json.loads(RESULTS_PATH.read_text())
DECISIONS = {"allow", "ask", "deny", "error"}
# reason types Claude Code 2.1.332 reported, per decision, plus the recorder's "not_offered"
REASONS = {"allow": {"rule", "subcommandResults", "mode"}, "ask": {"asyncAgent"},
           "deny": {"rule", "subcommandResults", "mode", "classifier", "other", "not_offered"},
           "error": {None}}


def _case_configs() -> list[dict[str, Any]]:
    return list(CASES["configs"])


def _recorded(name: str) -> dict[str, Any]:
    found = [c for c in RESULTS["configs"] if c["name"] == name]
    assert len(found) == 1, f"config {name}: recorded {len(found)} times"
    return found[0]


def test_versions_match() -> None:
    assert RESULTS["version"] == CASES["version"]
    assert RESULTS["binary"].split()[0] == CASES["version"], RESULTS["binary"]
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", RESULTS["recorded"])


def test_every_config_recorded_once_in_order() -> None:
    names = [c["name"] for c in CASES["configs"]]
    assert len(names) == len(set(names)), "cases.json: duplicate config names"
    assert [c["name"] for c in RESULTS["configs"]] == names


def test_coverage_floor() -> None:
    calls = sum(len(c["calls"]) for c in RESULTS["configs"])
    assert len(RESULTS["configs"]) >= 22
    assert calls >= 160


@pytest.mark.parametrize("config", _case_configs(), ids=lambda c: c["name"])
def test_each_call_has_exactly_one_answer(config: dict[str, Any]) -> None:
    recorded = _recorded(config["name"])
    assert len(recorded["calls"]) == len(config["calls"])
    for case, got in zip(config["calls"], recorded["calls"], strict=True):
        where = f"{config['name']}: {case['tool']} {json.dumps(case['input'])}"
        assert got["tool"] == case["tool"], where
        assert got["input"] == case["input"], where
        assert got["decision"] in DECISIONS, where
        assert isinstance(got["ran"], bool), where
        assert got["reason_type"] in REASONS[got["decision"]], where
        if got["reason_type"] == "not_offered":
            assert "No such tool available" in got["message"], where
        if got["decision"] in {"ask", "deny"}:
            assert got["ran"] is False, where
            assert got["message"], where
        if got["decision"] == "allow":
            assert got["ran"] is True, where
        if got["decision"] == "error":
            assert "stderr_tail" in got or got["message"], where
        if "observe" in case:
            assert sorted(got.get("effect", {})) == sorted(case["observe"]), where
            if "effect_before" in got and got["decision"] in {"ask", "deny"}:
                # one session: a refused call changed nothing (an earlier call may have made the path)
                assert got["effect"] == got["effect_before"], where
        else:
            assert "effect" not in got, where


@pytest.mark.parametrize("config", _case_configs(), ids=lambda c: c["name"])
def test_tool_lists_recorded(config: dict[str, Any]) -> None:
    recorded = _recorded(config["name"])
    offered = recorded["tools_offered"]
    if "startup_error" in recorded:  # the binary refused to start a session: nothing was offered
        assert offered == [] and recorded["api_tools"] is None, config["name"]
        assert recorded["startup_error"]["stderr_tail"].strip(), config["name"]
        assert {c["decision"] for c in recorded["calls"]} <= {"error"}, config["name"]
        return
    assert offered and all(isinstance(t, str) for t in offered), config["name"]
    assert len(offered) == len(set(offered))
    api = recorded["api_tools"]
    assert api and all(isinstance(t, str) for t in api), config["name"]


def test_no_machine_path_leaked() -> None:
    text = RESULTS_PATH.read_text() + (HERE / "cases.json").read_text()
    assert "/tmp/" not in text
    assert "claude-record-" not in text
    for real in {os.path.expanduser("~"), "/root/", "/work/"}:
        if real not in {"", "/"}:
            assert real not in text, real


def test_the_previous_release_answered_the_same() -> None:
    """claude-2.1.328.json is kept beside the current records: 2.1.328 gave every call of its configs
    the decision and reason type 2.1.332 gives, so the one model forge-tools has answers for both
    (README.md here). A re-record that makes them differ must keep both and say where."""
    old_path = HERE / "claude-2.1.328.json"
    old = {c["name"]: c for c in json.loads(old_path.read_text())["configs"]}
    assert json.loads(old_path.read_text())["binary"].startswith("2.1.328")
    current = {c["name"]: c for c in RESULTS["configs"]}
    assert len(old) >= 100 and set(old) <= set(current)
    for name, config in old.items():
        then = [(c["decision"], c["reason_type"]) for c in config["calls"]]
        now = [(c["decision"], c["reason_type"]) for c in current[name]["calls"]]
        assert then == now, name
