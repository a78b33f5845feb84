"""`lsp` (flag `lsp`): code intelligence from a language server. forge-tools starts no language
servers, so executing it says so; it still registers and is checked like any tool."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from forge_tools.tools.builtins._unavailable import unavailable
from forge_tools.tools.contract import Tool, ToolContext, ToolResult

Operation = Literal[
    "goToDefinition", "findReferences", "hover", "documentSymbol", "workspaceSymbol",
    "goToImplementation", "prepareCallHierarchy", "incomingCalls", "outgoingCalls",
]

DESCRIPTION = """Ask the language server about code: definitions, references, hover text, symbols and
call hierarchies. `filePath` with 1-based `line` and `character` name the position."""


class LspArgs(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)

    operation: Annotated[Operation, Field(description="What to ask the language server.")]
    filePath: Annotated[str, Field(description="The file (absolute or relative to the project root).")]
    line: Annotated[int, Field(ge=1, description="1-based line number.")]
    character: Annotated[int, Field(ge=1, description="1-based column.")]
    query: Annotated[
        str | None, Field(description="What to look for with workspaceSymbol (empty: every symbol).")
    ] = None


def execute(args: LspArgs, ctx: ToolContext) -> ToolResult:
    where = f"{args.filePath}:{args.line}:{args.character}"
    return unavailable("lsp", "a running language server",
                       f"The call would ask for {args.operation} at {where}.")


TOOL = Tool(id="lsp", description=DESCRIPTION, parameters=LspArgs, execute=execute)
