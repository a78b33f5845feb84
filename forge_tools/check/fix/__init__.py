"""`check --fix`: apply the fixes `check` proposes where they are safe, editing config files in place.

Fixed codes: those whose record (`forge_tools/check/rules/`) names a fixer, one function below each:
FT101 (rename a misspelt permission when the did-you-mean is unique), FT104 (move the trailing
`"*": "deny"` first in its map), FT107 (a legacy `tools` map becomes `permission` when the level has
no `permission` to merge with) and FT110 (`write` and the other edit-family names become `edit`). A
rename whose new key already exists in the map is never applied (it would repeat a key).

Each fix is an `Edit` on a key path. A format-preserving writer per format (`writers.py`) changes the
text one edit at a time; after each edit the new text is parsed again and its data must equal the old
data with that edit applied, so a writer can never change more than the fix says. An edit that cannot
be made (its new key is already there, or the layout cannot be kept) is skipped and said precisely; the
others are made. The edited texts are checked again until no fix is left (a rename can make a new
finding, e.g. FT104 for the renamed map), all in memory; only then are the files written, each whole
(temp file and rename), or shown as one diff with `--diff`.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from forge_tools.named_tuple import NamedTuple
from forge_tools.origin import format_key_path
from forge_tools.report.findings import CheckReport, Finding

if TYPE_CHECKING:
    from collections.abc import Callable



def fixable() -> frozenset[str]:
    """The codes whose records name a fixer."""
    from forge_tools.check.codes import CODES

    return frozenset(code for code, info in CODES.items() if info.fixer)


#: rounds of check-and-fix before giving up on a fixed point (each round is a whole `check`)
MAX_ROUNDS = 8


class Edit(NamedTuple):
    """One change at a key path: `rename` the last key to `new`, `first` (move the entry first in its
    map), or `tools` (the `tools` map at `keys` becomes `permission`: true -> allow, false -> deny)."""

    kind: str
    keys: tuple[str, ...]
    new: str = ""
    label: str = ""
    code: str = ""
    where: str = ""  # line:col of the finding that asked for it

    @property
    def identity(self) -> tuple[str, tuple[str, ...], str]:
        """What the edit does (two findings may ask for the same edit from different places)."""
        return self.kind, self.keys, self.new

    def apply_plain(self, data: Any) -> Any:
        """The edit on plain data (dicts keep order): what the file must read as afterwards."""
        parent = _plain_at(data, self.keys[:-1])
        last = self.keys[-1]
        if self.kind == "rename":
            _rename_in(parent, last, self.new)
        elif self.kind == "first":
            value = parent.pop(last)
            items = list(parent.items())
            parent.clear()
            parent[last] = value
            parent.update(items)
        elif self.kind == "tools":
            converted = tools_as_permission(parent[last])
            parent[last] = converted
            _rename_in(parent, last, "permission")
        return data


def tools_as_permission(tools: Any) -> dict[str, str]:
    """A legacy `tools` map's rules in the `permission` form; WriterError when that is not exact."""
    from forge_tools.check.fix.writers import WriterError
    from forge_tools.names import permission_name

    if not isinstance(tools, dict) or not all(isinstance(v, bool) for v in tools.values()):
        raise WriterError("the `tools` map has values other than true/false")
    converted = {permission_name(k): "allow" if v else "deny" for k, v in tools.items()}
    if len(converted) != len(tools):
        raise WriterError("two `tools` names are the same permission (the edit family); merge them by hand")
    return converted


def _plain_at(data: Any, keys: Sequence[str]) -> dict[str, Any]:
    for key in keys:
        data = data[key]
    if not isinstance(data, dict):
        raise KeyError(keys)
    return data


def _rename_in(parent: dict[str, Any], old: str, new: str) -> None:
    items = [(new if k == old else k, v) for k, v in parent.items()]
    parent.clear()
    parent.update(items)


@dataclass
class FilePlan:
    """The edits `--fix` makes in one config file."""

    path: Path
    edits: list[Edit] = field(default_factory=list)


def _rename_keys(keys: tuple[str, ...], name: str) -> tuple[str, ...] | None:
    """The key path of the map key naming permission `name` (`name: action` or `name: {pattern: ...}`)."""
    if keys and keys[-1] == name:
        return keys
    if len(keys) >= 2 and keys[-2] == name:
        return keys[:-1]
    return None


def edit_for(finding: Finding) -> Edit | None:
    """The safe edit for a finding, or None (not fixable, or not safe here)."""
    edit = _edit_for(finding)
    if edit is None or finding.origin is None:
        return None
    return edit._replace(code=finding.code, where=f"{finding.origin.line}:{finding.origin.column}")


def _edit_for(finding: Finding) -> Edit | None:
    """The edit the code's fixer (named in its record) proposes for a finding at a config key."""
    from forge_tools.check.codes import CODES
    from forge_tools.check.rules import resolve

    info = CODES.get(finding.code)
    o = finding.origin
    if info is None or not info.fixer or o is None or o.kind != "file" or not o.path or not o.key_path:
        return None
    fixer = resolve(info.fixer)
    return fixer(finding)  # type: ignore[operator]


def rename_permission(finding: Finding) -> Edit | None:
    """FT101: rename a misspelt permission when the did-you-mean is unique."""
    assert finding.origin is not None
    suggestions = finding.data.get("suggestions") or []
    name = finding.data.get("name")
    if len(suggestions) != 1 or finding.related or not isinstance(name, str):
        return None
    at = _rename_keys(finding.origin.key_path, name)
    return Edit("rename", at, suggestions[0], f"renamed {name!r} to {suggestions[0]!r}") if at else None


def rename_edit_family(finding: Finding) -> Edit | None:
    """FT110: `write`, `apply_patch`, `multiedit` or `patch` becomes `edit`."""
    from forge_tools.names import EDIT_FAMILY

    assert finding.origin is not None
    for name in sorted(EDIT_FAMILY - {"edit"}):
        at = _rename_keys(finding.origin.key_path, name)
        if at is not None and not finding.related:
            return Edit("rename", at, "edit", f"renamed {name!r} to 'edit'")
    return None


def deny_first(finding: Finding) -> Edit | None:
    """FT104: move the trailing `"*": "deny"` first in its map (when the allows are in the same map)."""
    o = finding.origin
    assert o is not None
    keys = o.key_path
    same_map = all(r.origin.kind == "file" and r.origin.path == o.path
                   and r.origin.key_path[:-1] == keys[:-1] for r in finding.related)
    if keys[-1] != "*" or not same_map:
        return None
    return Edit("first", keys, label=f"moved {format_key_path(keys)} = deny first in its map")


def tools_to_permission(finding: Finding) -> Edit | None:
    """FT107: a legacy `tools` map becomes `permission` when its level has no `permission` to merge."""
    assert finding.origin is not None
    keys = finding.origin.key_path
    if keys[-1] != "tools" or finding.data.get("merges_with_permission", True):
        return None
    return Edit("tools", keys, label=f"replaced {format_key_path(keys)} with "
                                     f"{format_key_path((*keys[:-1], 'permission'))}")


def plan(report: CheckReport) -> list[FilePlan]:
    """The edits per file, in a safe order (renames and moves, then tools maps)."""
    plans: dict[str, FilePlan] = {}
    for finding in report.sorted_findings():
        if finding.code not in fixable():
            continue
        edit = edit_for(finding)
        if edit is None:
            continue
        assert finding.origin is not None and finding.origin.path is not None
        path = Path(finding.origin.path)
        file_plan = plans.setdefault(str(path.resolve()), FilePlan(path))
        if edit.identity not in {e.identity for e in file_plan.edits}:
            file_plan.edits.append(edit)
    for file_plan in plans.values():
        file_plan.edits.sort(key=lambda e: e.kind == "tools")
    return list(plans.values())


class FixOutcome(NamedTuple):
    """What `--fix` did: the edits made (or, with `--diff`, that would be), and the report of the
    fixed files."""

    made: int
    report: CheckReport


@dataclass
class _FileState:
    path: Path
    shown: str
    original: str
    text: str
    made: list[Edit] = field(default_factory=list)
    created: dict[tuple[tuple[str, ...], str], Edit] = field(default_factory=dict)


def apply_fixes(check: Callable[[], CheckReport], write: bool, stream: IO[str]) -> FixOutcome:
    """Check, fix what is safe, and check the edited texts again until nothing is left to fix; then
    write the files (or with `write=False` print one diff per file). What was fixed goes to stderr
    (stdout stays the report's), and so does every fix that could not be made, with why."""
    from forge_tools.config.files import pending_texts
    from forge_tools.tools.builtins._files import unified_diff, write_atomic

    files: dict[str, _FileState] = {}
    refused: set[object] = set()  # files and edits already said to be not fixable
    report = check()
    for _round in range(MAX_ROUNDS):
        progressed = False
        for file_plan in plan(report):
            state = _state_for(file_plan.path, report.project_root, files, refused)
            if state is None:
                continue
            for edit in file_plan.edits:
                if (state.path, edit.identity) in refused:
                    continue
                problem = _apply_one(state, edit)
                if problem is not None:
                    refused.add((state.path, edit.identity))
                    _say(f"not fixed: {state.shown}:{problem}")
                else:
                    progressed = True
        if not progressed:
            break
        with pending_texts({s.path: s.text for s in files.values()}):
            report = check()
    changed = [s for s in files.values() if s.text != s.original]
    if not changed and not refused:
        _say(_nothing_fixed(report))
    for state in changed:
        if write:
            write_atomic(state.path, state.text)
            for edit in state.made:
                _say(f"fixed {state.shown}: {edit.label}")
        else:
            stream.write(unified_diff(state.original, state.text, state.shown))
    return FixOutcome(sum(len(s.made) for s in changed), report)


def _state_for(path: Path, root: Path, files: dict[str, _FileState],
               refused: set[object]) -> _FileState | None:
    from forge_tools.config.formats import config_suffixes
    from forge_tools.tools.builtins._files import read_text

    key = str(path.resolve())
    if key in files:
        return files[key]
    if key in refused:
        return None
    refused.add(key)
    shown = _shown(path, root)
    if not _inside(path, root):
        _say(f"not fixed: {shown}: outside the project ({root}); --fix edits only project files")
        return None
    if path.suffix.lower() not in config_suffixes():
        _say(f"not fixed: {shown}: only JSON/JSONC, YAML and TOML files are edited")
        return None
    try:
        text = read_text(path)
    except (OSError, UnicodeDecodeError) as exc:
        _say(f"not fixed: {shown}: {exc}")
        return None
    files[key] = _FileState(path, shown, text, text)
    return files[key]


def _apply_one(state: _FileState, edit: Edit) -> str | None:
    """Make one edit in the file's current text; None when made, else why not (the text unchanged)."""
    from forge_tools.check.fix.writers import WRITERS, KeyExists, WriterError
    from forge_tools.config.formats import format_of, parse_text
    from forge_tools.errors import ConfigError, ForgeToolsError
    from forge_tools.origin import Origin

    fmt = format_of(state.path)
    what = f"{edit.where}: {edit.code}'s fix ({edit.label or edit.kind})"
    base = Origin("file", str(state.path))
    try:
        expected = edit.apply_plain(parse_text(state.text.removeprefix("\ufeff"), fmt, base).plain())
        new = WRITERS[fmt](state.text, edit)
        got = parse_text(new.removeprefix("\ufeff"), fmt, base).plain()
    except KeyExists as exc:
        earlier = state.created.get((edit.keys[:-1], exc.key))
        if earlier is None:
            return f"{what}: {exc}"
        return (f"{what} conflicts with {earlier.code}'s fix at {earlier.where} ({earlier.label}): both "
                f"make the key {format_key_path((*edit.keys[:-1], exc.key))}; merge the two by hand")
    except (KeyError, WriterError) as exc:
        return f"{what}: {exc}"
    except ConfigError as exc:
        return f"{what}: the edited text would not parse ({exc.one_line()})"
    except ForgeToolsError as exc:  # json-five shadowed: nothing can be edited in a JSON file
        return f"{what}: {exc.one_line()}"
    if got != expected or _dumps(got) != _dumps(expected):
        return f"{what}: the file's layout could not be kept while editing it"
    if new != state.text:
        state.text = new
        state.made.append(edit)
        if edit.kind in ("rename", "tools"):
            state.created[(edit.keys[:-1], edit.new or "permission")] = edit
    return None


def _dumps(data: Any) -> str:
    """Order-sensitive comparison (dict equality ignores key order, and order is meaning here)."""
    import json

    return json.dumps(data, sort_keys=False, default=str)


def _inside(path: Path, root: Path) -> bool:
    """The file, symlinks resolved, is inside the project (a global config or a link out is not)."""
    try:
        path.resolve().relative_to(root.resolve())
    except (ValueError, OSError):
        return False
    return True


def _shown(path: Path, root: Path) -> str:
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except (ValueError, OSError):
        return str(path)


def _nothing_fixed(report: CheckReport) -> str:
    """The one line `--fix` says when no edit was made: no finding, or none with a safe fix."""
    from forge_tools.check.codes import CODES

    fixable = ", ".join(code for code, info in CODES.items() if info.fixer)
    if not report.findings:
        return "--fix: nothing to fix (no findings)"
    codes = ", ".join(sorted({f.code for f in report.findings}))
    return (f"--fix: no fix applies: none of the findings here ({codes}) has a safe fix; --fix fixes "
            f"{fixable} in forge/opencode config files, the others (and every Claude Code, Codex CLI and "
            "Gemini CLI file) are fixed by hand as each finding's `fix:` says")


def _say(line: str) -> None:
    sys.stderr.write(f"forge-tools: {line}\n")
