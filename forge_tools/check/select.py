"""Which findings `check` reports: `--select`/`--ignore` (and the config's `check` section) and inline
`forge-tools: ignore CODE -- reason` comments, with FT114 for a suppression that suppressed nothing.

A code is kept when the longest select or ignore entry matching it is a select entry (an ignore entry
wins a tie), as ruff decides, so `select: [FT1]` with `ignore: [FT105]` reports FT101 but not FT105.
Findings that say the config cannot be read or used (FT001-FT008) are never dropped: silencing them
would let a broken config pass CI.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import NamedTuple

from forge_tools.config.files import read_regular_text
from forge_tools.errors import UsageError
from forge_tools.origin import Node, Origin
from forge_tools.report.findings import CheckReport, Finding, describe

#: codes no selection or suppression removes (the config cannot be read or used)
ALWAYS_REPORTED = frozenset(f"FT00{i}" for i in range(1, 9))
UNUSED_SUPPRESSION = "FT114"
_CODE = re.compile(r"FT[0-9]{0,3}")
_DIRECTIVE = re.compile(r"forge-tools:\s*ignore\b(?P<codes>.*?)(?:\s--(?P<reason>.*))?\s*(?:\*/)?\s*$")


class Selection(NamedTuple):
    """The codes to report: `select` (None: all) and `ignore`, each a list of codes or prefixes."""

    select: tuple[str, ...] | None = None
    ignore: tuple[str, ...] = ()

    def keeps(self, code: str) -> bool:
        if code in ALWAYS_REPORTED:
            return True
        best_select = max((len(p) for p in (self.select or ("FT",)) if code.startswith(p)), default=-1)
        best_ignore = max((len(p) for p in self.ignore if code.startswith(p)), default=-1)
        return best_select > best_ignore

    def then(self, select: Sequence[str] | None, ignore: Sequence[str]) -> Selection:
        """A later layer: a `select` starts over (earlier select and ignore no longer apply), an
        `ignore` alone adds to the earlier ones."""
        if select is not None:
            return Selection(tuple(select), tuple(ignore))
        return Selection(self.select, (*self.ignore, *ignore))


def parse_codes(values: Iterable[str] | None, option: str) -> list[str] | None:
    """`--select FT1,FT104 --select FT2` as a list; a bad code is a usage error naming the option."""
    if values is None:
        return None
    codes: list[str] = []
    for value in values:
        for part in value.split(","):
            part = part.strip().upper()
            if not part:
                continue
            if not _CODE.fullmatch(part):
                raise UsageError(f"{part!r} is not a finding code or prefix (e.g. FT104, FT1, FT)",
                                 where=option)
            unknown = _unknown_code(part)
            if unknown:
                raise UsageError(unknown, where=option)
            codes.append(part)
    return codes


def _unknown_code(part: str) -> str | None:
    """Why `part` selects no finding code at all (a typo would silently select or ignore nothing), or
    None when some code starts with it."""
    from difflib import get_close_matches

    from forge_tools.check.codes import CODES

    if any(code.startswith(part) for code in CODES):
        return None
    close = get_close_matches(part, list(CODES), n=3, cutoff=0.6)
    hint = f"; did you mean {' or '.join(close)}?" if close else ""
    return f"no finding code is or starts with {part!r}{hint} (`forge-tools rule --all` lists them)"


def config_layers(trees: Iterable[Node], project_root: Path) -> list[tuple[list[str] | None, list[str]]]:
    """The `check` settings of pyproject.toml `[tool.forge-tools.check]`, then of each config source in
    load order (a valid one: schema errors are findings of their own)."""
    import tomllib

    layers: list[tuple[list[str] | None, list[str]]] = []
    pyproject = project_root / "pyproject.toml"
    if pyproject.is_file():
        try:
            data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
            data = {}  # not forge's file: a broken pyproject is not ours to report
        section = data.get("tool", {}).get("forge-tools", {}).get("check", {})
        if isinstance(section, dict):
            layers.append(_layer(section.get("select"), section.get("ignore")))
    for tree in trees:
        node = tree.get("check")
        if node is not None and node.is_map:
            select, ignore = node.get("select"), node.get("ignore")
            layers.append(_layer(select.plain() if select is not None else None,
                                 ignore.plain() if ignore is not None else None))
    return layers


def _layer(select: object, ignore: object) -> tuple[list[str] | None, list[str]]:
    def codes(value: object) -> list[str]:
        return [v for v in value if isinstance(v, str) and _CODE.fullmatch(v)] if isinstance(value, list) \
            else []

    return (codes(select) if isinstance(select, list) else None), codes(ignore)


# ------------------------------------------------------------------------------- inline suppression


class Suppression(NamedTuple):
    """One `forge-tools: ignore` comment: the codes and the lines it covers (what it suppressed in a
    report is `apply`'s to track)."""

    path: str
    line: int
    column: int
    codes: tuple[str, ...]
    reason: str | None
    lines: tuple[int, ...]

    @property
    def origin(self) -> Origin:
        return Origin("file", self.path, self.line, self.column)

    def covers(self, finding: Finding) -> bool:
        o = finding.origin
        return (o is not None and o.kind == "file" and o.line in self.lines
                and _same_file(o.path, self.path)
                and any(finding.code.startswith(c) for c in self.codes))


def _same_file(a: str | None, b: str) -> bool:
    if a is None:
        return False
    try:
        return a == b or Path(a).resolve() == Path(b).resolve()
    except OSError:
        return False


def _lexer(path: Path) -> object:
    from forge_tools.config.formats import for_path

    return for_path(path).lexer()


def suppressions_in(path: Path, text: str) -> list[Suppression]:
    """The suppression comments of one config file, found by a real tokenizer (pygments) so that a `#`
    or `//` inside a string is not a comment. A comment alone on its line covers the next line; one
    after a value covers its own line."""
    from pygments.token import Comment

    found: list[Suppression] = []
    line_starts = [0, *(m.end() for m in re.finditer("\n", text))]
    import bisect

    for offset, kind, value in _lexer(path).get_tokens_unprocessed(text):  # type: ignore[attr-defined]
        if kind not in Comment or "forge-tools:" not in value:
            continue
        match = _DIRECTIVE.search(value)
        if match is None:
            continue
        index = bisect.bisect_right(line_starts, offset) - 1
        line, column = index + 1, offset - line_starts[index] + 1
        alone = text[line_starts[index]:offset].strip() == ""
        codes = tuple(c.upper() for c in re.split(r"[\s,]+", match.group("codes").strip()) if c)
        reason = (match.group("reason") or "").strip() or None
        found.append(Suppression(str(path), line, column, codes, reason, (line, line + 1) if alone
                                 else (line,)))
    return found


# ------------------------------------------------------------------------------- applying both


def apply(report: CheckReport, selection: Selection, files: Iterable[Path],
          texts: Mapping[Path, str] | None = None) -> CheckReport:
    """Drop suppressed and unselected findings (kept in `report.suppressed`); add FT114 for a
    suppression comment that suppressed nothing or names no known code. `texts`: the files' texts as
    `check` already read them (a file not in it is read here)."""
    suppressions: list[Suppression] = []
    for path in files:
        text = texts.get(path) if texts is not None else None
        try:
            text = read_regular_text(path) if text is None else text
        except (OSError, UnicodeDecodeError):
            continue  # an unreadable file is already a finding of its own
        if "forge-tools:" in text:  # most files have none: spare tokenizing a large config
            suppressions += suppressions_in(path, text)
    by_line: dict[int, list[int]] = {}  # in file order: the first that covers a finding wins
    for i, s in enumerate(suppressions):
        for line in s.lines:
            by_line.setdefault(line, []).append(i)
    used: list[set[str]] = [set() for _ in suppressions]  # the codes each suppression suppressed
    kept: list[Finding] = []
    for finding in report.findings:
        at = finding.origin.line if finding.origin is not None else None
        candidates = by_line.get(at, ()) if at is not None and finding.code not in ALWAYS_REPORTED else ()
        found = next((i for i in candidates if suppressions[i].covers(finding)), None)
        if found is None:
            kept.append(finding)
            continue
        by = suppressions[found]
        used[found].add(finding.code)
        report.suppressed.append(dataclasses.replace(
            finding, data={**finding.data, "suppressed_by": describe(by.origin, report.project_root),
                           **({"reason": by.reason} if by.reason else {})}))
    for s, suppressed in zip(suppressions, used, strict=True):
        unknown = [c for c in s.codes if not _CODE.fullmatch(c) or not any(k.startswith(c)
                                                                           for k in report.codes)]
        if not s.codes:
            kept.append(_unused(s, "a suppression comment names no code; write the codes it is for, e.g. "
                                   "`forge-tools: ignore FT104 -- reason`"))
        elif any(c in ALWAYS_REPORTED for c in s.codes) and not suppressed:
            kept.append(_unused(s, f"{', '.join(c for c in s.codes if c in ALWAYS_REPORTED)} cannot be "
                                   "suppressed: the config cannot be read or used as written"))
        elif unknown:
            kept.append(_unused(s, f"suppression names {', '.join(map(repr, unknown))}, which is not a "
                                   "finding code"))
        elif not suppressed:
            kept.append(_unused(s, f"suppression of {', '.join(s.codes)} suppressed nothing: no such "
                                   "finding on this line" + (" or the next" if len(s.lines) > 1 else "")))
    report.findings = [f for f in kept if selection.keeps(f.code)]
    report.deselected = len(kept) - len(report.findings)
    return report


def _unused(s: Suppression, message: str) -> Finding:
    return Finding(UNUSED_SUPPRESSION, "warning", message,
                   "remove the comment, or fix the code it names", s.origin)
