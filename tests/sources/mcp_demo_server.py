"""A small real MCP server for the tests, written with the official SDK.

`python mcp_demo_server.py` serves over stdio; `... http PORT` over streamable HTTP and `... sse PORT`
over SSE, on 127.0.0.1. Each start appends a line to $DEMO_LOG (the tests count connections);
$DEMO_SLOW_LIST makes listing the tools take that many seconds.
"""

from __future__ import annotations

import os
import sys
from typing import Any

import anyio
from mcp.server.mcpserver import MCPServer


class DemoServer(MCPServer):
    async def list_tools(self) -> Any:
        delay = float(os.environ.get("DEMO_SLOW_LIST") or 0)
        if delay:
            await anyio.sleep(delay)
        return await super().list_tools()


app = DemoServer("demo")


@app.tool()
def echo(text: str, times: int = 1) -> str:
    """Echo the text back, `times` times."""
    return text * times


@app.tool(name="big.dump")
def big_dump(n: int) -> str:
    """Return n numbered lines."""
    return "\n".join(f"line {i}" for i in range(n))


@app.tool()
def env_value(name: str) -> str:
    """The server's value of an environment variable."""
    return os.environ.get(name, "<unset>")


if __name__ == "__main__":
    log = os.environ.get("DEMO_LOG")
    if log:
        with open(log, "a", encoding="utf-8") as handle:
            handle.write(" ".join(sys.argv[1:]) or "stdio")
            handle.write("\n")
    if len(sys.argv) == 3 and sys.argv[1] == "http":
        app.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    elif len(sys.argv) == 3 and sys.argv[1] == "sse":
        app.run("sse", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        app.run()
