"""Reporters: SARIF against the published 2.1.0 schema, GitHub workflow commands, JSON, text."""

from __future__ import annotations

import io
import json
from pathlib import Path

import jsonschema
import pytest

from forge_tools.check.codes import CODES, markdown_table
from forge_tools.origin import Origin
from forge_tools.report.findings import (
    REPORTER_BY_NAME,
    CheckReport,
    ExpectationOutcome,
    Finding,
    Related,
    pick_format,
)

SCHEMA = Path(__file__).parent / "fixtures" / "sarif-schema-2.1.0.json"


def sample(root: Path) -> CheckReport:
    cfg = root / "forge.json"
    return CheckReport(
        project_root=root,
        codes=dict(CODES),
        files=[cfg],
        expect_file=root / "expect.yaml",
        findings=[
            Finding("FT103", "warning", "rule bash \"git *\" allow can never decide, 100% sure: a, b",
                    "remove it", Origin("file", str(cfg), 3, 7),
                    (Related("covered by later rule", Origin("file", str(cfg), 4, 7)),)),
            Finding("FT101", "error", "unknown permission name 'bsh'", "rename it to 'bash'",
                    Origin("file", str(cfg), 5, 5)),
            Finding("FT105", "info", "deny does not hide", None, Origin("env", name="FORGE_PERMISSION")),
            Finding("FT201", "error", "expectation failed: agent build", "fix",
                    Origin("file", str(root / "expect.yaml"), 2, 3), data={"expectation": True}),
        ],
        expectations=[
            ExpectationOutcome("agent build: call bash -> deny", False, "got ask",
                               Origin("file", str(root / "expect.yaml"), 2, 3)),
            ExpectationOutcome("agent plan: hidden: edit", True, "holds",
                               Origin("file", str(root / "expect.yaml"), 1, 3)),
        ],
    )


def render(name: str, report: CheckReport) -> str:
    out = io.StringIO()
    REPORTER_BY_NAME[name](report, out)
    return out.getvalue()


def test_sarif_validates_against_the_published_schema(tmp_path: Path) -> None:
    log = json.loads(render("sarif", sample(tmp_path)))
    schema = json.loads(SCHEMA.read_text())
    jsonschema.validate(log, schema, cls=jsonschema.Draft4Validator)
    run = log["runs"][0]
    rule_ids = [r["id"] for r in run["tool"]["driver"]["rules"]]
    assert rule_ids == sorted(CODES)
    first = next(r for r in run["results"] if r["ruleId"] == "FT103")
    location = first["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"] == "forge.json"  # relative to the project root
    assert location["region"] == {"startLine": 3, "startColumn": 7}
    assert first["level"] == "warning" and first["ruleId"] == "FT103"
    assert run["tool"]["driver"]["rules"][first["ruleIndex"]]["id"] == "FT103"
    levels = {r["ruleId"]: r["level"] for r in run["results"]}
    assert levels["FT105"] == "note"
    # a finding without a file is anchored at the first config file (code scanning needs a location)
    env_result = next(r for r in run["results"] if r["ruleId"] == "FT105")
    assert env_result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "forge.json"
    assert "FORGE_PERMISSION" in env_result["message"]["text"]
    # the schema is really enforced: a result with a bad level is rejected
    first["level"] = "fatal"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(log, schema, cls=jsonschema.Draft4Validator)


def test_sarif_with_no_findings_is_valid(tmp_path: Path) -> None:
    log = json.loads(render("sarif", CheckReport(project_root=tmp_path, codes=dict(CODES))))
    jsonschema.validate(log, json.loads(SCHEMA.read_text()), cls=jsonschema.Draft4Validator)
    assert log["runs"][0]["results"] == []


def test_github_workflow_commands(tmp_path: Path) -> None:
    lines = render("github", sample(tmp_path)).splitlines()
    head = "::warning file=forge.json,line=3,col=7,title=FT103 unreachable rule::"
    assert head in lines[0] or any(line.startswith(head) for line in lines)
    warning = next(line for line in lines if "title=FT103 " in line)
    assert "100%25 sure" in warning and "%0A" in warning  # data escaping: % and newlines
    error = next(line for line in lines if "title=FT101 " in line)
    assert error.startswith(
        "::error file=forge.json,line=5,col=5,title=FT101 unknown permission::unknown permission name")
    notice = next(line for line in lines if "title=FT105 " in line)
    assert notice.startswith("::notice title=FT105 deny does not hide::env FORGE_PERMISSION")
    assert any(line.startswith("::error file=expect.yaml,line=2,col=3,title=FT201 expectation failed::")
               for line in lines)


def test_json_report(tmp_path: Path) -> None:
    data = json.loads(render("json", sample(tmp_path)))
    assert data["summary"] == {"errors": 2, "warnings": 1, "info": 1, "expectations": 2,
                               "expectations_failed": 1, "suppressed": 0, "not_selected": 0}
    located = [f for f in data["findings"] if f["location"]["path"]]
    assert {f["location"]["path"] for f in located} == {"forge.json", "expect.yaml"}
    assert data["expectations"]["results"][0]["passed"] is False


def test_text_groups_by_file(tmp_path: Path) -> None:
    text = render("text", sample(tmp_path))
    assert text.index("forge.json") < text.index("3:7") < text.index("5:5")
    assert "FAIL" in text and "PASS" in text
    assert "2 error(s), 1 warning(s), 1 info; 1 of 2 expectation(s) failed" in text


@pytest.mark.parametrize(("env", "expected"), [({"GITHUB_ACTIONS": "true"}, "github"), ({}, "text")])
def test_auto_format(env: dict[str, str], expected: str) -> None:
    assert pick_format("auto", env) == expected
    assert pick_format("sarif", env) == "sarif"


def test_every_code_is_documented() -> None:
    table = markdown_table()
    for code, info in CODES.items():
        assert code in table and info.summary and info.help
