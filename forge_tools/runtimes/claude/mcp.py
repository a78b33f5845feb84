"""The MCP servers Claude Code 2.1.332 would start in a workspace, read from its files as the binary
reads them (recorded with `claude -p`, tests/compat/claude `mcp-*`). Reading them starts nothing;
`server_tools` starts the loaded ones (the shared lister `sources.mcp.list_servers`, with its
cache) to learn which tools each has: Claude has no tool a started server does not list
("No such tool available" even under an allow rule naming it; `mcp-missing-tool`).

- A `managed-mcp.json` in the managed settings directory takes exclusive control: only its
  `mcpServers` load (source `enterprise`); project, user and local servers are not started.
- Otherwise: the user's servers (`mcpServers` at the top of the state file, `~/.claude.json`),
  the project's (`.mcp.json` in the working directory, or in a parent directory) and the local ones
  (`projects[<abs dir>].mcpServers` in the state file). A name in several scopes is started once:
  local over project over user.
- `disabledMcpjsonServers` (any settings file) keeps a `.mcp.json` server from loading, not a user
  or local one. With `-p` a project server loads without approval: `enableAllProjectMcpServers`
  false and an `enabledMcpjsonServers` that does not name it change nothing, and neither does an
  untrusted workspace (an interactive session asks first; not recorded).
- Managed `deniedMcpServers` (`{"serverName": ...}`) removes a server; a managed
  `allowedMcpServers` keeps only the servers it names. Entries by `serverCommand` or `serverUrl`
  are not read (modelled as matching nothing; not recorded).

Tool names are `mcp__<server>__<tool>`, each part with every character outside `[A-Za-z0-9_-]`
made `_` (server `my.srv`, tool `get.odd-thing x`: `mcp__my_srv__get_odd-thing_x`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from forge_tools.origin import Node, Origin

if TYPE_CHECKING:
    from forge_tools.runtimes.claude.settings import ClaudeSettings
    from forge_tools.sources.mcp import ListingCache, McpServer

_ODD = re.compile(r"[^A-Za-z0-9_-]")
#: lowest to highest: a name in a higher scope is the one started
SCOPE_ORDER = ("user", "project", "local")


def normalise(name: str) -> str:
    """A server or tool name as Claude Code puts it in a tool name."""
    return _ODD.sub("_", name)


def tool_name(server: str, tool: str) -> str:
    """Claude Code's name for `tool` of the MCP server `server` (both as configured)."""
    return f"mcp__{normalise(server)}__{normalise(tool)}"


@dataclass(frozen=True)
class ClaudeMcpServer:
    """One configured MCP server, and whether Claude Code starts it."""

    name: str  # as configured
    scope: str  # user / project / local / enterprise (the init event's `source`)
    origin: Origin
    loaded: bool = True
    why_not: str | None = None
    entry: Node | None = field(default=None, compare=False, repr=False)  # its config entry

    def to_json(self) -> dict[str, object]:
        return {"name": self.name, "scope": self.scope, "origin": self.origin.to_json(),
                "loaded": self.loaded, "why_not": self.why_not}


def _read(path: Path) -> Node | None:
    from forge_tools.config.formats.json_format import parse_json
    from forge_tools.errors import ConfigError

    try:
        tree = parse_json(path.read_text(encoding="utf-8"), Origin("file", str(path)))
    except (OSError, UnicodeDecodeError, ConfigError):
        return None
    return tree if tree.is_map else None


def _servers(tree: Node | None, scope: str) -> list[ClaudeMcpServer]:
    node = tree.get("mcpServers") if tree is not None else None
    if node is None or not node.is_map:
        return []
    return [ClaudeMcpServer(name, scope, value.key_origin or value.origin, entry=value)
            for name, value in node.items() if value.is_map]


def project_mcp_files(cwd: Path) -> list[Path]:
    """The `.mcp.json` files Claude reads: the working directory's, then its parents' (nearest first)."""
    from forge_tools.paths import is_sandbox_placeholder

    return [d / ".mcp.json" for d in (cwd, *cwd.parents)
            if (d / ".mcp.json").is_file() and not is_sandbox_placeholder(d / ".mcp.json")]


def _names(settings: ClaudeSettings, key: str) -> set[str] | None:
    """The `serverName`s of a managed `allowedMcpServers` / `deniedMcpServers`; None when unset."""
    found: set[str] | None = None
    for f in settings.files:
        if f.scope != "managed" or f.tree is None:
            continue
        node = f.tree.get(key)
        if node is None or not node.is_list:
            continue
        found = found if found is not None else set()
        for entry in node.value:
            name = entry.get("serverName") if entry.is_map else None
            if name is not None and isinstance(name.value, str):
                found.add(name.value)
    return found


def read_mcp_servers(settings: ClaudeSettings) -> list[ClaudeMcpServer]:
    """Every server Claude's files configure here, those it starts first-found; each name once among
    the loaded ones (the highest scope's)."""
    managed = settings.managed_dir / "managed-mcp.json"
    if managed.is_file():
        return _servers(_read(managed), "enterprise")
    state = _read(settings.state_file) if settings.state_file is not None else None
    local: Node | None = None
    projects = state.get("projects") if state is not None else None
    if projects is not None and projects.is_map:
        local = projects.get(str(settings.cwd))
    by_scope = {"user": _servers(state, "user"), "local": _servers(local, "local"), "project": []}
    for path in project_mcp_files(settings.cwd):
        seen = {s.name for s in by_scope["project"]}
        by_scope["project"] += [s for s in _servers(_read(path), "project") if s.name not in seen]
    allowed, denied = _names(settings, "allowedMcpServers"), _names(settings, "deniedMcpServers")
    found: list[ClaudeMcpServer] = []
    for scope in SCOPE_ORDER:
        for server in by_scope[scope]:
            why = None
            if scope == "project" and server.name in settings.disabled_mcp:
                why = "disabledMcpjsonServers names it"
            elif denied is not None and server.name in denied:
                why = "the managed deniedMcpServers names it"
            elif allowed is not None and server.name not in allowed:
                why = "the managed allowedMcpServers does not name it"
            found.append(ClaudeMcpServer(server.name, scope, server.origin, why is None, why, server.entry))
    winners: dict[str, ClaudeMcpServer] = {}
    for server in found:
        if server.loaded:
            winners[server.name] = server  # a higher scope comes later and wins
    out = []
    for server in found:
        if server.loaded and winners[server.name] is not server:
            higher = winners[server.name]
            server = ClaudeMcpServer(server.name, server.scope, server.origin, False,
                                     f"the {higher.scope} server of that name ({higher.origin}) is started",
                                     server.entry)
        out.append(server)
    return out


def server_named(settings: ClaudeSettings, name: str) -> ClaudeMcpServer | None:
    """The server Claude starts whose tool-name form is `name` (`my_srv` for `my.srv`), if any."""
    return next((s for s in settings.mcp_servers if s.loaded and normalise(s.name) == name), None)


def no_server_why(settings: ClaudeSettings, name: str, tool: str | None = None) -> str:
    """Why Claude Code has no tool of the server `name` here: the configured server it does not start,
    or that none is configured (the files it reads for servers), or a tool name no server can have."""
    if server_named(settings, name) is not None and tool is not None:
        return (f"no MCP tool of Claude Code is named {tool!r}: it makes every character outside "
                f"[A-Za-z0-9_-] of a tool's name `_` ({normalise(tool)!r})")
    for server in settings.mcp_servers:
        if normalise(server.name) == name and not server.loaded:
            return (f"Claude Code does not start the MCP server {server.name!r} ({server.scope}, "
                    f"{server.origin}): {server.why_not}; it has no such tool")
    return (f"Claude Code has no MCP server {name!r} here (read: managed-mcp.json, .mcp.json, "
            "mcpServers of ~/.claude.json and of its entry for this project); it has no such tool")


def _as_source(server: ClaudeMcpServer, cwd: Path) -> McpServer | None:
    """The entry as the shared lister's server: `command` + `args` + `env` over stdio, or a `url`
    (`type` http or sse); None for an entry that names neither."""
    from forge_tools.sources.mcp import McpServer

    entry = server.entry
    if entry is None:
        return None

    def text(key: str) -> str | None:
        node = entry.get(key)
        return node.value if node is not None and isinstance(node.value, str) else None

    def strings(key: str) -> list[str]:
        node = entry.get(key)
        return ([str(p.value) for p in node.value if isinstance(p.value, str)]
                if node is not None and node.is_list else [])

    def mapping(key: str) -> dict[str, str]:
        node = entry.get(key)
        return ({k: str(v.value) for k, v in node.items() if isinstance(v.value, str)}
                if node is not None and node.is_map else {})

    command, url = text("command"), text("url")
    if command:
        return McpServer(server.name, "local", server.origin, cwd, command=(command, *strings("args")),
                         environment=mapping("env"))
    if url and url.startswith(("http://", "https://")):
        return McpServer(server.name, "remote", server.origin, cwd, url=url, headers=mapping("headers"))
    return None


def server_tools(settings: ClaudeSettings, cache: ListingCache | None = None,
                 start_s: float | None = None) -> dict[str, frozenset[str] | None]:
    """Per loaded server (its tool-name form), the tools it lists, as Claude names them; None for
    a server that could not be listed (its tools are then not known)."""
    from forge_tools.sources.mcp import list_servers

    loaded = [s for s in settings.mcp_servers if s.loaded]
    sources = {s.name: _as_source(s, settings.cwd) for s in loaded}
    listings, _problems = list_servers([m for m in sources.values() if m is not None], cache, start_s=start_s)
    listed = {item.server.name: frozenset(normalise(t.name) for t in item.tools) for item in listings}
    return {normalise(s.name): listed.get(s.name) for s in loaded}
