"""`check --format junit` and `--format gitlab`: each validated against its consumer's published schema
(tests/check/fixtures/SOURCE.md says where each comes from): JUnit XML against the XSD the Jenkins
xUnit plugin checks reports with, GitLab Code Quality against GitLab's own JSON schema for an entry
plus the rules its documentation adds (the severity set, check_name, a relative path, a line)."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any
from xml.etree import ElementTree as ET

import jsonschema
import pytest
import xmlschema

from forge_tools.check.codes import CODES
from forge_tools.origin import Origin
from forge_tools.report.findings import REPORTER_BY_NAME, CheckReport, ExpectationOutcome, Finding, Related

FIXTURES = Path(__file__).parent / "fixtures"
JUNIT_XSD = xmlschema.XMLSchema10(FIXTURES / "junit-10.xsd")
GITLAB_ENTRY = json.loads((FIXTURES / "gitlab-codeclimate.json").read_text())
GITLAB_SEVERITIES = {"info", "minor", "major", "critical", "blocker"}  # GitLab's documented set


def sample(root: Path, message: str = "unknown permission name 'bsh'") -> CheckReport:
    cfg, other, expect = root / "forge.json", root / "sub" / "opencode.json", root / "expect.yaml"
    return CheckReport(
        project_root=root, codes=dict(CODES), files=[cfg, other], expect_file=expect,
        findings=[
            Finding("FT101", "error", message, "rename it to 'bash'",
                    Origin("file", str(cfg), 5, 5, ("permission", "bsh"))),
            Finding("FT103", "warning", "rule bash \"git *\" allow can never decide", "remove it",
                    Origin("file", str(cfg), 3, 7, ("permission", "bash", "git *")),
                    (Related("covered by the later rule", Origin("file", str(cfg), 4, 7)),)),
            Finding("FT105", "info", "deny does not hide", None, Origin("env", name="FORGE_PERMISSION")),
            Finding("FT201", "error", "expectation failed: agent build", "fix",
                    Origin("file", str(expect), 2, 3), data={"expectation": True}),
        ],
        expectations=[
            ExpectationOutcome("agent build: call bash -> deny", False, "got ask",
                               Origin("file", str(expect), 2, 3)),
            ExpectationOutcome("agent plan: hidden: edit", True, "holds", Origin("file", str(expect), 1, 3)),
        ],
    )


def render(name: str, report: CheckReport) -> str:
    out = io.StringIO()
    REPORTER_BY_NAME[name](report, out)
    return out.getvalue()


def junit(report: CheckReport) -> ET.Element:
    text = render("junit", report)
    assert text.startswith('<?xml version="1.0" encoding="UTF-8"?>\n')
    JUNIT_XSD.validate(text)  # raises XMLSchemaValidationError with the offending element
    return ET.fromstring(text)


def cases(document: ET.Element) -> dict[str, list[ET.Element]]:
    return {s.get("name", ""): s.findall("testcase") for s in document.iter("testsuite")}


def test_junit_is_valid_and_has_a_suite_per_file_and_a_case_per_finding(tmp_path: Path) -> None:
    document = junit(sample(tmp_path))
    suites = cases(document)
    assert list(suites) == ["forge.json", "sub/opencode.json", "env FORGE_PERMISSION",
                            "expectations (expect.yaml)"]
    [warning, error] = suites["forge.json"]  # in file order
    failure = error.find("failure")
    assert failure is not None and failure.get("type") == "FT101"
    assert failure.get("message") == "forge.json:5:5: unknown permission name 'bsh'"
    assert "fix: rename it to 'bash'" in (failure.text or "")
    assert error.get("name") == "FT101 unknown permission: permission.bsh"  # no line: stable across moves
    assert error.get("classname") == "forge_json"
    # a warning does not fail the check: a passing case that says what was found
    assert warning.find("failure") is None
    assert "covered by the later rule: forge.json:4:7" in (warning.findtext("system-out") or "")
    # a file with nothing failing is one passing case, so a clean file counts as a passed test
    [clean] = suites["sub/opencode.json"]
    assert clean.find("failure") is None and clean.get("classname") == "sub.opencode_json"
    expectations = suites["expectations (expect.yaml)"]
    assert [c.find("failure") is not None for c in expectations] == [True, False]
    # the failed expectation is its expectation case, not a second failure in the file suites
    assert document.get("tests") == "7" and document.get("failures") == "2"
    forge = next(s for s in document.iter("testsuite") if s.get("name") == "forge.json")
    assert (forge.get("tests"), forge.get("failures"), forge.get("file")) == ("2", "1", "forge.json")


def test_junit_under_strict_fails_the_warnings_too(tmp_path: Path) -> None:
    report = sample(tmp_path)
    report.strict = True
    [warning, error] = cases(junit(report))["forge.json"]
    assert error.find("failure") is not None and warning.find("failure") is not None


def test_junit_escapes_markup_and_what_xml_cannot_hold(tmp_path: Path) -> None:
    nasty = "a\x00b\x1b]52;c;eA==\x07 & <tag> \"q\" ]]> \ufffe \ud800 \r\nnext"
    document = junit(sample(tmp_path, message=nasty))
    failure = document.find(".//failure")
    assert failure is not None
    text = failure.get("message") or ""
    assert "a\\u0000b\\u001b]52;c;eA==\\u0007 & <tag> \"q\" ]]> \\ufffe \\ud800 \nnext" in text
    assert "\x1b" not in text and "\x00" not in text


def test_junit_with_nothing_to_check_is_one_passing_case(tmp_path: Path) -> None:
    document = junit(CheckReport(project_root=tmp_path, codes=dict(CODES)))
    assert (document.get("tests"), document.get("failures")) == ("1", "0")


def test_the_junit_schema_is_really_enforced(tmp_path: Path) -> None:
    text = render("junit", sample(tmp_path)).replace(' errors="0" skipped="0"', ' skipped="0"', 1)
    with pytest.raises(xmlschema.XMLSchemaValidationError):
        JUNIT_XSD.validate(text)


def gitlab(report: CheckReport) -> list[dict[str, Any]]:
    issues = json.loads(render("gitlab", report))
    assert isinstance(issues, list)
    for issue in issues:
        jsonschema.validate(issue, GITLAB_ENTRY, cls=jsonschema.Draft7Validator)
        assert issue["severity"] in GITLAB_SEVERITIES
        assert issue["check_name"] in CODES and issue["description"].startswith(issue["check_name"])
        assert not Path(issue["location"]["path"]).is_absolute()
        begin = issue["location"]["lines"]["begin"]
        assert isinstance(begin, int) and begin >= 1
    assert len({i["fingerprint"] for i in issues}) == len(issues)  # GitLab merges equal fingerprints
    return issues


def test_gitlab_code_quality_entries(tmp_path: Path) -> None:
    issues = {i["check_name"]: i for i in gitlab(sample(tmp_path))}
    assert issues["FT101"]["severity"] == "major" and issues["FT103"]["severity"] == "minor"
    assert issues["FT105"]["severity"] == "info"
    assert issues["FT101"]["location"] == {"path": "forge.json", "lines": {"begin": 5}}
    # no file of its own: anchored at the first config file, the description says where it came from
    assert issues["FT105"]["location"]["path"] == "forge.json"
    assert "env FORGE_PERMISSION" in issues["FT105"]["description"]
    assert issues["FT201"]["location"]["path"] == "expect.yaml"


def test_gitlab_under_strict_ranks_warnings_with_errors(tmp_path: Path) -> None:
    report = sample(tmp_path)
    report.strict = True
    assert {i["check_name"]: i["severity"] for i in gitlab(report)}["FT103"] == "major"


def test_gitlab_findings_that_would_share_a_fingerprint_are_kept_apart(tmp_path: Path) -> None:
    cfg = tmp_path / "forge.json"
    twice = [Finding("FT101", "error", "same", None, Origin("file", str(cfg), n, 1, ("permission", "x")))
             for n in (1, 2)]
    issues = gitlab(CheckReport(project_root=tmp_path, codes=dict(CODES), files=[cfg], findings=twice))
    assert len(issues) == 2


def test_the_gitlab_schema_is_really_enforced() -> None:
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"description": "x", "severity": "major", "location": {}}, GITLAB_ENTRY)


# --- end to end, through the CLI ----------------------------------------------------------------


def test_check_writes_junit_and_gitlab_for_a_project_in_a_subdirectory(project: Path, cli) -> None:
    sub = project / "services" / "api"
    sub.mkdir(parents=True)
    (sub / "forge.json").write_text('{"permission": {"bsh": "deny"}}')
    code, out, err = cli("check", "services/api", "--format", "junit")
    assert code == 1, err
    JUNIT_XSD.validate(out)
    suite = ET.fromstring(out).find("testsuite")
    assert suite is not None and suite.get("file") == "services/api/forge.json"  # from the repository root
    code, out, err = cli("check", "services/api", "--format", "gitlab")
    assert code == 1, err
    [issue] = [i for i in json.loads(out) if i["check_name"] == "FT101"]
    assert issue["location"] == {"path": "services/api/forge.json", "lines": {"begin": 1}}


def test_gitlab_fingerprints_survive_moved_lines(project: Path, cli) -> None:
    (project / "forge.json").write_text('{"permission": {"bsh": "deny", "grpe": "ask"}}')
    _code, before, _ = cli("check", "--format", "gitlab")
    (project / "forge.json").write_text(
        '{\n\n  "permission": {\n    "bsh": "deny",\n    "grpe": "ask"\n  }\n}\n')
    _code, after, _ = cli("check", "--format", "gitlab")

    def prints(out: str) -> list[tuple[str, int]]:
        return [(i["fingerprint"], i["location"]["lines"]["begin"]) for i in json.loads(out)]

    assert [f for f, _ in prints(before)] == [f for f, _ in prints(after)]
    assert [line for _, line in prints(after)] == [4, 5]


def test_a_clean_project_is_passing_tests_and_an_empty_code_quality_report(project: Path, cli) -> None:
    (project / "forge.json").write_text('{"permission": {"bash": "ask"}}')
    code, out, err = cli("check", "--format", "junit")
    assert code == 0, err
    JUNIT_XSD.validate(out)
    assert ET.fromstring(out).get("failures") == "0"
    code, out, _ = cli("check", "--format", "gitlab")
    assert (code, json.loads(out)) == (0, [])


def test_output_file_xml_is_junit_beside_another_format(project: Path, cli) -> None:
    (project / "forge.json").write_text('{"permission": {"bsh": "deny"}}')
    code, out, err = cli("check", "--format", "gitlab", "--output-file", "junit.xml")
    assert code == 1, err
    assert json.loads(out)[0]["check_name"] == "FT101"
    JUNIT_XSD.validate(str(project / "junit.xml"))


def test_help_and_completions_offer_the_new_formats(cli) -> None:
    _code, out, _ = cli("check", "--help")
    assert "junit" in out and "gitlab" in out
    from forge_tools.cli.completion_scripts import render as render_script

    for shell in ("bash", "zsh", "fish"):
        script = render_script(shell)
        assert "junit" in script and "gitlab" in script, shell
