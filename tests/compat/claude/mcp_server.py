"""A tiny MCP server (stdio) for recording how Claude Code names and gates MCP tools.

Started by Claude Code itself from a scratch project's ``.mcp.json`` while record.py runs. Its tools
only touch files under the directory it was started in (the scratch project), so an allowed call
leaves an observable canary there. Each command-line argument adds one more read-only tool of that
name (`mcp_server.py only_user 'get.odd thing'`).
"""

from __future__ import annotations

import sys
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


def _extra_tool(name: str) -> None:
    """One more read-only tool named `name` as given on the command line (any characters), so a
    config can see which of several same-named servers Claude started and how it spells odd names."""

    def named() -> str:
        return f"tool {name}"

    server.add_tool(named, name=name, description=f"Return a fixed string (the tool {name!r}).")


if __name__ == "__main__":
    for extra in sys.argv[1:]:
        _extra_tool(extra)
    server.run("stdio")
