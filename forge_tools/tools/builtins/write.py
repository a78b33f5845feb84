"""`write`: create or overwrite a whole file (parent directories are created)."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from forge_tools.tools.builtins import requests
from forge_tools.tools.builtins._common import posix, relative_to_root, resolve_path
from forge_tools.tools.builtins._files import unified_diff, write_atomic
from forge_tools.tools.contract import Tool, ToolContext, ToolResult

DESCRIPTION = """Write a file: create it, or replace all of its content.

- `filePath`: absolute, or relative to the project root. Missing parent directories are created.
- `content`: the complete new content of the file.
- For a change to part of an existing file prefer edit, which cannot lose the rest of the file by
  accident. Read an existing file before overwriting it."""


class WriteArgs(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)

    # in opencode 1.18.33's order
    content: Annotated[str, Field(description="The full content to write.")]
    filePath: Annotated[str, Field(description="File to write (absolute or relative to the project root).")]


def execute(args: WriteArgs, ctx: ToolContext) -> ToolResult:
    path = resolve_path(args.filePath, ctx)
    rel = relative_to_root(path, ctx)
    if path.is_dir():
        return ToolResult(f"{posix(path)} is a directory; give a file path.", title=rel, is_error=True)
    existed = path.exists()
    old = ""
    if existed:
        try:
            old = path.read_bytes().decode("utf-8", "replace")
        except OSError:
            old = ""
    try:
        write_atomic(path, args.content)
    except OSError as exc:
        return ToolResult(f"cannot write {posix(path)}: {exc.strerror or exc}", title=rel, is_error=True)
    size = len(args.content.encode("utf-8"))
    verb = "Overwrote" if existed else "Created"
    return ToolResult(
        f"{verb} {posix(path)} ({size} bytes).",
        title=rel,
        metadata={"filepath": posix(path), "exists": existed, "diff": unified_diff(old, args.content, rel)},
    )


TOOL = Tool(
    id="write",
    description=DESCRIPTION,
    parameters=WriteArgs,
    execute=execute,
    permission_requests=requests.edit,
)
