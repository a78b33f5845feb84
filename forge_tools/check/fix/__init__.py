"""`check --fix`: apply the fixes `check` proposes where they are safe, editing config files in place.

Fixed codes: FT101 (rename a misspelt permission when the did-you-mean is unique), FT104 (move the
trailing `"*": "deny"` first in its map), FT107 (a legacy `tools` map becomes `permission` when the
level has no `permission` to merge with) and FT110 (`write` and the other edit-family names become
`edit`). A rename whose new key already exists in the map is never applied (it would repeat a key).

Each fix is an `Edit` on a key path. A format-preserving writer per format (`writers.py`) changes the
text; before anything is written, the new text is parsed again and its data must equal the old data with
the same edits applied, so a writer can never change more than the fix says (else the file is left as
it was and the fix is reported as not applied). Files are written whole (temp file and rename).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, NamedTuple

from forge_tools.origin import format_key_path
from forge_tools.report.findings import CheckReport, Finding

FIXABLE = ("FT101", "FT104", "FT107", "FT110")


class Edit(NamedTuple):
    """One change at a key path: `rename` the last key to `new`, `first` (move the entry first in its
    map), or `tools` (the `tools` map at `keys` becomes `permission`: true -> allow, false -> deny)."""

    kind: str
    keys: tuple[str, ...]
    new: str = ""
    label: str = ""

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
    from forge_tools.permission.names import permission_name

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
    """The edits `--fix` makes in one config file, and the fixes it had to skip there."""

    path: Path
    edits: list[Edit] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)


def _rename_keys(keys: tuple[str, ...], name: str) -> tuple[str, ...] | None:
    """The key path of the map key naming permission `name` (`name: action` or `name: {pattern: ...}`)."""
    if keys and keys[-1] == name:
        return keys
    if len(keys) >= 2 and keys[-2] == name:
        return keys[:-1]
    return None


def edit_for(finding: Finding) -> Edit | None:
    """The safe edit for a finding, or None (not fixable, or not safe here)."""
    from forge_tools.permission.names import EDIT_FAMILY

    o = finding.origin
    if o is None or o.kind != "file" or not o.path or not o.key_path:
        return None
    keys = o.key_path
    if finding.code == "FT101":
        suggestions = finding.data.get("suggestions") or []
        name = finding.data.get("name")
        if len(suggestions) != 1 or finding.related or not isinstance(name, str):
            return None
        at = _rename_keys(keys, name)
        return Edit("rename", at, suggestions[0], f"renamed {name!r} to {suggestions[0]!r}") if at else None
    if finding.code == "FT110":
        for name in EDIT_FAMILY - {"edit"}:
            at = _rename_keys(keys, name)
            if at is not None and not finding.related:
                return Edit("rename", at, "edit", f"renamed {name!r} to 'edit'")
        return None
    if finding.code == "FT104":
        same_map = all(r.origin.kind == "file" and r.origin.path == o.path
                       and r.origin.key_path[:-1] == keys[:-1] for r in finding.related)
        if keys[-1] != "*" or not same_map:
            return None
        return Edit("first", keys, label=f"moved {format_key_path(keys)} = deny first in its map")
    if finding.code == "FT107":
        if keys[-1] != "tools" or finding.data.get("merges_with_permission", True):
            return None
        return Edit("tools", keys, label=f"replaced {format_key_path(keys)} with "
                                         f"{format_key_path((*keys[:-1], 'permission'))}")
    return None


def plan(report: CheckReport) -> list[FilePlan]:
    """The edits per file, in a safe order (renames and moves, then tools maps)."""
    plans: dict[str, FilePlan] = {}
    for finding in report.sorted_findings():
        if finding.code not in FIXABLE:
            continue
        edit = edit_for(finding)
        if edit is None:
            continue
        assert finding.origin is not None and finding.origin.path is not None
        path = Path(finding.origin.path)
        file_plan = plans.setdefault(str(path.resolve()), FilePlan(path))
        if edit not in file_plan.edits:
            file_plan.edits.append(edit)
    for file_plan in plans.values():
        file_plan.edits.sort(key=lambda e: e.kind == "tools")
    return list(plans.values())


def apply_fixes(report: CheckReport, write: bool, stream: IO[str]) -> int:
    """Apply (or with `write=False` print as a diff) the safe fixes; the number of edits made. What was
    fixed goes to stderr (stdout stays the report's), and so does what could not be fixed safely."""
    from forge_tools.check.fix.writers import WRITERS, WriterError
    from forge_tools.config.formats import config_suffixes, format_of, parse_text
    from forge_tools.origin import Origin
    from forge_tools.tools.builtins._files import read_text, unified_diff, write_atomic

    made = 0
    root = report.project_root
    for file_plan in plan(report):
        path = file_plan.path
        shown = _shown(path, root)
        if not _inside(path, root):
            _say(f"not fixed: {shown}: outside the project ({root}); --fix edits only project files")
            continue
        if path.suffix.lower() not in config_suffixes():
            _say(f"not fixed: {shown}: only JSON/JSONC, YAML and TOML files are edited")
            continue
        fmt = format_of(path)
        try:
            old = read_text(path)
            new = old
            expected = parse_text(old.removeprefix("\ufeff"), fmt, Origin("file", str(path))).plain()
            for edit in file_plan.edits:
                new = WRITERS[fmt](new, edit)
                expected = edit.apply_plain(expected)
            got = parse_text(new.removeprefix("\ufeff"), fmt, Origin("file", str(path))).plain()
        except (OSError, UnicodeDecodeError, KeyError, WriterError) as exc:
            _say(f"not fixed: {shown}: {exc}")
            continue
        except Exception as exc:  # a writer's library refused the file: leave it as it was
            from forge_tools.errors import ConfigError

            if not isinstance(exc, ConfigError):
                raise
            _say(f"not fixed: {shown}: the edited text would not parse ({exc.one_line()})")
            continue
        if got != expected or _dumps(got) != _dumps(expected):
            _say(f"not fixed: {shown}: the file's layout could not be kept while editing it")
            continue
        if new == old:
            continue
        made += len(file_plan.edits)
        if write:
            write_atomic(path, new)
            for edit in file_plan.edits:
                _say(f"fixed {shown}: {edit.label}")
        else:
            stream.write(unified_diff(old, new, shown))
    return made


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


def _say(line: str) -> None:
    sys.stderr.write(f"forge-tools: {line}\n")
