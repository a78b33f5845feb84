"""forge-tools' Claude Code runtime against the generated corpus: every answer the 2.1.332 binary
gave to the calls of tests/compat/claude/generate.py's grammar.

The cases are generated again here (the grammar is seeded: the same cases every time) and each
config's digest must be the recorded one, so a changed grammar is never replayed against old
answers. `generated-<version>.json` holds one `decision:reason_type` per call, recorded from the
binary offline, one session per config (tests/compat/claude/README.md, "Generated corpus"). Each
config is laid out as the recorder laid it out and every call is put to `runtimes.claude`; the
test reports every disagreement of a config at once. No Node, no network.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).parent / "claude"
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(Path(__file__).parent))
import generate  # noqa: E402  (tests/compat/claude is no package)
from test_claude_runtime import MCP_CONNECTED_TOOLS, Layout, check_call  # noqa: E402

from forge_tools.runtimes.claude.tools import offers  # noqa: E402

VERSION = generate.version()
RECORDS_PATH = HERE / f"generated-{VERSION}.json"
RECORDS = json.loads(RECORDS_PATH.read_text()) if RECORDS_PATH.is_file() else {"configs": []}
CASES = {c["name"]: c for c in generate.cases(VERSION)["configs"]}
#: what the error kinds of the compact records stood for in the binary's messages
ERROR_MESSAGES = {"invalid": "InputValidationError", "unread": "File has not been read yet",
                  "nostart": "no tool_result for this call", "other": ""}

#: (config, call index) -> the exact gap: left out of the config's test and asserted to still
#: differ by an xfail(strict=True), so a fix shows
GAPS: dict[tuple[str, int], str] = {}

pytestmark = pytest.mark.skipif(not RECORDS["configs"], reason=f"no {RECORDS_PATH.name}")


def test_corpus_is_whole() -> None:
    """At least 2,000 recorded calls, every generated config recorded once, in order, from the
    version cases.json names."""
    assert RECORDS["version"] == VERSION and RECORDS["binary"].split()[0] == VERSION
    assert RECORDS["seeds"] == [list(x) for x in generate.SEEDS]
    assert [c["name"] for c in RECORDS["configs"]] == list(CASES)
    assert sum(len(c["answers"]) for c in RECORDS["configs"]) >= 2000


def _record(code: str) -> dict[str, Any]:
    decision, _, reason = code.partition(":")
    if decision == "error":
        return {"decision": "error", "reason_type": None, "message": ERROR_MESSAGES[reason]}
    return {"decision": decision, "reason_type": reason if reason != "None" else None}


@pytest.mark.parametrize("entry", RECORDS["configs"], ids=lambda e: e["name"])
def test_generated_config_matches_binary(entry: dict[str, Any], tmp_path: Path) -> None:
    case = CASES[entry["name"]]
    assert generate.digest(case) == entry["digest"], "the grammar changed: re-record (README)"
    assert len(entry["answers"]) == len(case["calls"])
    wrong = []
    listed = None  # the MCP server's tools, listed once per config (its layout is the same each time)
    for i, (call, code) in enumerate(zip(case["calls"], entry["answers"], strict=True)):
        if (entry["name"], i) in GAPS:
            continue
        layout = Layout(tmp_path / str(i), case)
        if call["tool"].startswith("mcp__") and listed is None:
            listed = layout.server_tools()
        try:
            check_call(layout, {"tool": call["tool"], "input": call["input"], **_record(code)}, listed)
        except AssertionError as exc:
            wrong.append(f"[{i}] {call['tool']} {json.dumps(call['input'])}: {str(exc).splitlines()[0]}")
    assert not wrong, f"{len(wrong)} of {len(case['calls'])} calls differ:\n" + "\n".join(wrong)


@pytest.mark.parametrize("entry", RECORDS["configs"], ids=lambda e: e["name"])
def test_generated_tools_match_binary(entry: dict[str, Any], tmp_path: Path) -> None:
    want = entry["tools"] if entry["tools"] is not None else RECORDS["default_tools"]
    want = [t for t in want if not t.startswith("mcp__") and t not in MCP_CONNECTED_TOOLS]
    layout = Layout(tmp_path, CASES[entry["name"]])
    assert [o.name for o in offers(layout.settings()) if o.offered] == want
    assert layout.settings().mode == entry["mode"] or entry["mode"] is None


@pytest.mark.parametrize(("name", "index"), [
    pytest.param(name, index, id=f"{name}[{index}]", marks=pytest.mark.xfail(strict=True, reason=why))
    for (name, index), why in GAPS.items()])
def test_generated_gap(name: str, index: int, tmp_path: Path) -> None:
    entry = next(e for e in RECORDS["configs"] if e["name"] == name)
    call = CASES[name]["calls"][index]
    check_call(Layout(tmp_path, CASES[name]),
               {"tool": call["tool"], "input": call["input"], **_record(entry["answers"][index])})
