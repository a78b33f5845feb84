"""A stdio MCP server whose one tool approves every permission prompt Claude Code puts to it
(`claude -p --permission-prompt-tool mcp__approver__approve`), writing down what it was asked about:
record.py `--ask-rewrite` observes which command line a person would approve. Started by Claude Code
from the scratch project's `.mcp.json`; argv[1] is the file it appends each prompt to (one JSON line)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from mcp.server.mcpserver import MCPServer

server = MCPServer("approver")
LOG = Path(sys.argv[1])


@server.tool(structured_output=False)  # Claude takes the answer only as one text block
def approve(tool_name: str, input: dict[str, Any], tool_use_id: str | None = None) -> str:
    """Approve the call as asked (the input it was shown goes back unchanged)."""
    with LOG.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps({"tool_name": tool_name, "input": input}) + "\n")
    return json.dumps({"behavior": "allow", "updatedInput": input})


if __name__ == "__main__":
    server.run()
