"""`edit`: replace an exact string in a file.

Exact matching (no fuzzy fallback) keeps edits predictable: the text must be found, and must be found
once unless `replaceAll` is set, so an edit never lands somewhere the model did not look. The one
leniency is line endings: in a CRLF file, `\\n` in the strings is taken to mean `\\r\\n`.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from forge_tools.tools.builtins import requests
from forge_tools.tools.builtins._common import (
    not_found_message,
    posix,
    relative_to_root,
    resolve_path,
)
from forge_tools.tools.builtins._files import read_text, unified_diff, write_atomic
from forge_tools.tools.contract import Tool, ToolContext, ToolResult

DESCRIPTION = """Replace an exact piece of text in a file.

- `filePath`: absolute, or relative to the project root.
- `oldString`: the exact text to replace, including its indentation and line breaks. Read the file first
  and copy the text from it (without the line-number prefixes the read tool adds).
- `newString`: the replacement; it must differ from `oldString`.
- The edit fails when `oldString` is not found, or is found more than once: then include more
  surrounding lines to make it unique, or set `replaceAll` to change every occurrence (e.g. a rename).
- An empty `oldString` creates a new file with `newString` as its content (only if it does not exist)."""


class EditArgs(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)

    filePath: Annotated[str, Field(description="File to modify (absolute or relative to the project root).")]
    oldString: Annotated[str, Field(description="Exact text to replace.")]
    newString: Annotated[str, Field(description="Text to put in its place (must differ from oldString).")]
    replaceAll: Annotated[
        bool, Field(description="Replace every occurrence instead of requiring exactly one.")
    ] = False


class EditError(Exception):
    """An edit that cannot be applied; the message tells the model what to change."""


def apply_edit(content: str, old: str, new: str, replace_all: bool) -> tuple[str, int]:
    """The new content and how many occurrences were replaced; raises EditError."""
    if old == new:
        raise EditError("oldString and newString are the same; there is nothing to change.")
    count = content.count(old)
    if count == 0 and "\r\n" in content and "\n" in old and "\r\n" not in old:
        old, new = old.replace("\n", "\r\n"), new.replace("\n", "\r\n")
        count = content.count(old)
    if count == 0:
        raise EditError(
            "oldString was not found in the file. It must match exactly, including whitespace and "
            "indentation; read the file again and copy the text from it."
        )
    if count > 1 and not replace_all:
        raise EditError(
            f"oldString was found {count} times. Include more surrounding lines so it matches exactly "
            "one place, or set replaceAll to true to change every occurrence."
        )
    if replace_all:
        return content.replace(old, new), count
    return content.replace(old, new, 1), 1


def execute(args: EditArgs, ctx: ToolContext) -> ToolResult:
    path = resolve_path(args.filePath, ctx)
    rel = relative_to_root(path, ctx)

    def error(message: str) -> ToolResult:
        return ToolResult(message, title=rel, is_error=True)

    if path.is_dir():
        return error(f"{posix(path)} is a directory; give a file path.")
    if args.oldString == "":
        if path.exists():
            return error(f"{posix(path)} already exists; an empty oldString only creates new files. "
                         "Give the text to replace, or use write to replace the whole file.")
        try:
            write_atomic(path, args.newString)
        except OSError as exc:
            return error(f"cannot write {posix(path)}: {exc.strerror or exc}")
        return ToolResult(f"Created {posix(path)}.", title=rel,
                          metadata={"filepath": posix(path), "diff": unified_diff("", args.newString, rel)})
    if not path.exists():
        return error(not_found_message("File", path))
    try:
        content = read_text(path)
    except UnicodeDecodeError:
        return error(f"{posix(path)} is not UTF-8 text; edit only changes text files.")
    except OSError as exc:
        return error(f"cannot read {posix(path)}: {exc.strerror or exc}")
    try:
        updated, count = apply_edit(content, args.oldString, args.newString, args.replaceAll)
    except EditError as exc:
        return error(f"{posix(path)}: {exc}")
    try:
        write_atomic(path, updated)
    except OSError as exc:
        return error(f"cannot write {posix(path)}: {exc.strerror or exc}")
    plural = "s" if count != 1 else ""
    return ToolResult(
        f"Edited {posix(path)}: replaced {count} occurrence{plural}.",
        title=rel,
        metadata={"filepath": posix(path), "replacements": count,
                  "diff": unified_diff(content, updated, rel)},
    )


TOOL = Tool(
    id="edit",
    description=DESCRIPTION,
    parameters=EditArgs,
    execute=execute,
    permission_requests=requests.edit,
)
