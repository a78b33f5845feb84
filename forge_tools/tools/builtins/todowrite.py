"""`todowrite`: the session's todo list, replaced as a whole on every call.

The list lives in `<data dir>/todo/<session id>.json`, so separate runs of the same session see it
and separate sessions never mix.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from forge_tools import paths
from forge_tools.tools.contract import Tool, ToolContext, ToolResult

DESCRIPTION = """Write the todo list for this session (the whole list, replacing the previous one).

Use it for work with several steps: add the steps, mark one `in_progress` when you start it and
`completed` as soon as it is done, `cancelled` when it no longer applies. Keep one task in progress
at a time. Skip it for a single trivial step.
- each todo: `content`, `status` (pending, in_progress, completed, cancelled) and `priority`
  (high, medium, low), all three required."""


class Todo(BaseModel):
    """One todo as opencode 1.18.33 takes it: three strings, each required (its `status` and
    `priority` are free text that its description only suggests values for)."""

    model_config = ConfigDict(extra="ignore", defer_build=True)

    content: Annotated[str, Field(description="What is to be done.")]
    status: Annotated[str, Field(description="Where it stands: pending, in_progress, completed, cancelled.")]
    priority: Annotated[str, Field(description="How important it is: high, medium, low.")]


class TodoWriteArgs(BaseModel):
    model_config = ConfigDict(extra="ignore", defer_build=True)

    todos: Annotated[list[Todo], Field(description="The complete, updated todo list.")]


def todo_file(session_id: str) -> Path:
    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", session_id) or "session"
    return paths.data_dir() / "todo" / f"{safe}.json"


def load_todos(session_id: str) -> list[dict[str, str]]:
    """The stored list for a session (empty when there is none or it cannot be read)."""
    try:
        data = json.loads(todo_file(session_id).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    return data if isinstance(data, list) else []


def execute(args: TodoWriteArgs, ctx: ToolContext) -> ToolResult:
    todos = [t.model_dump() for t in args.todos]
    target = todo_file(ctx.session_id)
    try:
        paths.write_private(target, json.dumps(todos, indent=2) + "\n")
    except OSError as exc:
        return ToolResult(f"cannot save the todo list to {target}: {exc.strerror or exc}",
                          title="todowrite", is_error=True)
    open_count = sum(1 for t in args.todos if t.status in ("pending", "in_progress"))
    title = f"{open_count} open todo{'s' if open_count != 1 else ''}"
    metadata = {"todos": todos, "path": str(target)}
    return ToolResult(json.dumps(todos, indent=2), title=title, metadata=metadata)


TOOL = Tool(id="todowrite", description=DESCRIPTION, parameters=TodoWriteArgs, execute=execute)
