"""A tiny MCP server (stdio) for recording how Claude Code names and gates MCP tools.

Started by Claude Code itself from a scratch project's ``.mcp.json`` while record.py runs. Its tools
only touch files under the directory it was started in (the scratch project), so an allowed call
leaves an observable canary there.
"""

from __future__ import annotations

from pathlib import Path

from mcp.server.mcpserver import MCPServer

server = MCPServer("srv")


@server.tool()
def read_thing(name: str = "x") -> str:
    """Return a fixed string (read-only)."""
    return f"thing {name}"


@server.tool()
def write_thing(name: str = "mcp-canary") -> str:
    """Create a canary file named ``name`` in the current directory."""
    target = Path.cwd() / Path(name).name
    target.write_text("written by mcp write_thing\n")
    return f"wrote {target.name}"


if __name__ == "__main__":
    server.run("stdio")
