"""`read`: a text file, a window of lines at a time, numbered (SPEC 5.4 read caps).

The caps keep one call from flooding the model: at most `limit` lines (2000 by default) from a 1-based
`offset`, lines longer than 2000 characters cut, at most 50 KiB per call, and a closing note that says
what was shown and how to continue, in opencode 1.18.33's words (recorded: tests/compat/facts/outputs).
Binary files are refused rather than dumped as noise.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, BinaryIO

from pydantic import BaseModel, ConfigDict, Field

from forge_tools.tools.builtins import requests
from forge_tools.tools.builtins._common import (
    left_out_note,
    posix,
    read_denied,
    resolve_path,
)
from forge_tools.tools.contract import Tool, ToolContext, ToolResult

DEFAULT_LIMIT = 2000
MAX_LINE_CHARS = 2000
MAX_BYTES = 50 * 1024
SNIFF_BYTES = 4096
CHUNK_BYTES = 64 * 1024
#: bytes kept of each line: enough for MAX_LINE_CHARS + 1 characters whatever the encoding (<= 4 bytes
#: each), so a line cut here is a line longer than MAX_LINE_CHARS
KEEP_BYTES = 4 * (MAX_LINE_CHARS + 1)
#: what opencode 1.18.33 puts after the first MAX_LINE_CHARS characters of a longer line
LINE_CUT = f"... (line truncated to {MAX_LINE_CHARS} chars)"
CONTROL_RATIO = 0.30

BINARY_EXTENSIONS = frozenset({
    ".zip", ".tar", ".gz", ".tgz", ".bz2", ".xz", ".zst", ".7z", ".rar", ".jar", ".war", ".ear",
    ".exe", ".dll", ".so", ".dylib", ".a", ".o", ".obj", ".lib", ".class", ".pyc", ".pyo", ".wasm",
    ".bin", ".dat", ".db", ".sqlite", ".sqlite3", ".png", ".jpg", ".jpeg", ".gif", ".bmp", ".ico",
    ".webp", ".tif", ".tiff", ".psd", ".pdf", ".doc", ".docx", ".xls", ".xlsx", ".ppt", ".pptx", ".odt",
    ".ods", ".odp", ".mp3", ".mp4", ".m4a", ".wav", ".flac", ".ogg", ".avi", ".mov", ".mkv", ".webm",
    ".ttf", ".otf", ".woff", ".woff2", ".eot", ".iso", ".dmg", ".img", ".deb", ".rpm", ".whl", ".egg",
    ".parquet", ".npy", ".npz", ".pkl", ".pickle", ".pt", ".onnx", ".safetensors",
})

DESCRIPTION = """Read a text file from the local filesystem and return its lines, numbered from 1.

- `filePath` is an absolute path, or a path relative to the project root.
- By default up to 2000 lines are returned from the start of the file; for long files pass `offset`
  (1-based line number to start at) and `limit` (how many lines) to read the part you need.
- Lines longer than 2000 characters are cut, and one call returns at most 50 KiB; a note at the end
  says which lines were shown and which offset continues.
- Binary files (images, archives, executables, ...) are refused. A directory reads as its entries
  (sub-directories end in `/`); the list tool shows a whole tree.
- Reading several files you will need anyway in one turn is cheaper than reading them one by one."""


class ReadArgs(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)

    filePath: Annotated[str, Field(description="The file (absolute, or relative to the project root).")]
    offset: Annotated[
        int | None, Field(ge=0, description="1-based line number to start reading from (default 1; 0 "
                                            "reads as 1, as in opencode).")
    ] = None
    limit: Annotated[
        int | None, Field(ge=0, description="How many lines to read (default 2000).")
    ] = None


def is_binary(path: Path, head: bytes) -> bool:
    """Known binary extension, a NUL byte, or more than 30% control bytes in the first 4096 bytes."""
    if path.suffix.lower() in BINARY_EXTENSIONS:
        return True
    sample = head[:SNIFF_BYTES]
    if not sample:
        return False
    if b"\0" in sample:
        return True
    control = sum(1 for b in sample if b < 9 or 13 < b < 32)
    return control / len(sample) > CONTROL_RATIO


def lines_of(handle: BinaryIO, keep: int) -> Iterator[tuple[bytes, bool]]:
    """Each line of a binary stream as its first `keep` bytes (without the newline) and whether it
    had more. Read in CHUNK_BYTES chunks, so memory stays bounded however long a line is (a 200 MB
    line costs one chunk, not 200 MB three times over)."""
    head = bytearray()
    longer = False

    def add(part: bytes) -> None:
        nonlocal longer
        if longer:
            return
        room = keep - len(head)
        if len(part) > room:
            head.extend(part[:room])
            longer = True
        else:
            head.extend(part)

    while chunk := handle.read(CHUNK_BYTES):
        parts = chunk.split(b"\n")
        for part in parts[:-1]:
            add(part)
            yield bytes(head), longer
            head.clear()
            longer = False
        add(parts[-1])
    if head or longer:
        yield bytes(head), longer


def _error(message: str, path: Path, ctx: ToolContext) -> ToolResult:
    return ToolResult(message, title=_title(path, ctx), metadata={"truncated": False}, is_error=True)


def _title(path: Path, ctx: ToolContext) -> str:
    """opencode's title: the path relative to the project root (`../x` outside it)."""
    return posix(Path(os.path.relpath(path, ctx.project_root)))


def missing_message(path: Path) -> str:
    """opencode 1.18.33's words for a path that is not there (`File not found: P`, a blank line, then
    up to three look-alike names of its folder)."""
    base = path.name.lower()
    try:  # opencode: names of the same folder holding the missing name, or held by it; the first three
        names = sorted(os.listdir(path.parent))
    except OSError:
        names = []
    suggestions = [posix(path.parent / n) for n in names if base in n.lower() or n.lower() in base][:3]
    text = f"File not found: {posix(path)}"
    if suggestions:
        text += "\n\nDid you mean one of these?\n" + "\n".join(suggestions)
    return text


def execute(args: ReadArgs, ctx: ToolContext) -> ToolResult:
    path = resolve_path(args.filePath, ctx)
    if path.is_dir():
        return _read_directory(path, args, ctx)
    if not path.exists():
        return _error(missing_message(path), path, ctx)
    if not path.is_file():
        return _error(f"{posix(path)} is not a regular file (a device, socket or pipe); read only shows "
                      "files.", path, ctx)
    offset = args.offset or 1  # opencode reads `offset: 0` as 1
    limit = DEFAULT_LIMIT if args.limit is None else args.limit  # `limit: 0` shows no line
    try:
        handle = path.open("rb")
    except OSError as exc:
        return _error(f"cannot read {posix(path)}: {exc.strerror or exc}", path, ctx)
    with handle:
        head = handle.read(SNIFF_BYTES)
        if is_binary(path, head):
            return _error(f"Cannot read binary file: {posix(path)}", path, ctx)
        handle.seek(0)
        shown: list[str] = []
        used_bytes = 0
        total = 0
        more = byte_capped = False
        for number, (raw, longer) in enumerate(lines_of(handle, KEEP_BYTES), start=1):
            total = number
            if number < offset:
                continue
            if len(shown) >= limit:
                more = True
                continue
            text = raw.decode("utf-8", "replace")
            if not longer:
                text = text.rstrip("\r")
            if len(text) > MAX_LINE_CHARS:
                text = text[:MAX_LINE_CHARS] + LINE_CUT
            cost = len(text.encode("utf-8")) + (1 if shown else 0)
            if used_bytes + cost > MAX_BYTES:
                more = byte_capped = True  # opencode stops reading here: no total is known
                break
            shown.append(text)
            used_bytes += cost
    if total < offset and not (total == 0 and offset == 1):
        return _error(f"Offset {offset} is out of range for this file ({total} lines)", path, ctx)
    last = offset + len(shown) - 1
    if byte_capped:
        note = (f"(Output capped at {MAX_BYTES // 1024} KB. Showing lines {offset}-{last}. "
                f"Use offset={last + 1} to continue.)")
    elif more:
        note = f"(Showing lines {offset}-{last} of {total}. Use offset={last + 1} to continue.)"
    else:
        note = f"(End of file - total {total} lines)"
    body = "\n".join(f"{offset + i}: {line}" for i, line in enumerate(shown))
    output = f"<path>{posix(path)}</path>\n<type>file</type>\n<content>\n{body}\n\n{note}\n</content>"
    metadata = {
        "truncated": more,
        "path": posix(path),
        "firstLine": offset,
        "lastLine": last,
        "totalLines": None if byte_capped else total,
        "preview": "\n".join(shown[:20]),
    }
    if more:
        metadata["outputPath"] = posix(path)  # the whole text is the file itself (SPEC 1)
    return ToolResult(output, title=_title(path, ctx), metadata=metadata)


def _read_directory(path: Path, args: ReadArgs, ctx: ToolContext) -> ToolResult:
    """A directory reads as its sorted entries (sub-directories end in `/`), paged like lines, in
    opencode's words; the list tool gives the recursive view. Entries the read rules deny are left out
    (forge-tools' own addition, said in a line of its own)."""
    try:
        entries = list(os.scandir(path))
    except OSError as exc:
        return _error(f"cannot list {posix(path)}: {exc.strerror or exc}", path, ctx)
    kept = [e for e in entries if not read_denied(Path(e.path), ctx)]
    left_out = len(entries) - len(kept)
    names = sorted(((e.name + "/" if e.is_dir() else e.name) for e in kept),
                   key=lambda name: (name.casefold(), name))  # near opencode's localeCompare
    offset = args.offset or 1
    limit = DEFAULT_LIMIT if args.limit is None else args.limit
    shown = names[offset - 1:offset - 1 + limit]
    more = offset - 1 + len(shown) < len(names)
    if more:
        note = (f"(Showing {len(shown)} of {len(names)} entries. Use 'offset' parameter to read beyond "
                f"entry {offset + len(shown)})")
    else:
        note = f"({len(names)} entries)"
    if left_out:
        note += "\n" + left_out_note(left_out, "entry", "entries")
    output = "\n".join([f"<path>{posix(path)}</path>", "<type>directory</type>", "<entries>",
                        "\n".join(shown), "\n" + note, "</entries>"])
    metadata = {"truncated": more, "path": posix(path), "entries": len(names),
                "preview": "\n".join(shown[:20]), "leftOut": left_out}
    return ToolResult(output, title=_title(path, ctx), metadata=metadata)


TOOL = Tool(
    id="read",
    description=DESCRIPTION,
    parameters=ReadArgs,
    execute=execute,
    permission_requests=requests.read,
)
