"""One call in every agent's words: the table that maps a tool call between the runtimes' vocabularies.

The shared vocabulary is forge-tools' tool ids (opencode's: `bash`, `read`, `edit`, `write`, `glob`,
`grep`, `webfetch`, `websearch`) with their argument names (`command`, `filePath`, ...); an MCP tool
is its (server, tool) pair. Each runtime has a column: its tool name and argument names for each
shared tool, or no entry when the agent has no such tool. opencode and forge-tools speak the shared
vocabulary itself. Claude Code's column is `runtimes/claude/gate.CALLS` read the other way (the one
place Claude's tool and input names are put in forge-tools' terms; Gemini CLI's is
`runtimes/gemini/tools.CALLS`), with the inputs Claude requires
and the shared call may not carry filled in (`REQUIRED_DEFAULTS`). A bash call is a bash call
everywhere; a new agent is one more column (`COLUMNS`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, NamedTuple


class OwnCall(NamedTuple):
    """A call in one runtime's words (None from `own_call`: the agent has no such tool)."""

    tool: str
    args: dict[str, Any]


class SharedCall(NamedTuple):
    """A call in the shared vocabulary: a forge-tools tool id, or an MCP tool by (server, tool)."""

    tool: str  # forge-tools' id (`bash`); for MCP, opencode's id (`srv_tool`)
    args: dict[str, Any]
    mcp: tuple[str, str] | None = None  # (server, tool) for an MCP tool

    def describe(self) -> str:
        """`git push origin main` for bash, else the tool and its arguments."""
        import json

        if self.tool == "bash" and isinstance(self.args.get("command"), str):
            return f"`{self.args['command']}`"
        if self.mcp is not None:
            return f"MCP {self.mcp[0]}/{self.mcp[1]} {json.dumps(self.args)}"
        return f"{self.tool} {json.dumps(self.args)}"


def _claude_column() -> dict[str, tuple[str, dict[str, str]]]:
    from forge_tools.runtimes.claude.gate import CALLS

    column = {forge_id: (claude, {ours: theirs for theirs, ours in keys.items()})
              for claude, (forge_id, keys) in CALLS.items()}
    column.setdefault("websearch", ("WebSearch", {"query": "query"}))
    column.setdefault("task", ("Task", {"description": "description", "prompt": "prompt",
                                        "subagent_type": "subagent_type"}))
    return column


def _codex_column() -> dict[str, tuple[str, dict[str, str]]]:
    """Codex's shell is `exec_command {"cmd"}`; edits and writes are one `apply_patch` (its `path`:
    the file the patch writes). Codex has no read, glob, grep or webfetch tool."""
    patch = ("apply_patch", {"filePath": "path", "patchText": "input"})
    return {"apply_patch": patch, "bash": ("exec_command", {"command": "cmd", "workdir": "workdir"}),
            "edit": patch, "write": patch}
def _gemini_column() -> dict[str, tuple[str, dict[str, str]]]:
    from forge_tools.runtimes.gemini.tools import column as gemini_column

    return gemini_column()


#: runtime -> its column (None: the shared vocabulary itself)
COLUMNS: dict[str, Callable[[], dict[str, tuple[str, dict[str, str]]]] | None] = {
    "opencode": None,
    "forge": None,
    "claude": _claude_column,
    "codex": _codex_column,
    "gemini": _gemini_column,
}
#: inputs an agent requires that a call in another vocabulary may not carry (empty is a valid value)
REQUIRED_DEFAULTS: dict[str, dict[str, dict[str, Any]]] = {
    "claude": {"Edit": {"old_string": "", "new_string": ""}, "Write": {"content": ""},
               "WebFetch": {"prompt": ""}},
    "opencode": {"edit": {"oldString": "", "newString": ""}, "write": {"content": ""}},
    "forge": {"edit": {"oldString": "", "newString": ""}, "write": {"content": ""}},
}
_column_cache: dict[str, dict[str, tuple[str, dict[str, str]]]] = {}


def column(runtime: str) -> dict[str, tuple[str, dict[str, str]]] | None:
    """`runtime`'s tools by shared id (None: it speaks the shared vocabulary)."""
    make = COLUMNS.get(runtime)
    if make is None:
        return None
    if runtime not in _column_cache:
        _column_cache[runtime] = make()
    return _column_cache[runtime]


def has_column(runtime: str) -> bool:
    return runtime in COLUMNS


def _mcp_name(runtime: str, server: str, tool: str) -> str:
    if runtime == "claude":
        from forge_tools.runtimes.claude.mcp import tool_name

        return tool_name(server, tool)
    if runtime == "codex":
        return f"mcp__{server}__{tool}"
    if runtime == "gemini":
        return f"mcp_{server}_{tool}"
    from forge_tools.sources.mcp import mcp_tool_id

    return mcp_tool_id(server, tool)


def own_call(runtime: str, call: SharedCall) -> OwnCall | None:
    """The call in `runtime`'s words, or None when that agent has no such tool."""
    defaults = REQUIRED_DEFAULTS.get(runtime, {})
    if call.mcp is not None:
        return OwnCall(_mcp_name(runtime, *call.mcp), dict(call.args))
    own = column(runtime)
    if own is None:
        return OwnCall(call.tool, {**defaults.get(call.tool, {}), **call.args})
    entry = own.get(call.tool)
    if entry is None:
        return None
    name, keys = entry
    args = {keys[k]: v for k, v in call.args.items() if k in keys}
    return OwnCall(name, {**defaults.get(name, {}), **args})


def shared_call(tool: str, args: Mapping[str, Any], mcp_servers: tuple[str, ...] = ()) -> SharedCall:
    """A call written in any runtime's words (`Bash {"command"}` or `bash {"command"}`) in the shared
    vocabulary. `mcp_servers`: the MCP servers the config names, so that opencode's `srv_tool` is
    known as (srv, tool)."""
    if tool.startswith("mcp__"):
        parts = tool[len("mcp__"):].split("__", 1)
        if len(parts) == 2 and all(parts):
            return SharedCall(_mcp_name("opencode", *parts), dict(args), (parts[0], parts[1]))
    for runtime in COLUMNS:
        own = column(runtime)
        if own is None:
            continue
        for shared, (name, keys) in own.items():
            if name == tool:
                back = {theirs: ours for ours, theirs in keys.items()}
                if any(k not in back and k in keys for k in args):
                    continue  # a name both vocabularies have (apply_patch), written in the shared words
                return SharedCall(shared, {back[k]: v for k, v in args.items() if k in back})
    from forge_tools.sources.mcp import sanitize

    for server in sorted(mcp_servers, key=len, reverse=True):
        prefix = f"{sanitize(server)}_"
        if tool.startswith(prefix) and len(tool) > len(prefix):
            return SharedCall(tool, dict(args), (server, tool[len(prefix):]))
    gemini_mcp = _gemini_mcp(tool)
    if gemini_mcp is not None:
        return SharedCall(_mcp_name("opencode", *gemini_mcp), dict(args), gemini_mcp)
    return SharedCall(tool, dict(args))


def _gemini_mcp(tool: str) -> tuple[str, str] | None:
    """Gemini CLI's `mcp_server_tool` as (server, tool), split as Gemini splits it (first `_`)."""
    if not tool.startswith("mcp_") or tool.startswith("mcp__"):
        return None
    from forge_tools.runtimes.gemini.policy import parse_mcp_name

    return parse_mcp_name(tool)
