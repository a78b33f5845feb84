"""Which findings `check` reports: `--select`/`--ignore` (and the config's `check` section) and inline
`forge-tools: ignore CODE -- reason` comments, with FT114 for a suppression that suppressed nothing.

A code is kept when the longest select or ignore entry matching it is a select entry (an ignore entry
wins a tie), as ruff decides, so `select: [FT1]` with `ignore: [FT105]` reports FT101 but not FT105.
With no select entry at all, the default set is reported: every code but the informational hints whose
records say `default=False` (FT105, FT107), which only a select entry covering them turns on.
Findings that say the config cannot be read or used (FT001-FT008) are never dropped: silencing them
would let a broken config pass CI.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from forge_tools.config.files import read_regular_text
from forge_tools.errors import UsageError
from forge_tools.named_tuple import NamedTuple
from forge_tools.origin import Node, Origin
from forge_tools.report.findings import CheckReport, Finding, describe

#: codes no selection or suppression removes (the config cannot be read or used)
ALWAYS_REPORTED = frozenset(f"FT00{i}" for i in range(1, 9))
UNUSED_SUPPRESSION = "FT114"
_CODE = re.compile(r"FT[0-9]{0,3}")
_DIRECTIVE = re.compile(r"forge-tools:\s*ignore\b(?P<codes>.*?)(?:\s--(?P<reason>.*))?\s*(?:\*/)?\s*$")


class Selection(NamedTuple):
    """The codes to report: `select` (None: the default set), `ignore` and `extend_select` (added to
    what is selected), each a list of codes or prefixes."""

    select: tuple[str, ...] | None = None
    ignore: tuple[str, ...] = ()
    extend_select: tuple[str, ...] = ()

    def keeps(self, code: str) -> bool:
        """With no `select`, the default set: every code but those off by default, as if `FT` were
        selected; a `select` or `extend_select` entry, even a prefix (`FT1`), turns on the
        off-by-default codes it covers. The longest matching entry decides; an ignore wins a tie."""
        if code in ALWAYS_REPORTED:
            return True
        best_ignore = max((len(p) for p in self.ignore if code.startswith(p)), default=-1)
        if self.select is None:
            from forge_tools.check.codes import CODES

            info = CODES.get(code)
            best_select = len("FT") if info is None or info.default else -1
        else:
            best_select = max((len(p) for p in self.select if code.startswith(p)), default=-1)
        best_extend = max((len(p) for p in self.extend_select if code.startswith(p)), default=-1)
        return max(best_select, best_extend) > best_ignore

    def then(self, select: Sequence[str] | None, ignore: Sequence[str],
             extend_select: Sequence[str] = ()) -> Selection:
        """A later layer: a `select` starts over (earlier select, extend_select and ignore no longer
        apply); an `ignore` or `extend_select` alone adds to the earlier ones."""
        if select is not None:
            return Selection(tuple(select), tuple(ignore), tuple(extend_select))
        return Selection(self.select, (*self.ignore, *ignore), (*self.extend_select, *extend_select))


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
    from forge_tools.check.codes import CODES

    if any(code.startswith(part) for code in CODES):
        return None
    return (f"no finding code is or starts with {part!r}{_close_codes(part)} (`forge-tools rule --all` "
            "lists them)")


def _close_codes(part: str) -> str:
    """`; did you mean FT104?` for a code that is not one, or ''."""
    from difflib import get_close_matches

    from forge_tools.check.codes import CODES

    close = get_close_matches(part, list(CODES), n=3, cutoff=0.6)
    return f"; did you mean {' or '.join(close)}?" if close else ""


#: the keys of a `check` settings section, wherever it is written
SETTINGS = ("select", "extend_select", "ignore")

Layer = tuple[list[str] | None, list[str], list[str]]  # (select, ignore, extend_select)


def config_layers(trees: Iterable[Node], project_root: Path) -> list[Layer]:
    """The `check` settings of pyproject.toml `[tool.forge-tools.check]`, then of each config source in
    load order (a valid one: schema errors are findings of their own). A setting that is not known, or
    a code that no finding has, is a ConfigError at its file:line:col (exit 3): a misspelt `ignor` or
    `FT1O5` would otherwise report what the person meant to leave out, or hide what they meant to see."""
    layers: list[Layer] = []
    section = _pyproject_section(project_root / "pyproject.toml")
    if section is not None:
        layers.append(_layer(section, "[tool.forge-tools.check]"))
    for tree in trees:
        node = tree.get("check")
        if node is not None and node.is_map:
            layers.append(_layer(node, "check"))
    return layers


def _pyproject_section(path: Path) -> Node | None:
    """`[tool.forge-tools.check]` of the project's pyproject.toml, located, or None when there is none.
    A pyproject.toml that cannot be parsed is not forge's to report, unless it names forge-tools."""
    if not path.is_file():
        return None
    try:
        text = read_regular_text(path)
    except (OSError, UnicodeDecodeError):
        return None
    if "forge-tools" not in text:
        return None  # most pyprojects: no need to parse them (nor to import the TOML reader)
    from forge_tools.config.formats.toml_format import parse_toml
    from forge_tools.errors import ConfigError

    try:
        tree = parse_toml(text, Origin("file", str(path)))
    except ConfigError as exc:
        if "[tool.forge-tools" in text or "forge-tools" in (exc.message or ""):
            raise ConfigError(f"{exc.message} (pyproject.toml holds [tool.forge-tools] settings of check, "
                              "which cannot be read until it parses)", exc.origin, code="FT001") from None
        return None
    tool = tree.get("tool")
    ours = tool.get("forge-tools") if tool is not None else None
    if ours is None:
        return None
    if not ours.is_map:
        raise ConfigError("[tool.forge-tools] must be a table (its `check` table holds the settings of "
                          "check)", ours.origin, code="FT002")
    for key, child in ours.items():
        if key != "check":
            raise _unknown_setting(key, ("check",), child, "[tool.forge-tools]")
    section = ours.get("check")
    if section is not None and not section.is_map:
        raise ConfigError(f"[tool.forge-tools.check] must be a table of settings ({', '.join(SETTINGS)})",
                          section.origin, code="FT002")
    return section


def _unknown_setting(key: str, known: Sequence[str], node: Node, where: str) -> Exception:
    from difflib import get_close_matches

    from forge_tools.errors import ConfigError

    close = get_close_matches(key, list(known), n=1, cutoff=0.5)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    return ConfigError(f"unknown setting {key!r} in {where}{hint}; the settings are {', '.join(known)}",
                       node.key_origin or node.origin, code="FT004")


def _layer(section: Node, where: str) -> Layer:
    """One `check` section's (select, ignore, extend_select), every key and code checked."""
    from forge_tools.errors import ConfigError

    for key, child in section.items():
        if key not in SETTINGS:
            raise _unknown_setting(key, SETTINGS, child, where)

    def codes(key: str) -> list[str] | None:
        node = section.get(key)
        if node is None:
            return None
        if not node.is_list:
            raise ConfigError(f"{where} {key} must be a list of finding codes or prefixes, e.g. "
                              f"{key} = [\"FT105\"]", node.origin, code="FT002")
        found: list[str] = []
        for item in node.value:
            value = item.value
            if not isinstance(value, str) or not _CODE.fullmatch(value.strip().upper()):
                close = _close_codes(value.strip().upper()) if isinstance(value, str) else ""
                raise ConfigError(f"{where} {key}: {value!r} is not a finding code or prefix (e.g. FT104, "
                                  f"FT1, FT){close}", item.origin, code="FT002")
            code = value.strip().upper()
            unknown = _unknown_code(code)
            if unknown:
                raise ConfigError(f"{where} {key}: {unknown}", item.origin, code="FT004")
            found.append(code)
        return found

    return codes("select"), codes("ignore") or [], codes("extend_select") or []


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
    stray: str = ""  # words after the codes that are no code: a reason written without `--`

    @property
    def origin(self) -> Origin:
        return Origin("file", self.path, self.line, self.column)

    def covers(self, finding: Finding) -> bool:
        o = finding.origin
        return (not self.stray and o is not None and o.kind == "file" and o.line in self.lines
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
        words = [w for w in re.split(r"[\s,]+", match.group("codes").strip()) if w]
        first_word = next((i for i, w in enumerate(words) if not _CODE.fullmatch(w.upper())), len(words))
        codes = tuple(w.upper() for w in words[:first_word])
        stray = " ".join(words[first_word:]) if codes else ""
        reason = (match.group("reason") or "").strip() or None
        found.append(Suppression(str(path), line, column, codes, reason, (line, line + 1) if alone
                                 else (line,), stray))
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
        if s.stray:
            reason = f"{s.stray} -- {s.reason}" if s.reason else s.stray
            kept.append(_unused(s, f"the suppression's reason must follow `--`: write `forge-tools: ignore "
                                   f"{' '.join(s.codes)} -- {reason}`; as written, {s.stray!r} reads as "
                                   "finding codes, so the comment suppresses nothing",
                                hint="put ` -- ` between the codes and the reason"))
        elif not s.codes:
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


def _unused(s: Suppression, message: str,
            hint: str = "remove the comment, or fix the code it names") -> Finding:
    return Finding(UNUSED_SUPPRESSION, "warning", message, hint, s.origin)
