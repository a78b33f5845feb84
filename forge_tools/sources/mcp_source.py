"""The MCP servers as a source (`tools.contract.Source`): what the `mcp` config names, read without
starting anything, and the servers' tools through `mcp.py` (imported only when a server is configured
and code may run: the connecting machinery and its SDK cost start-up).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from forge_tools.origin import Node, format_key_path

if TYPE_CHECKING:
    from forge_tools.tools.contract import Listing, SourceQuery, Unlisted

NOTE_NOT_CONNECTED = ("MCP server tools unknown without --load-code (no server was started): "
                      "configured servers: {servers}")
NOTE_NO_MCP = "--no-mcp: no MCP server was started (configured: {servers})"
WHY_NO_MCP = "MCP server {server} was not started (--no-mcp)"
WHY_NOT_CONNECTED = ("the tools of MCP server {server} are listed only when code is loaded (load_code=True; "
                     "the CLI's explain, layers and run do), and no server was started")
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")


def sanitize(name: str) -> str:
    """opencode's rule: every character outside `[A-Za-z0-9_-]` becomes `_`."""
    return _UNSAFE.sub("_", name)


def configured_server_names(tree: Node | None) -> list[str]:
    """The names under `mcp` (for notes and `check`), without validating anything."""
    node = tree.get("mcp") if tree is not None else None
    return [name for name, _ in node.items()] if node is not None and node.is_map else []


class McpServerSource:
    """The fourth source: the `mcp` config's servers. `scan` starts none and lists every configured
    server as unlisted; `load` starts (or reads from the listing cache) the servers that could list
    `query.tool_id` (`mcp.load_mcp_tools`: start timeouts, failure caching and progress are its) and
    lists their tools, each failed server unlisted with its reason. With `query.no_mcp` neither starts
    anything. The MCP SDK is imported only when a server is really connected."""

    name = "mcp"

    def scan(self, query: SourceQuery) -> Listing:
        from forge_tools.tools.contract import Listing

        names = configured_server_names(query.tree)
        if not names:
            return Listing()
        if query.no_mcp:
            return Listing(notes=[NOTE_NO_MCP.format(servers=", ".join(names))],
                           unlisted=_unlisted(query.tree, names, WHY_NO_MCP))
        return Listing(notes=[NOTE_NOT_CONNECTED.format(servers=", ".join(names))],
                       unlisted=_unlisted(query.tree, names, WHY_NOT_CONNECTED))

    def load(self, query: SourceQuery) -> Listing:
        from pathlib import Path

        from forge_tools.tools.contract import Listed, Listing

        node = query.tree.get("mcp") if query.tree is not None else None
        if node is None or not node.value or query.no_mcp:
            return self.scan(query)
        from forge_tools.sources.mcp import load_mcp_tools

        found = load_mcp_tools(query.tree, query.cwd or Path.cwd(), tool_id=query.tool_id,
                               start_s=query.start_s, start_by=query.start_by, progress=query.progress,
                               sandbox=(query.sandbox, query.project_root or query.cwd or Path.cwd()))
        failed = [name for name in configured_server_names(query.tree)
                  if f"{sanitize(name)}_" in found.unlisted]
        unlisted = [u._replace(why=found.unlisted[u.prefix or ""])
                    for u in _unlisted(query.tree, failed, "")]
        return Listing([Listed(t.id, t, t.source) for t in found.tools], list(found.problems),
                       list(found.notes), unlisted)


def _unlisted(tree: Node | None, names: Sequence[str], why: str) -> list[Unlisted]:
    """Each named server as a part whose tools are not listed, at its config key and under its tool-id
    prefix, as its tools' `ToolSource` would say ({server} in `why` is filled in with the key)."""
    from forge_tools.tools.contract import ToolSource, Unlisted

    node = tree.get("mcp") if tree is not None else None
    out = []
    for name in names:
        entry = node.get(name) if node is not None and node.is_map else None
        where = (entry.key_origin or entry.origin) if entry is not None else None
        out.append(Unlisted(ToolSource("mcp", path=where.path if where else None,
                                       line=where.line if where else None, server=name),
                            name, why.format(server=format_key_path(("mcp", name))), f"{sanitize(name)}_"))
    return out


SOURCE = McpServerSource()
