"""`todowrite`: the session's todo list, replaced as a whole on every call.

The list lives in `<data dir>/todo/<session id>.json`, so separate runs of the same session see it
and separate sessions never mix.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from forge_tools import paths
from forge_tools.tools.contract import Tool, ToolContext, ToolResult

DESCRIPTION = """Write the todo list for this session (the whole list, replacing the previous one).

Use it for work with several steps: add the steps, mark one `in_progress` when you start it and
`completed` as soon as it is done, `cancelled` when it no longer applies. Keep one task in progress
at a time. Skip it for a single trivial step.
- each todo: `id` (unique), `content`, `status` (pending, in_progress, completed, cancelled),
  `priority` (high, medium, low)."""


class Todo(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)

    id: Annotated[str, Field(min_length=1, description="Unique id of the todo.")]
    content: Annotated[str, Field(min_length=1, description="What is to be done.")]
    status: Annotated[
        Literal["pending", "in_progress", "completed", "cancelled"], Field(description="Where it stands.")
    ]
    priority: Annotated[
        Literal["high", "medium", "low"], Field(description="How important it is.")
    ] = "medium"


class TodoWriteArgs(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)

    todos: Annotated[list[Todo], Field(description="The complete, updated todo list.")]

    @model_validator(mode="after")
    def _unique_ids(self) -> TodoWriteArgs:
        seen: set[str] = set()
        for todo in self.todos:
            if todo.id in seen:
                raise ValueError(f"todo id {todo.id!r} is used twice; every todo needs its own id")
            seen.add(todo.id)
        return self


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
