"""One finding per line (`path:line:col: LEVEL CODE message`) for editors' problem matchers and grep,
and the per-code counts of `check --statistics`.

Paths are relative to the working directory, as a compiler prints them, so a terminal or an editor
run from anywhere opens the right file.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections import Counter
from pathlib import Path
from typing import IO

from forge_tools.origin import format_key_path
from forge_tools.report.findings import CheckReport, Finding, summary_line


def _where(finding: Finding, cwd: Path) -> str:
    o = finding.origin
    if o is None:
        return "(project)"
    if o.kind == "file" and o.path:
        path = o.path
        with contextlib.suppress(OSError, ValueError):  # another drive on Windows
            path = os.path.relpath(Path(o.path).resolve(), cwd)
        return f"{path}:{o.line or 1}:{o.column or 1}"
    return str(o)


def concise_line(finding: Finding, cwd: Path) -> str:
    message = " ".join(finding.message.split())
    o = finding.origin
    if o is not None and o.kind == "file" and o.line is None and o.key_path:
        message = f"{format_key_path(o.key_path)}: {message}"  # a format without lines (TOML via tomllib)
    return f"{_where(finding, cwd)}: {finding.level.upper()} {finding.code} {message}"


def render_concise(report: CheckReport, stream: IO[str]) -> None:
    cwd = Path.cwd().resolve()
    for finding in report.sorted_findings():
        stream.write(concise_line(finding, cwd) + "\n")
    for e in report.expectations:
        if not e.passed and e.origin is None:
            stream.write(f"(expectations): ERROR FT201 {e.description}: {e.explanation}\n")
    stream.write(f"{summary_line(report)}\n")


def statistics(report: CheckReport) -> list[tuple[str, str, str, int]]:
    """(code, name, level, count) for each reported code, most frequent first."""
    counts = Counter(f.code for f in report.findings)
    rows: list[tuple[str, str, str, int]] = []
    for code, count in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        info = report.codes.get(code)
        level = next(f.level for f in report.findings if f.code == code)
        rows.append((code, info.name if info else "", level, count))
    return rows


def render_statistics(report: CheckReport, stream: IO[str], as_json: bool) -> None:
    rows = statistics(report)
    if as_json:
        stream.write(json.dumps([{"code": c, "name": n, "level": lvl, "count": k} for c, n, lvl, k in rows],
                                indent=2) + "\n")
        return
    width = max((len(str(k)) for *_, k in rows), default=1)
    for code, name, level, count in rows:
        stream.write(f"{count:>{width}}  {code}  {level:<7}  {name}\n")
    stream.write(f"{summary_line(report)}\n")


def write_private(path: Path, text: str) -> None:
    """Write `text` to `path` whole and readable by the owner only (`paths.replace_private`); a
    symlink is written through, to the file it names."""
    from forge_tools.paths import replace_private

    replace_private(path.resolve() if path.is_symlink() else path, text)
