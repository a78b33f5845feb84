"""Tools whose real work needs something forge-tools does not have (a model, a search backend, a
language server, a chat session): they register, take part in the layers and the permission checks
like any other tool, and when executed they say plainly what is missing."""

from __future__ import annotations

from forge_tools.tools.contract import ToolResult


def unavailable(tool_id: str, needs: str, would: str) -> ToolResult:
    return ToolResult(
        f"The {tool_id} tool cannot run here: it needs {needs}, which forge-tools does not provide. "
        f"{would}",
        title=f"{tool_id}: not available",
        metadata={"truncated": False, "unavailable": True},
        is_error=True,
    )
