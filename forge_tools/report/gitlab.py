"""GitLab Code Quality: the subset of the Code Climate issue format GitLab reads from an
`artifacts:reports:codequality` file and shows in the merge request widget and changes view.

One entry per finding: `check_name` is the code and `description` starts with it (GitLab shows the
description, not the check name); `severity` is from GitLab's set (`major` for what fails the check: an
error, or a warning under `--strict`; `minor` for another warning; `info`); `location.path` is
relative to the repository root (GitLab resolves it against the project checkout; a file outside it
keeps its absolute path) and `location.lines.begin` is the finding's line. A finding with no file of
its own (an environment variable) is anchored at line 1 of the first config file, and its description
says where it came from, as SARIF does.

`fingerprint` is the one SARIF uses (code, file and config key; never the line alone), so a finding
keeps its identity when lines above it move and GitLab reports it as neither fixed nor new; two
findings that would share one (GitLab would show them as one) are told apart by their order.
"""

from __future__ import annotations

import hashlib
from typing import IO, Any

from forge_tools.report.findings import CheckReport, Finding, display_path, fingerprint


def _severity(finding: Finding, report: CheckReport) -> str:
    if report.fails(finding):
        return "major"
    return "minor" if finding.level == "warning" else "info"


def gitlab_issue(finding: Finding, report: CheckReport) -> dict[str, Any]:
    o = finding.origin
    description = f"{finding.code}: {finding.message}"
    if o is not None and o.kind == "file" and o.path:
        path, line = display_path(o.path, report.source_root) or o.path, o.line or 1
    else:
        where = str(o) if o is not None else "the project"
        description = f"{finding.code}: {where}: {finding.message}"
        first = report.files[0] if report.files else report.project_root
        path, line = display_path(str(first), report.source_root) or str(first), 1
    if finding.hint:
        description += f" (fix: {finding.hint})"
    return {
        "type": "issue",
        "check_name": finding.code,
        "description": description,
        "severity": _severity(finding, report),
        "fingerprint": fingerprint(finding, path),
        "location": {"path": path, "lines": {"begin": max(line, 1)}},
    }


def gitlab_report(report: CheckReport) -> list[dict[str, Any]]:
    """The Code Quality issues, made as `write_json` writes them (`json_stream`); a fingerprint that
    an earlier issue has gets a counted variant, so each is unique in the report."""
    from forge_tools.report.json_stream import Streamed

    seen: dict[str, int] = {}

    def unique(finding: Finding) -> dict[str, Any]:
        issue = gitlab_issue(finding, report)
        base = issue["fingerprint"]
        n = seen.get(base, 0)
        seen[base] = n + 1
        if n:
            issue["fingerprint"] = hashlib.sha256(f"{base}\0{n}".encode()).hexdigest()[:32]
        return issue

    return Streamed(report.sorted_findings(), unique)


def render_gitlab(report: CheckReport, stream: IO[str]) -> None:
    from forge_tools.report.json_stream import write_json

    write_json(gitlab_report(report), stream)
