"""`websearch`: search the web. It needs a search backend (SPEC 3.1 keeps it only for the opencode
providers or the exa/parallel flags), so executing it here says so; it is checked with `*`."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from forge_tools.tools.builtins._unavailable import unavailable
from forge_tools.tools.contract import Tool, ToolContext, ToolResult

DESCRIPTION = """Search the web and return the most relevant pages with short excerpts.

- `query`: what to search for; include the year for anything time-sensitive.
- `numResults`: how many results to return (default 8).
- Use webfetch afterwards to read a result in full."""


class WebSearchArgs(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)

    query: Annotated[str, Field(min_length=1, description="The search query.")]
    numResults: Annotated[int, Field(ge=1, le=50, description="Number of results (default 8).")] = 8


def execute(args: WebSearchArgs, ctx: ToolContext) -> ToolResult:
    return unavailable("websearch", "a web search backend",
                       f"The call would search for {args.query!r}.")


TOOL = Tool(id="websearch", description=DESCRIPTION, parameters=WebSearchArgs, execute=execute)
