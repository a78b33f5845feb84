"""`websearch`: search the web. It needs a search backend (SPEC 3.1 keeps it only for the opencode
providers or the exa/parallel flags), so executing it here says so; it is checked with `*`."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from forge_tools.tools.builtins._unavailable import unavailable
from forge_tools.tools.contract import Tool, ToolContext, ToolResult

DESCRIPTION = """Search the web and return the most relevant pages with short excerpts.

- `query`: what to search for; include the year for anything time-sensitive.
- `numResults`: how many results to return (default 8); `type` (auto, fast, deep), `livecrawl`
  (fallback, preferred) and `contextMaxCharacters` tune the search as in opencode.
- Use webfetch afterwards to read a result in full."""


class WebSearchArgs(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)

    query: Annotated[str, Field(min_length=1, description="The search query.")]
    numResults: Annotated[float, Field(ge=1, le=50, description="Number of results (default 8).")] = 8
    livecrawl: Annotated[
        Literal["fallback", "preferred"] | None,
        Field(description="Crawl pages live: as a fallback for uncached ones (default), or first.")
    ] = None
    type: Annotated[
        Literal["auto", "fast", "deep"] | None,
        Field(description="How hard to search: auto (default), fast, or deep.")
    ] = None
    contextMaxCharacters: Annotated[
        float | None, Field(ge=1, description="At most this many characters of page text (default 10000).")
    ] = None


def execute(args: WebSearchArgs, ctx: ToolContext) -> ToolResult:
    return unavailable("websearch", "a web search backend",
                       f"The call would search for {args.query!r}.")


TOOL = Tool(id="websearch", description=DESCRIPTION, parameters=WebSearchArgs, execute=execute)
