"""`apply_patch`: add, update, move and delete files with one patch, all or nothing.

The patch format (documented here and in the tool description):

    *** Begin Patch
    *** Add File: path/new.txt          every body line starts with `+`
    +first line
    *** Update File: path/old.py        optionally followed by `*** Move to: path/renamed.py`
    @@ def anchor():                    a hunk; text after `@@` (optional) is a line to find first
     context line                       ` ` kept, `-` removed, `+` added
    -old line
    +new line
    *** End of File                     optional: the hunk must match at the end of the file
    *** Delete File: path/gone.txt
    *** End Patch

Paths are relative to the project root (or absolute). Each hunk's context and `-` lines must appear in
the file, in order, after the previous hunk; they are matched exactly, then ignoring trailing
whitespace, then ignoring surrounding whitespace. The whole patch is parsed while the arguments are
validated, every new file content is computed in memory, and only then is anything written; a failure
while writing restores the files already changed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, model_validator

from forge_tools.tools.builtins._common import (
    external_request,
    path_patterns,
    posix,
    relative_to_root,
    resolve_path,
)
from forge_tools.tools.builtins._files import read_text, unified_diff, write_atomic
from forge_tools.tools.contract import PermissionRequest, Tool, ToolContext, ToolResult

BEGIN = "*** Begin Patch"
END = "*** End Patch"
ADD = "*** Add File: "
UPDATE = "*** Update File: "
DELETE = "*** Delete File: "
MOVE = "*** Move to: "
EOF_MARK = "*** End of File"

DESCRIPTION = """Apply a patch that adds, updates, moves or deletes files; all changes or none.

Format (paths relative to the project root, or absolute):

*** Begin Patch
*** Add File: src/new.py
+line of the new file
*** Update File: src/app.py
*** Move to: src/main.py
@@ def handler():
 unchanged context line
-line to remove
+line to add
*** Delete File: src/old.py
*** End Patch

- `*** Move to:` is optional and renames the updated file.
- A hunk starts with `@@`, optionally followed by a line to locate first (a def or class line).
  Lines start with ` ` (context), `-` (remove) or `+` (add). Give about 3 lines of context so the
  place is unambiguous; hunks of one file must be in file order.
- Every file is checked before anything is written; if one hunk does not apply, nothing changes."""


class PatchError(ValueError):
    """A patch that cannot be parsed or applied; the message names the line or the file."""


@dataclass
class Hunk:
    """One `@@` section of an update: its anchor line, the lines removed and added."""

    anchor: str | None
    old: list[str] = field(default_factory=list)
    new: list[str] = field(default_factory=list)
    at_end: bool = False


@dataclass
class FileOp:
    """One file's operation in a patch: add, update (with hunks, maybe a move) or delete."""

    kind: Literal["add", "update", "delete"]
    path: str
    move_to: str | None = None
    content: str = ""  # for add
    hunks: list[Hunk] = field(default_factory=list)


def parse_patch(text: str) -> list[FileOp]:
    """The operations of a patch; raises PatchError with the 1-based line of the problem."""
    lines = text.replace("\r\n", "\n").split("\n")
    while lines and not lines[-1].strip():
        lines.pop()
    start = 0
    while start < len(lines) and not lines[start].strip():
        start += 1
    if start >= len(lines) or lines[start].strip() != BEGIN:
        raise PatchError(f"the patch must start with '{BEGIN}'")
    if lines[-1].strip() != END:
        raise PatchError(f"the patch must end with '{END}'")
    ops: list[FileOp] = []
    i = start + 1
    last = len(lines) - 1
    while i < last:
        line = lines[i]
        where = f"patch line {i + 1}"
        if line.startswith(ADD):
            op = FileOp("add", _path(line[len(ADD):], where))
            body: list[str] = []
            i += 1
            while i < last and not lines[i].startswith("*** "):
                if not lines[i].startswith("+"):
                    raise PatchError(f"patch line {i + 1}: lines of an added file must start with '+'")
                body.append(lines[i][1:])
                i += 1
            op.content = "\n".join(body) + ("\n" if body else "")
            ops.append(op)
        elif line.startswith(DELETE):
            ops.append(FileOp("delete", _path(line[len(DELETE):], where)))
            i += 1
        elif line.startswith(UPDATE):
            op = FileOp("update", _path(line[len(UPDATE):], where))
            i += 1
            if i < last and lines[i].startswith(MOVE):
                op.move_to = _path(lines[i][len(MOVE):], f"patch line {i + 1}")
                i += 1
            i = _parse_hunks(lines, i, last, op)
            if not op.hunks and op.move_to is None:
                raise PatchError(f"{where}: update of {op.path} has no hunks")
            ops.append(op)
        elif not line.strip():
            i += 1
        else:
            raise PatchError(f"{where}: expected '*** Add File:', '*** Update File:', '*** Delete File:' "
                             f"or '{END}', got {line[:60]!r}")
    if not ops:
        raise PatchError("the patch changes no files")
    return ops


def _path(raw: str, where: str) -> str:
    path = raw.strip()
    if not path:
        raise PatchError(f"{where}: missing file path")
    return path


def _parse_hunks(lines: list[str], i: int, last: int, op: FileOp) -> int:
    hunk: Hunk | None = None
    while i < last:
        line = lines[i]
        if line.startswith(EOF_MARK):
            if hunk is None:
                raise PatchError(f"patch line {i + 1}: '{EOF_MARK}' outside a hunk")
            hunk.at_end = True
            i += 1
            continue
        if line.startswith("*** "):
            break
        if line.startswith("@@"):
            anchor = line[2:].strip()
            hunk = Hunk(anchor or None)
            op.hunks.append(hunk)
        else:
            if hunk is None:  # a body without a leading @@ is one hunk with no anchor
                hunk = Hunk(None)
                op.hunks.append(hunk)
            tag, body = (line[:1], line[1:]) if line else (" ", "")
            if tag == " ":
                hunk.old.append(body)
                hunk.new.append(body)
            elif tag == "-":
                hunk.old.append(body)
            elif tag == "+":
                hunk.new.append(body)
            else:
                raise PatchError(f"patch line {i + 1}: hunk lines must start with ' ', '-' or '+', "
                                 f"got {line[:60]!r}")
        i += 1
    for h in op.hunks:
        if not h.old and not h.new:
            raise PatchError(f"update of {op.path}: empty hunk")
    return i


def _find(lines: list[str], wanted: list[str], start: int, at_end: bool) -> int:
    """Index where `wanted` occurs at or after `start` (exact, then rstrip, then strip); -1 if none."""
    for norm in (lambda s: s, str.rstrip, str.strip):
        target = [norm(w) for w in wanted]
        candidates = [len(lines) - len(wanted)] if at_end else range(start, len(lines) - len(wanted) + 1)
        for idx in candidates:
            if idx >= start and [norm(x) for x in lines[idx:idx + len(wanted)]] == target:
                return idx
    return -1


def apply_hunks(content: str, hunks: list[Hunk], name: str) -> str:
    """The content after all hunks, in order; raises PatchError naming the hunk that does not fit."""
    ends_with_newline = content.endswith("\n")
    lines = content.split("\n")
    if ends_with_newline:
        lines.pop()
    cursor = 0
    for number, hunk in enumerate(hunks, start=1):
        if hunk.anchor is not None:
            found = _find(lines, [hunk.anchor], cursor, False)
            if found == -1:
                raise PatchError(f"{name}: hunk {number}: the line {hunk.anchor!r} after @@ was not found")
            cursor = found
        if not hunk.old:
            # At the end of the file, or right after the anchor line.
            at = len(lines) if hunk.at_end or hunk.anchor is None else cursor + 1
            lines[at:at] = hunk.new
            cursor = at + len(hunk.new)
            continue
        at = _find(lines, hunk.old, cursor, hunk.at_end)
        if at == -1:
            preview = "\n".join(hunk.old[:3])
            raise PatchError(f"{name}: hunk {number} does not match the file; expected these lines "
                             f"(context and '-' lines) in order:\n{preview}")
        lines[at:at + len(hunk.old)] = hunk.new
        cursor = at + len(hunk.new)
    text = "\n".join(lines)
    return text + "\n" if (ends_with_newline or (not content and lines)) else text


class ApplyPatchArgs(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)

    patchText: Annotated[str, Field(description="The full patch, from '*** Begin Patch' to '*** End Patch'.")]
    _ops: list[FileOp] = PrivateAttr(default_factory=list)

    @model_validator(mode="after")
    def _parse(self) -> ApplyPatchArgs:
        try:
            self._ops = parse_patch(self.patchText)
        except PatchError as exc:
            raise ValueError(str(exc)) from exc
        return self

    @property
    def ops(self) -> list[FileOp]:
        return self._ops


def _touched(ops: list[FileOp]) -> list[str]:
    out: list[str] = []
    for op in ops:
        out.append(op.path)
        if op.move_to:
            out.append(op.move_to)
    return list(dict.fromkeys(out))


def permission_requests(args: ApplyPatchArgs, ctx: ToolContext) -> list[PermissionRequest]:
    """One `edit` request listing every touched path, after any external_directory requests."""
    paths = [resolve_path(p, ctx) for p in _touched(args.ops)]
    requests: list[PermissionRequest] = []
    seen: set[str] = set()
    for path in paths:
        for req in external_request(path, ctx):
            if req.patterns[0] not in seen:
                seen.add(req.patterns[0])
                requests.append(req)
    def rel(path: Path) -> str:
        return relative_to_root(path, ctx)

    rels = tuple(dict.fromkeys(r for p in paths for r in path_patterns(p, rel)))
    requests.append(PermissionRequest("edit", rels, rels, {"files": [posix(p) for p in paths]}))
    return requests


@dataclass
class Planned:
    """One file's planned final state: new text, or None for deletion."""

    path: Path
    new: str | None
    old: str | None  # None when the file did not exist


def plan(ops: list[FileOp], ctx: ToolContext) -> tuple[list[Planned], list[str]]:
    """Compute every final file state in memory; raises PatchError before anything is written."""
    planned: dict[Path, Planned] = {}
    summary: list[str] = []

    def current(path: Path) -> str | None:
        if path in planned:
            return planned[path].new
        if not path.exists():
            return None
        if path.is_dir():
            raise PatchError(f"{posix(path)} is a directory")
        try:
            return read_text(path)
        except UnicodeDecodeError as exc:
            raise PatchError(f"{posix(path)} is not UTF-8 text") from exc

    def original(path: Path) -> str | None:
        if path in planned:
            return planned[path].old
        return current(path)

    for op in ops:
        path = resolve_path(op.path, ctx)
        rel = relative_to_root(path, ctx)
        if op.kind == "add":
            if current(path) is not None:
                raise PatchError(f"cannot add {rel}: it already exists (use '*** Update File:')")
            planned[path] = Planned(path, op.content, original(path))
            summary.append(f"A {rel}")
        elif op.kind == "delete":
            if current(path) is None:
                raise PatchError(f"cannot delete {rel}: it does not exist")
            planned[path] = Planned(path, None, original(path))
            summary.append(f"D {rel}")
        else:
            text = current(path)
            if text is None:
                raise PatchError(f"cannot update {rel}: it does not exist")
            new_text = apply_hunks(text, op.hunks, rel) if op.hunks else text
            if op.move_to:
                dest = resolve_path(op.move_to, ctx)
                if dest != path and current(dest) is not None:
                    raise PatchError(f"cannot move {rel} to {relative_to_root(dest, ctx)}: it already exists")
                old_dest = original(dest)
                planned[path] = Planned(path, None, original(path))
                planned[dest] = Planned(dest, new_text, old_dest)
                summary.append(f"R {rel} -> {relative_to_root(dest, ctx)}")
            else:
                planned[path] = Planned(path, new_text, original(path))
                summary.append(f"M {rel}")
    return list(planned.values()), summary


def commit(changes: list[Planned]) -> None:
    """Write every planned state; on a failure, put back what was already changed, then re-raise."""
    done: list[Planned] = []
    try:
        for change in changes:
            if change.new is None:
                if change.path.exists():
                    change.path.unlink()
            else:
                write_atomic(change.path, change.new)
            done.append(change)
    except OSError:
        for change in reversed(done):
            try:
                if change.old is None:
                    change.path.unlink(missing_ok=True)
                else:
                    write_atomic(change.path, change.old)
            except OSError:
                pass
        raise


def execute(args: ApplyPatchArgs, ctx: ToolContext) -> ToolResult:
    try:
        changes, summary = plan(args.ops, ctx)
    except PatchError as exc:
        return ToolResult(f"The patch was not applied (no file changed): {exc}", title="apply_patch",
                          is_error=True)
    try:
        commit(changes)
    except OSError as exc:
        return ToolResult(f"The patch was not applied (changes rolled back): {exc.strerror or exc}",
                          title="apply_patch", is_error=True)
    diffs = []
    for change in changes:
        rel = relative_to_root(change.path, ctx)
        diffs.append(unified_diff(change.old or "", change.new or "", rel))
    files = [posix(c.path) for c in changes]
    return ToolResult(
        "Applied the patch:\n" + "\n".join(summary),
        title=f"{len(summary)} file{'s' if len(summary) != 1 else ''}",
        metadata={"files": files, "diff": "".join(diffs)},
    )


TOOL = Tool(
    id="apply_patch",
    description=DESCRIPTION,
    parameters=ApplyPatchArgs,
    execute=execute,
    permission_requests=permission_requests,
)
