"""`plan_exit` (flag `plan`, client `cli`): the plan agent asks to switch to building. That is a
session action; forge-tools runs single tool calls, so executing it says so."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from forge_tools.tools.builtins._unavailable import unavailable
from forge_tools.tools.contract import Tool, ToolContext, ToolResult

DESCRIPTION = """Call this when the plan is complete and agreed, to ask the user to switch from planning
to building. Do not call it while questions about the plan are still open."""


class PlanExitArgs(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)


def execute(args: PlanExitArgs, ctx: ToolContext) -> ToolResult:
    return unavailable("plan_exit", "an interactive session with a plan and a build agent",
                       "The call would ask the user to leave plan mode and start building.")


TOOL = Tool(id="plan_exit", description=DESCRIPTION, parameters=PlanExitArgs, execute=execute)
