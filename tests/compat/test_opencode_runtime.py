"""The opencode runtime gives opencode 1.18.33's own answer for every recorded call (issue 17).

`runtime/opencode-1.18.33.json` was recorded from the real binary by `runtime/generate.py` (scratch
projects, `unshare -n`, canary files observed; see runtime/README.md). Each case's project is rebuilt
here with the same files, and every call is decided by `forge_tools.call_answers`: its runtime answer
must be opencode's, and where forge-tools' gate answers differently the difference line must say so.
No Node, nothing executed.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

import forge_tools

RECORDS = Path(__file__).parent / "runtime" / "opencode-1.18.33.json"
DATA = json.loads(RECORDS.read_text()) if RECORDS.is_file() else {"cases": []}
CASES = {case["name"]: case for case in DATA["cases"]}


def build(project: Path, config: dict[str, Any]) -> Path:
    """The recorder's project (and the `outside/` folder beside it); returns the outside folder."""
    (project / "opencode.json").write_text(json.dumps(config))
    (project / "README.md").write_text("hello\n")
    (project / ".env").write_text("SECRET=1\n")
    (project / "sub").mkdir()
    (project / "sub" / ".env").write_text("SECRET=2\n")
    (project / "secret").mkdir()
    outside = project.parent / "outside"
    outside.mkdir()
    (outside / "seen.txt").write_text("hello\n")
    return outside


def expand(value: Any, project: Path, outside: Path) -> Any:
    text = json.dumps(value).replace("$PROJECT", str(project)).replace("$OUTSIDE", str(outside))
    return json.loads(text)


def test_the_records_cover_the_bypass_forms_and_all_three_answers() -> None:
    assert DATA.get("opencode_version") == "1.18.33"
    calls = [c for case in DATA["cases"] for c in case["calls"]]
    commands = {c["params"].get("command") for c in calls}
    for form in ("/bin/rm canary1.txt", "command rm canary3.txt", "env rm canary4.txt",
                 'bash -c "rm canary5.txt"', "head -1 /etc/hostname", "ls $OUTSIDE",
                 "echo hi > $OUTSIDE/f"):
        assert form in commands
    assert {c["opencode"] for c in calls} == {"allow", "ask", "deny"}
    assert {c["tool"] for c in calls} >= {"bash", "read", "write", "glob", "grep"}
    for call in calls:  # a refused call left its canary
        if call["opencode"] == "deny":
            assert call["outcome"] == "denied"
            if "canaries_left" in call:
                assert call["canaries_left"], call


def test_recorded_bypasses_really_deleted_their_canary() -> None:
    """What the issue saw: opencode ran `/bin/rm`, `command rm`, `env rm` and `bash -c "rm ..."` under
    `"rm *": "deny"`, and the files were gone."""
    calls = {c["params"].get("command"): c for c in CASES["deny-rules"]["calls"]}
    for form in ("/bin/rm canary1.txt", "command rm canary3.txt", "env rm canary4.txt",
                 'bash -c "rm canary5.txt"'):
        assert calls[form]["opencode"] == "allow" and calls[form]["canaries_left"] == []
    assert calls["rm canary0.txt"]["canaries_left"] == ["canary0.txt"]


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_opencode_runtime_gives_opencode_s_answer_for_every_recorded_call(
        name: str, project: Path) -> None:
    case = CASES[name]
    outside = build(project, case["config"])
    loaded = forge_tools.load_project(project)
    wrong, unexplained, differing = [], [], 0
    for call in case["calls"]:
        args = expand(call["params"], project, outside)
        both = forge_tools.call_answers(loaded, call["tool"], args)
        assert both.chosen.runtime.name == "opencode"
        if both.runtime.action != call["opencode"]:
            wrong.append((call["tool"], call["params"], call["opencode"], both.runtime.action,
                          both.runtime.reason))
        if both.gate.action != both.runtime.action:
            differing += 1
            line = both.difference or ""
            if not (line.startswith("opencode 1.18.33 ") and "forge-tools run would" in line):
                unexplained.append((call["params"], line))
        else:
            assert both.difference is None
    assert not wrong, wrong
    assert not unexplained, unexplained
    if name != "allow-list":
        assert differing, "the gate is stricter somewhere in every case but the allow-list"


def test_explain_shows_opencode_s_answer_and_the_gate_s_beside_it(project: Path, cli) -> None:
    case = CASES["deny-rules"]
    build(project, case["config"])
    code, out, err = cli("explain", "bash", "--call", json.dumps({"command": "/bin/rm v2.txt"}))
    assert code == 0, err
    section = out.split("5. Call decision:")[1]
    assert section.startswith(" ALLOW") and "opencode 1.18.33's answer" in section
    assert ('opencode 1.18.33 runs this: its rule "rm *" does not match "/bin/rm v2.txt"; '
            "forge-tools run would deny it") in section
    code, out, _ = cli("explain", "bash", "--format", "json", "--call",
                       json.dumps({"command": "/bin/rm v2.txt"}))
    data = json.loads(out)
    assert data["runtime"]["name"] == "opencode" and data["runtime"]["version"] == "1.18.33"
    assert data["call"]["runtime"]["action"] == "allow" and data["call"]["gate"]["action"] == "deny"
    assert data["call"]["action"] == "allow"  # issue 28: the flat fields are the answering agent's


CORPUS_FILE = Path(__file__).parent / "runtime" / "corpus-1.18.33.json"
CORPUS = json.loads(CORPUS_FILE.read_text()) if CORPUS_FILE.is_file() else {"cases": []}


def build_corpus_case(project: Path, case: dict[str, Any]) -> Path:
    """The corpus recorder's project (`generate.record_corpus_case`): the runtime project with its
    config's `$PROJECT`/`$OUTSIDE` written out, `secret/x.txt` and each call's canary files."""
    outside = project.parent / "outside"
    build(project, expand(case["config"], project, outside))
    (project / "secret" / "x.txt").write_text("hidden\n")
    for _tool, params, *_ in case["calls"]:
        for name in sorted(set(re.findall(r"canary\d+\.txt", json.dumps(params)))):
            folder = project / "secret" if f"secret/{name}" in json.dumps(params) else project
            (folder / name).write_text("canary\n")
    return outside


def test_the_corpus_is_opencode_s_and_large() -> None:
    """The generated corpus (`runtime/generate.py --corpus`): every call answered by opencode 1.18.33
    itself, deny never leaving its canary deleted."""
    calls = [call for case in CORPUS["cases"] for call in case["calls"]]
    assert CORPUS.get("opencode_version") == "1.18.33" and len(calls) >= 2000  # issue 30
    assert {call[2] for call in calls} == {"allow", "ask", "deny"}
    for tool, params, action, outcome, *effects in calls:
        assert outcome in ("ran", "denied", "not offered"), (tool, params, outcome)
        if action == "deny" and effects and "canary" in json.dumps(params) and tool == "bash":
            names = set(re.findall(r"canary\d+\.txt", json.dumps(params)))
            assert names <= set(effects[0]), (params, effects)


@pytest.mark.parametrize("name", [case["name"] for case in CORPUS["cases"]])
def test_the_opencode_runtime_answers_the_corpus_as_opencode_did(name: str, project: Path) -> None:
    case = next(case for case in CORPUS["cases"] if case["name"] == name)
    outside = build_corpus_case(project, case)
    loaded = forge_tools.load_project(project)
    wrong = []
    for tool, params, action, *_ in case["calls"]:
        both = forge_tools.call_answers(loaded, tool, expand(params, project, outside))
        if both.runtime.action != action:
            wrong.append((tool, params, action, both.runtime.action, both.runtime.reason))
    assert not wrong, (case["config"], wrong)
