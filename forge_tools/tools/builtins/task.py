"""`task`: hand a piece of work to a subagent. Dispatching needs a model, so executing it here only
reports what would have been dispatched; its permission check (`task` with the subagent's name) is
real, so `explain --call` and `check` answer truthfully."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from forge_tools.tools.builtins._unavailable import unavailable
from forge_tools.tools.contract import PermissionRequest, Tool, ToolContext, ToolResult

DESCRIPTION = """Start a subagent to carry out a task on its own and report back.

- `subagent_type`: which subagent to use (the available ones are listed below when there are any).
- `description`: a short (3-5 word) summary of the task.
- `prompt`: the complete instructions; the subagent sees nothing else of this conversation, so say
  exactly what to do and what to return.
- Good for open-ended searches over many files and for reading large outputs without filling this
  conversation. Launch independent tasks in the same turn to run them in parallel."""


class TaskArgs(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)

    description: Annotated[str, Field(description="A short (3-5 word) summary of the task.")]
    prompt: Annotated[str, Field(description="Full instructions for the subagent.")]
    subagent_type: Annotated[str, Field(description="The subagent to dispatch.")]
    task_id: Annotated[
        str | None, Field(description="Continue an earlier task session instead of starting a new one.")
    ] = None
    command: Annotated[str | None, Field(description="The command that led to this task, if any.")] = None


def permission_requests(args: TaskArgs, ctx: ToolContext) -> list[PermissionRequest]:
    return [PermissionRequest("task", (args.subagent_type,), (args.subagent_type,),
                              {"description": args.description})]


def execute(args: TaskArgs, ctx: ToolContext) -> ToolResult:
    return unavailable(
        "task", "a model to run the subagent",
        f"The call would dispatch the subagent {args.subagent_type!r} with the task {args.description!r}.",
    )


TOOL = Tool(id="task", description=DESCRIPTION, parameters=TaskArgs, execute=execute,
            permission_requests=permission_requests)
