"""Findings as data with a location, and the text/json renderers plus the reporter registry.

`check` produces a `CheckReport`; every output format (text, concise, json, github, sarif, junit,
gitlab) is a function of that value alone, registered by name in `REPORTER_BY_NAME`, so a new format
never touches the checks.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from forge_tools.named_tuple import NamedTuple
from forge_tools.origin import Origin, format_key_path
from forge_tools.report.codeinfo import CodeInfo, Level
from forge_tools.report.locations import describe, display_path

LEVELS: tuple[Level, ...] = ("error", "warning", "info")


class Related(NamedTuple):
    """A second location a finding points at (e.g. the later rule that makes one unreachable)."""

    label: str
    origin: Origin


class MadeWhenRead(Mapping[str, Any]):
    """A finding's data held as a compact record and made only when read (the JSON report, a test):
    a large config's thousands of findings need not each hold their data as dicts until reported.
    `keys_made` are the data's keys; `made` builds the dict, anew on every read (nothing is kept)."""

    __slots__ = ()
    keys_made: tuple[str, ...] = ()

    def made(self) -> dict[str, Any]:
        raise NotImplementedError

    def __getitem__(self, key: str) -> Any:
        if key not in self.keys_made:
            raise KeyError(key)
        return self.made()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.keys_made)

    def __len__(self) -> int:
        return len(self.keys_made)


@dataclass(frozen=True)
class Finding:
    """One problem `check` found: its code, level and message, where it is, and data for the JSON report."""

    code: str
    level: Level
    message: str
    hint: str | None = None
    origin: Origin | None = None
    related: tuple[Related, ...] = ()
    data: Mapping[str, Any] = field(default_factory=dict, hash=False, compare=False)

    def to_json(self, root: Path | None = None) -> dict[str, Any]:
        return {
            "code": self.code,
            "level": self.level,
            "message": self.message,
            "hint": self.hint,
            "location": location_json(self.origin, root),
            "related": [{"label": r.label, "location": location_json(r.origin, root)} for r in self.related],
            **({"data": self.data.made() if isinstance(self.data, MadeWhenRead) else self.data}
               if self.data else {}),
        }


class ExpectationOutcome(NamedTuple):
    """One `--expect` assertion: what was asserted, whether it held, and why (the actual verdict)."""

    description: str
    passed: bool
    explanation: str
    origin: Origin | None = None

    def to_json(self, root: Path | None = None) -> dict[str, Any]:
        return {
            "assertion": self.description,
            "passed": self.passed,
            "explanation": self.explanation,
            "location": location_json(self.origin, root),
        }


@dataclass
class CheckReport:
    """Everything one `check` run found, as each reporter renders it (built up while the checks run)."""

    project_root: Path
    findings: list[Finding] = field(default_factory=list)
    expectations: list[ExpectationOutcome] = field(default_factory=list)
    expect_file: Path | None = None
    codes: dict[str, CodeInfo] = field(default_factory=dict)
    files: list[Path] = field(default_factory=list)  # config files checked
    notes: list[str] = field(default_factory=list)  # what was not looked at (e.g. plugin tools)
    repo_root: Path | None = None  # the enclosing git worktree, when the project is inside one
    suppressed: list[Finding] = field(default_factory=list)  # by an inline `forge-tools: ignore`
    deselected: int = 0  # findings left out by --select/--ignore or the config's `check` section
    strict: bool = False  # `check --strict`: warnings fail the check too (the CI formats show them failed)

    @property
    def source_root(self) -> Path:
        """What GitHub annotations and SARIF paths are relative to: the repository, whose layout code
        scanning knows, even when the checked project is a subdirectory of it."""
        return self.repo_root or self.project_root

    def fails(self, finding: Finding) -> bool:
        """Whether this finding fails the check: an error, or a warning under --strict."""
        return finding.level == "error" or (self.strict and finding.level == "warning")

    def count(self, level: Level) -> int:
        return sum(1 for f in self.findings if f.level == level)

    @property
    def failed_expectations(self) -> int:
        return sum(1 for e in self.expectations if not e.passed)

    def sorted_findings(self) -> list[Finding]:
        order = {lvl: i for i, lvl in enumerate(LEVELS)}

        def key(f: Finding) -> tuple[str, int, int, int, str]:
            o = f.origin
            return (o.path or "~" if o else "~", (o.line or 0) if o else 0, (o.column or 0) if o else 0,
                    order[f.level], f.code)

        return sorted(self.findings, key=key)


def enclosing_repo(start: Path) -> Path | None:
    """The nearest directory at or above `start` holding `.git` (a dir, or a file for worktrees)."""
    start = start.resolve()
    for d in (start, *start.parents):
        if (d / ".git").exists():
            return d
    return None


def fingerprint(finding: Finding, where: str) -> str:
    """A finding's identity across runs, for SARIF and GitLab: the code, the file (`where`, as the
    format names it) and the config key path, or the message when there is none; never the line, so
    an alert keeps its identity when lines above it move."""
    import hashlib  # on use: `check` in text form never needs it

    o = finding.origin
    spot = "/".join(o.key_path) if o is not None and o.key_path else finding.message
    return hashlib.sha256(f"{finding.code}\0{where}\0{spot}".encode()).hexdigest()[:32]


def location_json(origin: Origin | None, root: Path | None) -> dict[str, Any] | None:
    if origin is None:
        return None
    return {
        "path": display_path(origin.path, root) if origin.kind == "file" else None,
        "line": origin.line,
        "column": origin.column,
        "key_path": list(origin.key_path) or None,
        "description": describe(origin, root),
    }


def summary_line(report: CheckReport) -> str:
    parts = [f"{report.count('error')} error(s)", f"{report.count('warning')} warning(s)",
             f"{report.count('info')} info"]
    text = ", ".join(parts)
    if report.expectations:
        text += f"; {report.failed_expectations} of {len(report.expectations)} expectation(s) failed"
    def findings(n: int) -> str:
        return f"{n} finding{'s' if n != 1 else ''}"

    hidden = [f"{findings(n)} {what}" for n, what in (
        (len(report.suppressed), "suppressed inline"),
        (report.deselected, "not selected: off by default or left out by --select/--ignore, "
                            "`--extend-select CODE` adds one")) if n]
    if hidden:
        text += f" ({'; '.join(hidden)})"
    return text


def render_json(report: CheckReport, stream: IO[str]) -> None:
    from forge_tools.report.json_stream import Streamed, write_json

    root = report.project_root
    data = {
        "project_root": str(root),
        "files": [display_path(str(p), root) for p in report.files],
        "notes": list(report.notes),
        "findings": Streamed(report.sorted_findings(), lambda f: f.to_json(root)),
        "expectations": {
            "file": display_path(str(report.expect_file), root) if report.expect_file else None,
            "results": [e.to_json(root) for e in report.expectations],
        },
        "summary": {
            "errors": report.count("error"),
            "warnings": report.count("warning"),
            "info": report.count("info"),
            "expectations": len(report.expectations),
            "expectations_failed": report.failed_expectations,
            "suppressed": len(report.suppressed),
            "not_selected": report.deselected,
        },
        "suppressed": Streamed(report.suppressed, lambda f: f.to_json(root)),
    }
    write_json(data, stream)


_STYLE = {"error": "bold red", "warning": "yellow", "info": "cyan"}
#: plain-text lines held before they are written (a few writes, not one per line, nor the whole report)
_FLUSH_LINES = 4096


def render_text(report: CheckReport, stream: IO[str]) -> None:
    """Findings grouped by file, then expectations, then a summary line.

    The report is built as lines: plain text when there is no colour (a pipe, a file, NO_COLOR) is
    written every few thousand lines (a large report is never held whole), one rich call for a colour
    terminal, so a large report costs no console call per line.
    """
    from forge_tools.report.colour import use_colour

    colour = use_colour(stream)
    lines: list[str] = []
    out = lines.append
    escape: Callable[[str], str] = str
    if colour:
        from rich.markup import escape as rich_escape

        escape = rich_escape

    def styled(text: str, style: str) -> str:
        return f"[{style}]{text}[/{style}]" if colour else text

    root = report.project_root
    groups: dict[str, list[Finding]] = {}
    for f in report.sorted_findings():
        if f.data.get("expectation"):
            continue  # listed with the other expectations below
        o = f.origin
        if o is not None and o.kind == "file" and o.path:
            group = display_path(o.path, root) or o.path
        elif o is not None:
            group = str(o)
        else:
            group = "(project)"
        groups.setdefault(group, []).append(f)
    for group, items in groups.items():
        out(styled(escape(group), "bold"))
        for f in items:
            where = ""
            if f.origin is not None and f.origin.line is not None:
                where = f"{f.origin.line}:{f.origin.column or 1}"
            elif f.origin is not None and f.origin.key_path:
                where = format_key_path(f.origin.key_path)
            level = styled(f"{f.level:<7}", _STYLE[f.level])
            out(f"  {escape(where):<8} {level} {f.code}  {escape(f.message)}")
            for r in f.related:
                out(f"{'':19}{escape(r.label)}: {escape(describe(r.origin, root))}")
            if f.hint:
                out(f"{'':19}{styled('fix:', 'dim')} {escape(f.hint)}")
            if not colour and len(lines) >= _FLUSH_LINES:  # a large report is written as it is made
                stream.write("\n".join(lines) + "\n")
                lines.clear()
        out("")
    if report.expectations:
        name = display_path(str(report.expect_file), root) if report.expect_file else "expectations"
        out(styled(f"expectations ({escape(name or '')})", "bold"))
        for e in report.expectations:
            mark = styled("PASS", "green") if e.passed else styled("FAIL", "bold red")
            where = f"{describe(e.origin, root)}: " if e.origin is not None and not e.passed else ""
            out(f"  {mark} {escape(where)}{escape(e.description)}")
            out(f"       {escape(e.explanation)}")
        out("")
    for note in report.notes:
        out(styled(f"note: {escape(note)}", "dim"))
    if not report.findings and not report.expectations:
        out("no findings")
    out(summary_line(report))
    text = "\n".join(lines) + "\n"
    if not colour:
        stream.write(text)
        return
    from forge_tools.report.colour import pipe_safe
    from forge_tools.report.terminal import safe_rich_console

    console = pipe_safe(safe_rich_console(stream, no_color=False, force_terminal=True, color_system="auto",
                                highlight=False, soft_wrap=True))
    console.print(text, end="")


Reporter = Callable[[CheckReport, IO[str]], None]


def _github(report: CheckReport, stream: IO[str]) -> None:
    from forge_tools.report.github import render_github

    render_github(report, stream)


def _sarif(report: CheckReport, stream: IO[str]) -> None:
    from forge_tools.report.sarif import render_sarif

    render_sarif(report, stream)


def _junit(report: CheckReport, stream: IO[str]) -> None:
    from forge_tools.report.junit import render_junit

    render_junit(report, stream)


def _gitlab(report: CheckReport, stream: IO[str]) -> None:
    from forge_tools.report.gitlab import render_gitlab

    render_gitlab(report, stream)


def _concise(report: CheckReport, stream: IO[str]) -> None:
    from forge_tools.report.concise import render_concise

    render_concise(report, stream)


REPORTER_BY_NAME: dict[str, Reporter] = {
    "text": render_text,
    "concise": _concise,
    "json": render_json,
    "github": _github,
    "sarif": _sarif,
    "junit": _junit,
    "gitlab": _gitlab,
}
FORMATS = (*REPORTER_BY_NAME, "auto")


def pick_format(name: str, env: dict[str, str] | None = None) -> str:
    """`auto` is `github` under GitHub Actions (annotations in the PR), else `text`."""
    if name != "auto":
        return name
    environ = os.environ if env is None else env
    return "github" if environ.get("GITHUB_ACTIONS") == "true" else "text"
