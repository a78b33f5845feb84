"""A real MCP server (official SDK, stdio) that misbehaves on request, for the outage tests.

`python mcp_trouble_server.py crash` writes a fatal message to stderr and exits 1 before serving;
`... start-delay FILE` sleeps for the seconds written in FILE before serving (the command, and so the
listing cache key, stays the same when the delay changes); `... serve` serves at once. Each start
appends its pid to $TROUBLE_PIDS (the tests check the process is gone). Tools: `hang` never answers,
`flood` returns `mb` megabytes of numbered lines, `ping` answers "pong".
"""

from __future__ import annotations

import os
import sys
import time

from mcp.server.mcpserver import MCPServer

app = MCPServer("trouble")


@app.tool()
async def hang() -> str:
    """Never answers."""
    import anyio

    await anyio.sleep_forever()
    return "unreachable"


@app.tool()
def flood(mb: int) -> str:
    """mb megabytes of numbered lines."""
    line = "x" * 90
    count = mb * 1024 * 1024 // 100
    return "\n".join(f"{i:08d} {line}" for i in range(count))


@app.tool()
def ping() -> str:
    """Answers pong."""
    return "pong"


if __name__ == "__main__":
    pids = os.environ.get("TROUBLE_PIDS")
    if pids:
        with open(pids, "a", encoding="utf-8") as handle:
            handle.write(f"{os.getpid()}\n")
    mode = sys.argv[1] if len(sys.argv) > 1 else "serve"
    if mode == "crash":
        sys.stderr.write("starting the trouble server\n")
        sys.stderr.write("fatal: cannot open database 'missing.db'\n")
        sys.stderr.flush()
        sys.exit(1)
    if mode == "start-delay":
        with open(sys.argv[2], encoding="utf-8") as delay:
            time.sleep(float(delay.read().strip() or 0))
    app.run()
