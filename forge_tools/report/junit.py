"""JUnit XML, the test report GitLab (`artifacts:reports:junit`), Jenkins (`junit` step) and Azure
Pipelines (`PublishTestResults`) read; valid against the JUnit schema Jenkins' xUnit plugin checks with.

Shape, chosen for what those consumers display:

- one `<testsuite>` per checked config file (its name and `file` are the path relative to the
  repository root, as in SARIF and GitHub annotations), because a reader fixes findings file by file;
  findings with no file of their own (an environment variable) get a suite named after their source,
  and `--expect` assertions a suite of their own;
- one `<testcase>` per finding, named by its code, title and config key (`FT101 unknown permission:
  permission.bsh`), not by its line, so GitLab's "new failure / fixed" comparison with the target branch
  survives lines moving; the location (`path:line:col`) is in the failure's message and text;
- a finding that fails the check (an error; a warning too under `--strict`) is a `<failure>`; any other
  finding is a passing case whose `<system-out>` says what was found;
- a file with nothing that fails gets one passing case, and every expectation is a case, so the counts
  mean something: tests = files checked + findings + expectations, failures = what fails the check.

Jenkins turns `classname` into package and class at its dots, so a case's classname is its file's path
with `.` as `_` and `/` as `.` (`sub.forge_json`), which lists files as Jenkins lists packages.

The document is built with `xml.etree.ElementTree` (the standard library's XML writer escapes markup in
text and attributes); characters XML 1.0 cannot hold at all (C0 controls other than tab, newline and
carriage return, U+FFFE/U+FFFF, lone surrogates) are written as `\\uXXXX`, as the terminal escapes them.
"""

from __future__ import annotations

import re
from typing import IO
from xml.etree import ElementTree as ET

from forge_tools.origin import Origin, format_key_path
from forge_tools.report.findings import CheckReport, Finding, describe, display_path

#: what XML 1.0's Char production leaves out (and lone surrogates, which no encoding can write)
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
SUITES_NAME = "forge-tools check"


def xml_safe(text: str) -> str:
    """`text` with every character XML 1.0 cannot hold written as `\\uXXXX`, and CR LF as LF."""
    text = text.replace("\r\n", "\n")
    return _NOT_XML.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def _sub(parent: ET.Element, tag: str, text: str | None = None, **attrs: str) -> ET.Element:
    element = ET.SubElement(parent, tag, {k: xml_safe(v) for k, v in attrs.items()})
    if text is not None:
        element.text = xml_safe(text)
    return element


def _classname(path: str) -> str:
    return path.replace(".", "_").replace("/", ".").strip(".") or "forge-tools"


def _where(origin: Origin | None, report: CheckReport) -> str:
    return describe(origin, report.source_root) if origin is not None else "(project)"


def _case_name(finding: Finding, report: CheckReport) -> str:
    info = report.codes.get(finding.code)
    name = info.title if info is not None else finding.code
    o = finding.origin
    where = format_key_path(o.key_path) if o is not None and o.key_path else finding.message
    return f"{name}: {where}"


def _details(finding: Finding, report: CheckReport) -> str:
    lines = [f"{_where(finding.origin, report)}: {finding.level} {finding.code} {finding.message}"]
    lines += [f"{r.label}: {describe(r.origin, report.source_root)}" for r in finding.related]
    if finding.hint:
        lines.append(f"fix: {finding.hint}")
    return "\n".join(lines)


class _Suite:
    def __init__(self, name: str, file: str | None) -> None:
        self.name, self.file = name, file
        self.cases: list[ET.Element] = []
        self.failures = 0

    def case(self, name: str, classname: str) -> ET.Element:
        element = ET.Element("testcase", {"name": xml_safe(name), "classname": xml_safe(classname)})
        self.cases.append(element)
        return element


def junit_tree(report: CheckReport) -> ET.ElementTree:
    root = report.source_root
    suites: dict[str, _Suite] = {}

    def suite_for(origin: Origin | None) -> _Suite:
        if origin is not None and origin.kind == "file" and origin.path:
            shown = display_path(origin.path, root) or origin.path
            return suites.setdefault(shown, _Suite(shown, shown))
        name = str(origin) if origin is not None else "(project)"
        return suites.setdefault(name, _Suite(name, None))

    for path in report.files:
        suite_for(Origin("file", str(path)))
    for finding in report.sorted_findings():
        if finding.data.get("expectation"):
            continue  # the expectations suite below has it, as a failed case
        suite = suite_for(finding.origin)
        case = suite.case(_case_name(finding, report), _classname(suite.file or suite.name))
        details = _details(finding, report)
        if report.fails(finding):
            suite.failures += 1
            _sub(case, "failure", details, type=finding.code,
                 message=f"{_where(finding.origin, report)}: {finding.message}")
        else:
            _sub(case, "system-out", details)
    for suite in suites.values():
        if not suite.failures:
            suite.case("no finding fails the check", _classname(suite.file or suite.name))
    if report.expectations:
        shown = display_path(str(report.expect_file), root) if report.expect_file else "expectations"
        suite = suites.setdefault(f"expectations ({shown})", _Suite(f"expectations ({shown})", shown))
        for e in report.expectations:
            case = suite.case(e.description, _classname(shown or "expectations"))
            if not e.passed:
                suite.failures += 1
                where = _where(e.origin, report)
                _sub(case, "failure", f"{where}: {e.description}\n{e.explanation}",
                     type="expectation", message=f"{where}: {e.explanation}")
    if not suites:
        suite = suites.setdefault(SUITES_NAME, _Suite(SUITES_NAME, None))
        suite.case("no config files found: nothing to check", "forge-tools")
    document = ET.Element("testsuites", {"name": SUITES_NAME})
    total = failed = 0
    for suite in suites.values():
        attrs = {"name": xml_safe(suite.name), "tests": str(len(suite.cases)),
                 "failures": str(suite.failures), "errors": "0", "skipped": "0"}
        if suite.file is not None:
            attrs["file"] = xml_safe(suite.file)
        element = ET.SubElement(document, "testsuite", attrs)
        element.extend(suite.cases)
        total += len(suite.cases)
        failed += suite.failures
    document.set("tests", str(total))
    document.set("failures", str(failed))
    document.set("errors", "0")
    ET.indent(document)
    return ET.ElementTree(document)


def render_junit(report: CheckReport, stream: IO[str]) -> None:
    stream.write('<?xml version="1.0" encoding="UTF-8"?>\n')
    junit_tree(report).write(stream, encoding="unicode")
    stream.write("\n")
