"""GitHub Actions workflow commands: one `::error file=...,line=...,col=...,title=CODE::message` a finding.

GitHub turns these lines into annotations on the pull request's diff; `info` becomes `notice`. Paths
are relative to the repository root (not the checked project), which is what GitHub resolves them
against. Escaping follows GitHub's rules: `%`, CR and LF in the message; also `:` and `,` in properties.
"""

from __future__ import annotations

from typing import IO

from forge_tools.report.findings import CheckReport, Finding, describe, display_path, summary_line

_COMMAND = {"error": "error", "warning": "warning", "info": "notice"}


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def workflow_command(finding: Finding, report: CheckReport) -> str:
    props: list[str] = []
    o = finding.origin
    if o is not None and o.kind == "file" and o.path:
        props.append(f"file={_escape_property(display_path(o.path, report.source_root) or o.path)}")
        if o.line is not None:
            props.append(f"line={o.line}")
            props.append(f"col={o.column or 1}")
    info = report.codes.get(finding.code)
    props.append(f"title={_escape_property(info.title if info is not None else finding.code)}")
    message = finding.message
    if o is not None and not (o.kind == "file" and o.path):
        message = f"{o}: {message}"
    for r in finding.related:
        message += f"\n{r.label}: {describe(r.origin, report.source_root)}"
    if finding.hint:
        message += f"\nfix: {finding.hint}"
    return f"::{_COMMAND[finding.level]} {','.join(props)}::{_escape_data(message)}"


def render_github(report: CheckReport, stream: IO[str]) -> None:
    for finding in report.sorted_findings():
        stream.write(workflow_command(finding, report) + "\n")
    for e in report.expectations:
        if e.passed:
            stream.write(f"expectation passed: {e.description}\n")
    stream.write(f"forge-tools check: {summary_line(report)}\n")
