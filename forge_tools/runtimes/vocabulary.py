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
from typing import Any

from forge_tools.named_tuple import NamedTuple


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
    column.setdefault("todowrite", ("TodoWrite", {"todos": "todos"}))
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
#: each column's own tool names, so that a call no column names (`bash`, `read`) is put in the shared
#: words without importing any agent's modules (tests/runtimes: the same as the columns' names)
COLUMN_NAMES: dict[str, frozenset[str]] = {
    "claude": frozenset({"Bash", "Edit", "Glob", "Grep", "Read", "Task", "TodoWrite", "WebFetch",
                         "WebSearch", "Write"}),
    "codex": frozenset({"apply_patch", "exec_command"}),
    "gemini": frozenset({"glob", "google_web_search", "grep_search", "list_directory", "read_file",
                         "replace", "run_shell_command", "web_fetch", "write_file", "write_todos"}),
}
#: names an agent has for a shared tool besides its column's (read back only: a call of one is that
#: shared tool): runtime -> {its name: (shared id, {its argument: shared argument})}
ALIASES: dict[str, dict[str, tuple[str, dict[str, str]]]] = {
    "claude": {"MultiEdit": ("edit", {"file_path": "filePath"}),
               "NotebookEdit": ("edit", {"notebook_path": "filePath", "new_source": "newString"})},
    "codex": {"shell": ("bash", {"command": "command", "workdir": "workdir"}),
              "local_shell": ("bash", {"command": "command", "workdir": "workdir"})},
    "gemini": {"read_many_files": ("read", {"paths": "filePath"}),
               "search_file_content": ("grep", {"pattern": "pattern", "dir_path": "path"})},
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
    if tool == "web_fetch" and isinstance(args.get("prompt"), str):
        return SharedCall("webfetch", gemini_fetch_args(args["prompt"]))
    for runtime in COLUMNS:
        if tool not in COLUMN_NAMES.get(runtime, ()):
            continue  # not one of its names: its column (and its modules) need not be read
        own = column(runtime)
        if own is None:
            continue
        for shared, (name, keys) in own.items():
            if name == tool:
                back = {theirs: ours for ours, theirs in keys.items()}
                if name in own and any(k not in back and k in keys for k in args):
                    continue  # a name both vocabularies have (apply_patch), written in the shared words
                if name in own:
                    return SharedCall(shared, {back[k]: v for k, v in args.items() if k in back})
                return SharedCall(shared, {back.get(k, k): v for k, v in args.items()})
    for aliases in ALIASES.values():
        if tool in aliases:
            shared, back = aliases[tool]
            value = {back[k]: v for k, v in args.items() if k in back}
            if isinstance(value.get("command"), list):  # Codex's `shell` takes an argv
                import shlex

                value["command"] = shlex.join(str(w) for w in value["command"])
            if isinstance(value.get("filePath"), list):  # read_many_files: the first path
                value["filePath"] = str(value["filePath"][0]) if value["filePath"] else ""
            return SharedCall(shared, value)
    for server in sorted(mcp_servers, key=len, reverse=True):
        from forge_tools.sources.mcp import sanitize

        prefix = f"{sanitize(server)}_"
        if tool.startswith(prefix) and len(tool) > len(prefix):
            return SharedCall(tool, dict(args), (server, tool[len(prefix):]))
    gemini_mcp = _gemini_mcp(tool)
    if gemini_mcp is not None:
        return SharedCall(_mcp_name("opencode", *gemini_mcp), dict(args), gemini_mcp)
    server, dot, name = tool.partition(".")
    if dot and server and name and "." not in name and not any(c.isspace() for c in tool):
        return SharedCall(_mcp_name("opencode", server, name), dict(args), (server, name))  # Codex's form
    return SharedCall(tool, dict(args))


def gemini_fetch_args(prompt: str) -> dict[str, Any]:
    """Gemini CLI 0.61's `web_fetch {"prompt"}` in the shared words: the prompt is free text, split on
    whitespace, and each word holding `://` that parses as an http(s) URL is fetched (`parsePrompt` in
    @google/gemini-cli-core's tools/web-fetch.js); the shared call's `url` is the first such URL (the
    whole prompt when it has none: the gate then refuses it as no URL, as Gemini does)."""
    from urllib.parse import urlsplit

    for word in prompt.split():
        if "://" not in word:
            continue
        try:
            parts = urlsplit(word)
        except ValueError:
            continue
        if parts.scheme in ("http", "https") and parts.netloc:
            return {"url": word, "format": "markdown"}
    return {"url": prompt, "format": "markdown"}


class Translation(NamedTuple):
    """A call written in any agent's words, put in one runtime's: `own` (None: that agent has no such
    tool), the shared call, and what was translated, in words (None: nothing was)."""

    own: OwnCall | None
    shared: SharedCall
    said: str | None


def translate(runtime: str, tool: str, args: Mapping[str, Any] | None,
              mcp_servers: tuple[str, ...] = ()) -> Translation:
    """`tool` `args` (any agent's spelling: `bash`, `Bash`, `exec_command`, `run_shell_command`, an MCP
    name in any agent's form) in `runtime`'s words, for `explain`, `check --expect` and `diff
    --expect`: one answer for one call, whoever spells it."""
    shared = shared_call(tool, args or {}, mcp_servers)
    own = own_call(runtime, shared)
    if own is not None and own.tool == tool and set(args or {}) <= set(own.args):
        # already in its words: the arguments as given
        return Translation(OwnCall(tool, dict(args or {})), shared, None)
    from forge_tools.runtimes.found import display_name

    agent = display_name(runtime)
    if own is None:
        return Translation(None, shared,
                           f"{agent} has no tool for {tool} ({shared.tool} in forge-tools' words)")
    return Translation(own, shared, f"{tool} is {own.tool} in {agent}'s words")


def _gemini_mcp(tool: str) -> tuple[str, str] | None:
    """Gemini CLI's `mcp_server_tool` as (server, tool), split as Gemini splits it (first `_`)."""
    if not tool.startswith("mcp_") or tool.startswith("mcp__"):
        return None
    from forge_tools.runtimes.gemini.policy import parse_mcp_name

    return parse_mcp_name(tool)
