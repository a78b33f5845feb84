"""SARIF 2.1.0 for GitHub code scanning: one rule per finding code, one result per finding.

Locations are relative to the repository root (`%SRCROOT%`; the project root when there is no git
worktree), which is what a code-scanning upload resolves, also when the checked project is a
subdirectory; a file outside it (e.g. the global config) gets an absolute `file:` URI. Each result has a
`partialFingerprints` entry built from the code, the file and the config key (not the line), so an
alert keeps its identity when lines above it move. GitHub rejects results without a location, so a
finding with no file of its own (e.g. from an environment variable) is anchored at line 1 of the first
config file, and its message says where it really came from.

Rules come from the records the report carries (`CheckReport.codes`), not from `check`. They have no
`helpUri`: SARIF 2.1.0 wants an absolute URI there and forge-tools has no public docs host, so each
rule carries its whole documentation in `help` (text and Markdown, which GitHub shows beside an alert)
and the repository path of its docs page in `properties.docs` (docs/rules.md#ft103).
"""

from __future__ import annotations

from pathlib import Path
from typing import IO, Any
from urllib.parse import quote

from forge_tools.origin import Origin
from forge_tools.report.findings import CheckReport, Finding, describe, display_path, fingerprint

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
_LEVEL = {"error": "error", "warning": "warning", "info": "note"}


def _version() -> str:
    from forge_tools import __version__

    return __version__


def _pascal(name: str) -> str:
    return "".join(part.capitalize() for part in name.replace("_", "-").split("-"))


def _physical(origin: Origin, report: CheckReport) -> dict[str, Any] | None:
    if origin.kind != "file" or not origin.path:
        return None
    region: dict[str, Any] = {"startLine": max(origin.line or 1, 1)}
    if origin.column is not None and origin.line is not None:
        region["startColumn"] = max(origin.column, 1)
    return {"artifactLocation": _artifact(origin.path, report), "region": region}


def _artifact(path: str, report: CheckReport) -> dict[str, Any]:
    shown = display_path(path, report.source_root) or path
    if Path(shown).is_absolute():
        return {"uri": Path(shown).as_uri()}
    return {"uri": quote(shown), "uriBaseId": "%SRCROOT%"}


def _fingerprint(finding: Finding, physical: dict[str, Any] | None) -> str:
    o = finding.origin
    where = physical["artifactLocation"]["uri"] if physical is not None else (str(o) if o else "")
    return fingerprint(finding, where)


def _result(finding: Finding, report: CheckReport, rule_index: dict[str, int]) -> dict[str, Any]:
    text = finding.message
    if finding.hint:
        text += f" Fix: {finding.hint}"
    physical = _physical(finding.origin, report) if finding.origin is not None else None
    if physical is None and finding.origin is not None:
        text = f"{finding.origin}: {text}"
    if physical is None and report.files:
        physical = _physical(Origin("file", str(report.files[0]), 1, 1), report)
    result: dict[str, Any] = {
        "ruleId": finding.code,
        "level": _LEVEL[finding.level],
        "message": {"text": text},
    }
    if finding.code in rule_index:
        result["ruleIndex"] = rule_index[finding.code]
    if physical is not None:
        result["locations"] = [{"physicalLocation": physical}]
    result["partialFingerprints"] = {"forgeToolsFinding/v1": _fingerprint(finding, physical)}
    related = []
    for i, r in enumerate(finding.related, start=1):
        loc = _physical(r.origin, report)
        label = f"{r.label}: {describe(r.origin, report.source_root)}"
        entry: dict[str, Any] = {"id": i, "message": {"text": label}}
        if loc is not None:
            entry["physicalLocation"] = loc
        related.append(entry)
    if related:
        result["relatedLocations"] = related
    return result


def sarif_log(report: CheckReport) -> dict[str, Any]:
    """The SARIF 2.1.0 log; its results are made as `write_json` writes them (`json_stream`)."""
    from forge_tools.report.json_stream import Streamed

    codes = sorted(report.codes.values(), key=lambda c: c.code)
    rules = [
        {
            "id": c.code,
            "name": _pascal(c.name),
            "shortDescription": {"text": c.summary},
            "fullDescription": {"text": c.full_description},
            "help": {"text": c.render(), "markdown": c.render(markdown=True)},
            "defaultConfiguration": {"level": _LEVEL[c.level], "enabled": c.default},
            "properties": {"docs": c.docs},
        }
        for c in codes
    ]
    rule_index = {c.code: i for i, c in enumerate(codes)}
    root_uri = report.source_root.resolve().as_uri().rstrip("/") + "/"
    run: dict[str, Any] = {
        "tool": {"driver": {"name": "forge-tools", "version": _version(), "rules": rules}},
        "originalUriBaseIds": {"%SRCROOT%": {"uri": root_uri}},
        "results": Streamed(report.sorted_findings(), lambda f: _result(f, report, rule_index)),
        "columnKind": "unicodeCodePoints",
    }
    return {"$schema": SCHEMA_URI, "version": "2.1.0", "runs": [run]}


def render_sarif(report: CheckReport, stream: IO[str]) -> None:
    from forge_tools.report.json_stream import write_json

    write_json(sarif_log(report), stream)
