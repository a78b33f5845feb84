"""The JSON reports are written in pieces, each finding's record made as it is written, and they are
the very bytes `json.dumps(..., indent=2)` makes of the whole report."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from forge_tools.report.findings import CheckReport, Finding, render_json
from forge_tools.report.gitlab import gitlab_issue, render_gitlab
from forge_tools.report.json_stream import Streamed, write_json
from forge_tools.report.sarif import render_sarif


def test_write_json_is_json_dumps_in_pieces() -> None:
    made: list[int] = []

    def make(i: int) -> dict[str, object]:
        made.append(i)
        return {"i": i, "nested": [i, {"s": "a\nb \u2028 \"q\""}], "empty": [], "none": None}

    for count in (0, 1, 3, 20_000):
        data = {"head": "x", "items": Streamed(range(count), make), "tail": [], "n": 1.5}
        out = io.StringIO()
        write_json(data, out)
        whole = {"head": "x", "items": [make(i) for i in range(count)], "tail": [], "n": 1.5}
        assert out.getvalue() == json.dumps(whole, indent=2) + "\n"
    made.clear()
    items = Streamed(range(3), make)
    assert made == [] and len(items) == 3  # nothing is made until it is written
    assert [item["i"] for item in items] == [0, 1, 2]


def test_a_streamed_list_must_know_its_length() -> None:
    with pytest.raises(TypeError, match="length"):
        Streamed(iter([1]), str)


def _report(tmp_path: Path) -> CheckReport:
    report = CheckReport(project_root=tmp_path, files=[tmp_path / "opencode.json"])
    for i in range(5):
        data = {"spellings": [f"/bin/rm {i}", f"env rm {i}"]}
        report.findings.append(Finding("FT116", "warning", f"weak deny {i}", "hint", None, data=data))
    # two findings GitLab would fingerprint alike: the second gets a counted variant
    report.findings.append(Finding("FT101", "error", "same", None, None))
    report.findings.append(Finding("FT101", "error", "same", None, None))
    return report


def test_the_three_json_reports_are_the_whole_documents_bytes(tmp_path: Path) -> None:
    report = _report(tmp_path)
    out = io.StringIO()
    render_json(report, out)
    data = json.loads(out.getvalue())
    assert out.getvalue() == json.dumps(data, indent=2) + "\n"
    assert [f["data"]["spellings"][0] for f in data["findings"] if f["code"] == "FT116"] == [
        f"/bin/rm {i}" for i in range(5)]
    out = io.StringIO()
    render_gitlab(report, out)
    issues = json.loads(out.getvalue())
    assert out.getvalue() == json.dumps(issues, indent=2) + "\n"
    prints = [issue["fingerprint"] for issue in issues]
    assert len(set(prints)) == len(prints)  # unique, the repeated one counted
    first = gitlab_issue(report.sorted_findings()[0], report)["fingerprint"]
    assert first in prints
    out = io.StringIO()
    render_sarif(report, out)
    log = json.loads(out.getvalue())
    assert out.getvalue() == json.dumps(log, indent=2) + "\n"
    assert len(log["runs"][0]["results"]) == len(report.findings)
