"""`invalid`: where a malformed call from the model is routed (SPEC 2).

It goes through the visibility layers like any tool (so `* deny` hides it too) but is marked internal:
it exists so that a call to an unknown tool, or with arguments that cannot be parsed, still gets a
result the model can learn from instead of breaking the turn.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from forge_tools.tools.contract import Tool, ToolContext, ToolResult

DESCRIPTION = "Internal: receives malformed tool calls and explains what was wrong. Do not call it directly."


class InvalidArgs(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)

    tool: Annotated[str, Field(description="The tool the model tried to call.")]
    error: Annotated[str, Field(description="What was wrong with the call.")]


def execute(args: InvalidArgs, ctx: ToolContext) -> ToolResult:
    return ToolResult(
        f"The call to the tool {args.tool!r} could not be run: {args.error}\n"
        "Check the tool name and rewrite the arguments so they fit that tool's input schema.",
        title=f"invalid call to {args.tool}",
        metadata={"tool": args.tool, "error": args.error},
        is_error=True,
    )


TOOL = Tool(id="invalid", description=DESCRIPTION, parameters=InvalidArgs, execute=execute, internal=True)
