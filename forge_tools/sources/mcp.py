"""MCP servers, the fourth source (SPEC 2): the `mcp` config's servers and their tools (the source
itself, which imports this module only when a server may be started, is `mcp_source.McpServerSource`).

Each enabled server is connected with the official `mcp` SDK (`local`: its `command` over stdio with its
`environment`; `remote`: streamable HTTP, then SSE, with its `headers`), all at once: it may take
`start_timeout()` seconds to start (60, FORGE_MCP_START_TIMEOUT) and its `timeout` (milliseconds, default
5000, as opencode) to list its tools. A tool's id is the sanitised server name and tool name joined by
`_`; its permission name is the id. A server that fails is one located `McpServerUnavailable` naming its
config key (with the tail of its stderr); the other servers' tools still load.

Listings are cached (`ListingCache`) under a key made from the server's config, so a second `explain`
starts nothing; a failure is remembered for `FAILURE_MAX_AGE_S` and shown again each time, as opencode
shows a failed server, instead of being waited for again. `servers_needed` picks the servers that could
list a given tool id (none for a builtin). The SDK is imported only when a server is really connected.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from forge_tools.errors import ConfigError, ConfigProblem, McpServerUnavailable
from forge_tools.named_tuple import NamedTuple
from forge_tools.origin import Node, Origin, format_key_path
from forge_tools.sources.mcp_source import NOTE_NOT_CONNECTED as NOTE_NOT_CONNECTED
from forge_tools.sources.mcp_source import configured_server_names as configured_server_names
from forge_tools.sources.mcp_source import sanitize as sanitize

if TYPE_CHECKING:
    from forge_tools.tools.contract import Tool, ToolContext, ToolResult

DEFAULT_TIMEOUT_MS = 5000  # opencode's default for listing a server's tools
START_TIMEOUT_S = 60.0  # starting a server (an `npx` download) may take long; the SDKs' request default
START_TIMEOUT_ENV = "FORGE_MCP_START_TIMEOUT"
CACHE_MAX_AGE_S = 24 * 3600
FAILURE_MAX_AGE_S = 300.0  # a failed server is not tried again for this long (FORGE_MCP_REFRESH=1 does)
REFRESH_ENV = "FORGE_MCP_REFRESH"
Progress = Callable[[str], None]


def mcp_tool_id(server: str, tool: str) -> str:
    return f"{sanitize(server)}_{sanitize(tool)}"


@dataclass(frozen=True)
class McpServer:
    """One configured server, with the config key it was written at."""

    name: str
    kind: Literal["local", "remote"]
    origin: Origin
    cwd: Path
    command: tuple[str, ...] = ()
    environment: Mapping[str, str] = field(default_factory=dict)
    url: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    timeout_ms: int = DEFAULT_TIMEOUT_MS

    @property
    def key(self) -> str:
        return format_key_path(("mcp", self.name))

    def cache_key(self) -> str:
        """What decides the listing: the way the server is started or reached (secrets only hashed)."""
        import hashlib  # here, not at the top: a project without MCP servers never pays for OpenSSL

        ident = {"type": self.kind, "command": list(self.command), "environment": dict(self.environment),
                 "url": self.url, "headers": dict(self.headers), "cwd": str(self.cwd)}
        return hashlib.sha256(json.dumps(ident, sort_keys=True).encode()).hexdigest()[:32]

    @property
    def prefix(self) -> str:
        """What every tool id of this server starts with."""
        return f"{sanitize(self.name)}_"

    def problem(self, why: str, remembered: float | None = None) -> McpServerUnavailable:
        """The outage as one located problem; `remembered`: when a remembered failure was recorded."""
        note = ""
        if remembered is not None:
            ago = max(0, round(time.time() - remembered))
            left = max(1, round(FAILURE_MAX_AGE_S - ago))
            note = (f" (failed {ago} s ago and not tried again for {left} s; set {REFRESH_ENV}=1 to try "
                    "now)")
        return McpServerUnavailable(f"MCP server {self.key}: {why}; its tools were not loaded{note}",
                                    self.origin)


class McpToolDef(NamedTuple):
    """One tool a server lists: its name, description and input JSON Schema."""

    name: str
    description: str
    input_schema: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "description": self.description, "input_schema": self.input_schema}


class McpListing(NamedTuple):
    """One server's tools, and whether they came from the listing cache."""

    server: McpServer
    tools: list[McpToolDef]
    cached: bool = False


# --------------------------------------------------------------------------------------- the config


def servers_from_config(tree: Node | None, cwd: Path) -> tuple[list[McpServer], list[ConfigError]]:
    """The enabled servers of `mcp` in config order, and one located problem per malformed entry.

    `enabled: false` servers are skipped (opencode marks them disabled and starts nothing).
    """
    node = tree.get("mcp") if tree is not None else None
    if node is None or node.value is None:
        return [], []
    if not node.is_map:
        return [], [ConfigError("`mcp` must be a map of server names to server settings", node.origin,
                                   code=ConfigProblem.TYPE)]
    servers: list[McpServer] = []
    problems: list[ConfigError] = []
    for name, entry in node.items():
        where = entry.key_origin or entry.origin
        try:
            server = _server(name, entry, where, cwd)
        except ConfigError as exc:
            problems.append(exc)
            continue
        if server is not None:
            servers.append(server)
    return servers, problems


def _bad(name: str, why: str, origin: Origin) -> ConfigError:
    """An MCP entry whose value has the wrong type or lacks what its kind needs (FT002)."""
    return ConfigError(f"MCP server {format_key_path(('mcp', name))}: {why}", origin, code=ConfigProblem.TYPE)


def _str_map(name: str, entry: Node, key: str) -> dict[str, str]:
    node = entry.get(key)
    if node is None or node.value is None:
        return {}
    if not node.is_map or not all(isinstance(v.value, str) for _, v in node.items()):
        raise _bad(name, f"`{key}` must be a map of names to strings", node.origin)
    return {k: v.value for k, v in node.items()}


def _server(name: str, entry: Node, where: Origin, cwd: Path) -> McpServer | None:
    if not entry.is_map:
        raise _bad(name, "expected a map with `type` local or remote", entry.origin)
    enabled = entry.get("enabled")
    if enabled is not None and not isinstance(enabled.value, bool):
        raise _bad(name, "`enabled` must be true or false", enabled.origin)
    if enabled is not None and enabled.value is False:
        return None
    kind_node = entry.get("type")
    kind = kind_node.value if kind_node is not None else None
    timeout_node = entry.get("timeout")
    timeout = DEFAULT_TIMEOUT_MS
    if timeout_node is not None:
        value = timeout_node.value
        if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
            raise _bad(name, "`timeout` must be a positive whole number of milliseconds",
                       timeout_node.origin)
        timeout = value
    if kind == "local":
        command = entry.get("command")
        if (command is None or not command.is_list or not command.value
                or not all(isinstance(p.value, str) for p in command.value)):
            raise _bad(name, "a local server needs `command`: a non-empty list of strings, e.g. "
                       '["npx", "-y", "@modelcontextprotocol/server-filesystem", "."]',
                       (command.origin if command is not None else where))
        # `cwd`: where opencode 1.18.33 starts the server ("relative paths resolve from the workspace
        # directory"); the project's cwd when unset
        cwd_node = entry.get("cwd")
        if cwd_node is not None and not isinstance(cwd_node.value, str):
            raise _bad(name, "`cwd` must be a directory path (a string)", cwd_node.origin)
        server_cwd = cwd / cwd_node.value if cwd_node is not None else cwd
        return McpServer(name, "local", where, server_cwd, command=tuple(p.value for p in command.value),
                         environment=_str_map(name, entry, "environment"), timeout_ms=timeout)
    if kind == "remote":
        url = entry.get("url")
        if url is None or not isinstance(url.value, str) or not url.value.startswith(("http://", "https://")):
            raise _bad(name, "a remote server needs `url`: an http:// or https:// address",
                       url.origin if url is not None else where)
        return McpServer(name, "remote", where, cwd, url=url.value,
                         headers=_str_map(name, entry, "headers"), timeout_ms=timeout)
    at = kind_node.origin if kind_node is not None else where
    raise _bad(name, f"`type` must be \"local\" or \"remote\", not {json.dumps(kind)}", at)


# --------------------------------------------------------------------------------------------- cache


def start_timeout(env: Mapping[str, str] | None = None) -> float:
    """Seconds a server may take to start and answer `initialize`: FORGE_MCP_START_TIMEOUT, else 60."""
    import math

    env = os.environ if env is None else env
    text = env.get(START_TIMEOUT_ENV, "").strip()
    if not text:
        return START_TIMEOUT_S
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not (value > 0 and math.isfinite(value)):
        raise ConfigError(f"{START_TIMEOUT_ENV} must be a positive number of seconds, not {text!r}")
    return value


class RememberedFailure(NamedTuple):
    why: str
    saved: float


class ListingCache:
    """Each server's tool listing, or its recent failure, as JSON in a private directory (0700, files
    0600), keyed by `McpServer.cache_key`; a listing older than a day, a failure older than
    `FAILURE_MAX_AGE_S`, or any entry with FORGE_MCP_REFRESH=1 set, is tried again."""

    def __init__(self, directory: Path, refresh: bool = False, max_age: float = CACHE_MAX_AGE_S,
                 failure_max_age: float = FAILURE_MAX_AGE_S) -> None:
        self.directory = directory
        self.refresh = refresh
        self.max_age = max_age
        self.failure_max_age = failure_max_age

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> ListingCache:
        from forge_tools.paths import data_dir

        env = os.environ if env is None else env
        return cls(data_dir(env) / "mcp-tools", refresh=env.get(REFRESH_ENV, "") not in ("", "0"))

    def _path(self, server: McpServer) -> Path:
        return self.directory / f"{server.cache_key()}.json"

    def _entry(self, server: McpServer, max_age: float) -> dict[str, Any] | None:
        if self.refresh:
            return None
        try:
            data = json.loads(self._path(server).read_text(encoding="utf-8"))
            age = time.time() - float(data["saved"])
        except (OSError, ValueError, KeyError, TypeError):
            return None
        return data if isinstance(data, dict) and 0 <= age <= max_age else None

    def get(self, server: McpServer) -> list[McpToolDef] | None:
        data = self._entry(server, self.max_age)
        try:
            return [McpToolDef(str(t["name"]), str(t["description"]), dict(t["input_schema"]))
                    for t in data["tools"]] if data is not None else None
        except (ValueError, KeyError, TypeError):
            return None

    def failure(self, server: McpServer) -> RememberedFailure | None:
        """The server's failure when it failed less than `failure_max_age` ago."""
        data = self._entry(server, self.failure_max_age)
        if data is None or not isinstance(data.get("failed"), str):
            return None
        return RememberedFailure(data["failed"], float(data["saved"]))

    def put_failure(self, server: McpServer, why: str) -> None:
        from forge_tools.paths import write_private_cache

        write_private_cache(self._path(server), json.dumps(
            {"server": server.name, "saved": time.time(), "failed": why}))

    def put(self, server: McpServer, tools: Sequence[McpToolDef]) -> None:
        """Best effort: a cache that cannot be written only costs the next run a connection."""
        from forge_tools.paths import write_private_cache

        write_private_cache(self._path(server), json.dumps(
            {"server": server.name, "saved": time.time(), "tools": [t.to_json() for t in tools]}))


# ---------------------------------------------------------------------------------------- connecting


def _message(exc: BaseException) -> str:
    """The innermost useful text of an SDK error (they arrive wrapped in exception groups)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _stderr_tail(handle: Any, lines_kept: int = 3, limit: int = 400) -> str:
    """The last few non-empty lines a server wrote to stderr, on one line (`|` between them)."""
    try:
        handle.flush()
        handle.seek(0)
        lines = [ln.strip() for ln in handle.read().splitlines() if ln.strip()]
    except (OSError, ValueError):
        return ""
    tail = " | ".join(lines[-lines_kept:])
    return tail if len(tail) <= limit else "..." + tail[-limit:]


async def _open(server: McpServer, stack: Any, argv: Sequence[str] | None = None) -> Any:
    """Connect and initialise; returns the ClientSession (closed by `stack`). `argv` starts a local
    server instead of its command (the command inside `run`'s sandbox)."""
    import tempfile

    from mcp import ClientSession

    if server.kind == "local":
        from forge_tools.sources.mcp_stdio import stdio_streams

        errlog = stack.enter_context(
            tempfile.TemporaryFile(mode="w+", encoding="utf-8", errors="replace"))  # noqa: SIM115
        stack.errlog = errlog
        stack.callback(stack.keep_stderr_tail)  # runs once the server has exited, before errlog closes
        command, *args = argv if argv is not None else server.command
        env = {**os.environ, **dict(server.environment)}
        read, write = await stack.enter_async_context(stdio_streams(command, args, env, server.cwd, errlog))
        session = await stack.enter_async_context(ClientSession(read, write))
        await session.initialize()
        return session
    return await _open_remote(server, stack, ClientSession)


async def _open_remote(server: McpServer, stack: Any, client_session: Any) -> Any:
    """Streamable HTTP first, then SSE, as opencode tries them. A failed attempt's contexts exit with
    its exception (the SDK's task groups need that to unwind in the task that entered them)."""
    from contextlib import AsyncExitStack

    import httpx2
    from mcp.client.sse import sse_client
    from mcp.client.streamable_http import streamable_http_client

    assert server.url is not None
    failures: list[str] = []
    for transport in ("streamable HTTP", "SSE"):
        try:
            async with AsyncExitStack() as attempt:
                if transport == "SSE":
                    streams = await attempt.enter_async_context(
                        sse_client(server.url, headers=dict(server.headers)))
                else:
                    http = await attempt.enter_async_context(httpx2.AsyncClient(headers=dict(server.headers)))
                    streams = await attempt.enter_async_context(
                        streamable_http_client(server.url, http_client=http))
                session = await attempt.enter_async_context(client_session(streams[0], streams[1]))
                await session.initialize()
                stack.push_async_exit(attempt.pop_all())
            return session
        except Exception as exc:
            failures.append(f"{transport}: {_message(exc)}")
    raise ConnectionError("; ".join(failures))


class _Stack(contextlib.AsyncExitStack):
    """The connection's contexts, and the stdio server's stderr file (for failure messages): its tail is
    kept when the stack unwinds, after the server exited and before the file is closed."""

    errlog: Any = None
    stderr_tail: str = ""

    def keep_stderr_tail(self) -> None:
        self.stderr_tail = _stderr_tail(self.errlog)


def _seconds(value: float) -> str:
    return f"{value:g} s"


def _fail_why(server: McpServer, exc: BaseException, stack: _Stack, stage: str, limit: str = "",
              limit_by: str = "") -> str:
    """Why a connection failed, in words, with the tail of the server's stderr. `limit` is the time
    `stage` had ("300 ms") and `limit_by` what set it."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    if isinstance(exc, TimeoutError):
        why = f"{stage} timed out"
        if limit:
            why += f" after {limit}" + (f" ({limit_by})" if limit_by else "")
    elif server.kind == "local" and isinstance(exc, OSError) and not isinstance(exc, ConnectionError):
        why = f"cannot start {server.command[0]!r}: {exc.strerror or exc}"
    else:
        why = f"{stage} failed: {_message(exc)}"
    tail = stack.stderr_tail or (_stderr_tail(stack.errlog) if stack.errlog is not None else "")
    return f"{why} (server stderr: {tail})" if tail else why


def _start_limit_by(start_s: float) -> str:
    if start_s == START_TIMEOUT_S:
        return f"the start limit; set {START_TIMEOUT_ENV} to change it"
    return "the start limit"


async def _list_one(server: McpServer, start_s: float, start_by: str = "",
                    sandbox: tuple[str, Path] | None = None) -> list[McpToolDef]:
    """Connect (within `start_s`) and list (within the server's timeout). One cancel scope holds the
    connection's whole life: the SDK's transports run task groups that must close inside it."""
    import anyio

    stack = _Stack()
    stage = "connecting"
    limit, limit_by = _seconds(start_s), start_by or _start_limit_by(start_s)
    failure: BaseException | None = None
    tools: list[McpToolDef] = []
    with anyio.CancelScope(deadline=anyio.current_time() + start_s) as scope:
        try:
            async with stack:
                launch = _listing_launch(server, sandbox)
                if launch is not None:
                    if launch.refusal is not None:
                        raise ConnectionError(launch.refusal)
                    stack.callback(launch.finish)
                session = await _open(server, stack, launch.argv if launch is not None else None)
                stage = "listing its tools"
                limit, limit_by = f"{server.timeout_ms} ms", f"raise `timeout` in {server.key}"
                scope.deadline = anyio.current_time() + server.timeout_ms / 1000
                cursor: str | None = None
                while True:
                    if cursor is None:
                        page = await session.list_tools()
                    else:
                        from mcp import types

                        page = await session.list_tools(params=types.PaginatedRequestParams(cursor=cursor))
                    for t in page.tools:
                        tools.append(McpToolDef(t.name, t.description or "", dict(t.input_schema or {})))
                    cursor = page.next_cursor
                    if not cursor:
                        break
        except Exception as exc:
            failure = exc
    if scope.cancelled_caught:
        failure = TimeoutError()
    if failure is not None:
        raise ConnectionError(_fail_why(server, failure, stack, stage, limit, limit_by))
    return tools


def _run_async(fn: Any, *args: Any) -> Any:
    import anyio

    return anyio.run(fn, *args)


def list_servers(servers: Sequence[McpServer], cache: ListingCache | None = None, *,
                 start_s: float | None = None, start_by: str = "", progress: Progress | None = None,
                 sandbox: tuple[str, Path] | None = None) -> tuple[list[McpListing], list[ConfigError]]:
    """Every server's tools (from the cache when it holds them, else connecting to all the others at
    once), in config order, with one problem per server that failed (a failure remembered in the cache
    is reported again without connecting). Each start may take `start_timeout()`, or `start_s` when
    that is shorter (`start_by` says what set it); `progress` hears which servers are still awaited.
    With `sandbox` (`run`'s setting and project root) a local server lists its tools inside the
    sandbox with the whole project read-only (`_listing_launch`)."""
    listings: dict[str, McpListing] = {}
    to_connect: list[McpServer] = []
    failures: dict[str, ConfigError] = {}
    for server in servers:
        hit = cache.get(server) if cache is not None else None
        remembered = cache.failure(server) if cache is not None and hit is None else None
        if hit is not None:
            listings[server.name] = McpListing(server, hit, cached=True)
        elif remembered is not None:
            failures[server.name] = server.problem(remembered.why, remembered.saved)
        else:
            to_connect.append(server)
    if to_connect:
        limit = start_timeout()
        if start_s is not None and start_s < limit:
            limit = start_s
        else:
            start_by = ""
        pending = [s.name for s in to_connect]

        def tell() -> None:
            if progress is not None and pending:
                progress(f"listing the tools of MCP server{'s' if len(pending) > 1 else ''} "
                         f"{', '.join(pending)}")

        async def connect_all() -> None:
            import anyio

            async def one(server: McpServer) -> None:
                try:
                    tools = await _list_one(server, limit, start_by, sandbox)
                except ConnectionError as exc:
                    failures[server.name] = server.problem(str(exc))
                    if cache is not None:
                        cache.put_failure(server, str(exc))
                else:
                    listings[server.name] = McpListing(server, tools)
                    if cache is not None:
                        cache.put(server, tools)
                pending.remove(server.name)
                tell()

            tell()
            async with anyio.create_task_group() as group:
                for server in to_connect:
                    group.start_soon(one, server)

        _run_async(connect_all)
    ordered = [listings[s.name] for s in servers if s.name in listings]
    return ordered, [failures[s.name] for s in servers if s.name in failures]


# ------------------------------------------------------------------------------------------ as tools


def tool_schema(input_schema: Mapping[str, Any]) -> dict[str, Any]:
    """opencode's reading of a server's input schema: always an object, no extra properties."""
    schema = dict(input_schema)
    schema["type"] = "object"
    schema["properties"] = schema.get("properties") or {}
    schema["additionalProperties"] = False
    return schema


def mcp_tools(listings: Sequence[McpListing]) -> list[Tool]:
    """Each listed tool as a normal `Tool` whose execute calls the server (a later same id replaces an
    earlier one, as in opencode's map of tools)."""
    from forge_tools.tools.contract import Tool, ToolSource

    tools: list[Tool] = []
    for listing in listings:
        server = listing.server
        source = ToolSource("mcp", path=server.origin.path, line=server.origin.line, server=server.name)
        for definition in listing.tools:
            tools.append(Tool(
                id=mcp_tool_id(server.name, definition.name), description=definition.description,
                parameters=tool_schema(definition.input_schema),
                execute=_executor(server, definition.name), source=source,
            ))
    return tools


def _executor(server: McpServer, name: str) -> Any:
    async def execute(args: Any, ctx: ToolContext) -> ToolResult:
        return await call_server_tool(server, name, dict(args or {}), ctx)

    return execute


async def call_server_tool(server: McpServer, name: str, arguments: dict[str, Any],
                           ctx: ToolContext) -> ToolResult:
    """Connect, call one tool, and turn its content into a result (text joined; other content named).

    `ctx.timeout` (`run --timeout`) bounds the whole call, connecting included. Without it connecting
    may take `start_timeout()` and the call the server's `timeout`, counted again from each progress
    notification the server sends (opencode's `resetTimeoutOnProgress`), so a server that never
    answers cannot hang the run. Ctrl-C (`ctx.abort`) cancels the call.
    """
    import anyio

    from forge_tools.tools.contract import ToolResult

    stack = _Stack()
    outcome: dict[str, Any] = {}
    failure: BaseException | None = None
    stage = "connecting"
    began = anyio.current_time()
    whole = ctx.timeout if ctx.timeout else None
    start_s = start_timeout()
    connect_s = min(whole, start_s) if whole is not None else start_s
    if whole is not None and whole <= start_s:
        limit, limit_by = _seconds(whole), "the call's --timeout, connecting included"
    else:
        limit, limit_by = _seconds(start_s), _start_limit_by(start_s)
    call_s = server.timeout_ms / 1000
    launch = _sandboxed(server, ctx)
    if launch is not None and launch.refusal is not None:
        return ToolResult(output=launch.refusal, title=name, is_error=True,
                          metadata={"mcp_server": server.name, "error": "sandbox", **launch.state})

    async def watch_abort(scope: Any) -> None:
        while not ctx.abort.aborted:
            await anyio.sleep(0.05)
        scope.cancel()

    async with anyio.create_task_group() as group:
        group.start_soon(watch_abort, group.cancel_scope)
        with anyio.CancelScope(deadline=began + connect_s) as scope:

            async def on_progress(progress: float, total: float | None, message: str | None) -> None:
                if whole is None:
                    scope.deadline = anyio.current_time() + call_s

            try:
                async with stack:
                    if launch is not None:
                        stack.callback(launch.finish)  # after the server exited
                    session = await _open(server, stack, launch.argv if launch is not None else None)
                    stage = "calling the tool"
                    if whole is not None:
                        limit, limit_by = _seconds(whole), "the call's --timeout, connecting included"
                        scope.deadline = began + whole
                    else:
                        limit = f"{server.timeout_ms} ms"
                        limit_by = f"the server's `timeout`; raise it in {server.key}"
                        scope.deadline = anyio.current_time() + call_s
                    outcome["result"] = await session.call_tool(name, arguments,
                                                                progress_callback=on_progress)
            except Exception as exc:
                failure = exc
        if scope.cancelled_caught and not ctx.abort.aborted:
            failure = TimeoutError()
        group.cancel_scope.cancel()
    if failure is not None:
        why = _fail_why(server, failure, stack, stage, limit, limit_by)
        raise RuntimeError(f"MCP server {server.key}: {why}")
    if "result" not in outcome:
        return ToolResult(output="The call was aborted.", title=name, metadata={"aborted": True},
                          is_error=True)
    result = outcome["result"]
    parts: list[str] = []
    for block in getattr(result, "content", None) or []:
        kind = getattr(block, "type", "")
        if kind == "text":
            parts.append(block.text)
        elif kind == "resource" and getattr(block.resource, "text", None) is not None:
            parts.append(block.resource.text)
        else:
            mime = getattr(block, "mime_type", None) or getattr(block, "mimeType", None) or ""
            parts.append(f"[{kind} content{' ' + mime if mime else ''}]")
    metadata: dict[str, Any] = {"mcp_server": server.name, "mcp_tool": name,
                                **(launch.state if launch is not None else {})}
    structured = getattr(result, "structured_content", None)
    if structured is not None:
        metadata["structured"] = structured
    is_error = bool(getattr(result, "is_error", False))
    return ToolResult(output="\n".join(parts), title=name, metadata=metadata, is_error=is_error)


def _listing_launch(server: McpServer, sandbox: tuple[str, Path] | None) -> Any:
    """A local server's start to list its tools inside `run`'s sandbox: before any call is decided,
    so with the whole project read-only and no network (`tools.sandbox.LISTING_RULES`)."""
    from forge_tools.tools.sandbox import LISTING_RULES, for_call, server_paths

    if sandbox is None or server.kind != "local" or sandbox[0] == "off":
        return None
    extra = {"sandbox": sandbox[0], "ruleset": LISTING_RULES, "commands": [" ".join(server.command)],
             "programs": server_paths(server.command, server.environment, server.cwd)}
    return for_call(list(server.command), server.cwd, extra, sandbox[1], ())


def _sandboxed(server: McpServer, ctx: ToolContext) -> Any:
    """A local server's start inside `run`'s sandbox (the one bash gets: the same rules, the same
    writable set), or None where `run` asked for none (a remote server, `--no-sandbox`, a library
    call without a run's rules). The server's own program is mounted read-only when it lives outside
    the system dirs (a venv's python, a node install), so the server can start at all."""
    from forge_tools.tools.sandbox import for_call, server_paths, setting_of

    if server.kind != "local" or setting_of(ctx.extra) == "off":
        return None
    extra = {**ctx.extra, "commands": [" ".join(server.command)],
             "programs": server_paths(server.command, server.environment, server.cwd)}
    return for_call(list(server.command), server.cwd, extra, ctx.project_root, ())


# -------------------------------------------------------------------------------------------- source


class McpSource(NamedTuple):
    """The MCP source of a config: its tools, the servers' problems, notes, and why the servers that
    failed listed nothing (by tool-id prefix, `<server>_`: an unknown id with it gets the reason)."""

    tools: list[Tool]
    problems: list[ConfigError]
    notes: list[str]
    unlisted: dict[str, str]


def servers_needed(servers: Sequence[McpServer], tool_id: str | None) -> list[McpServer]:
    """The servers that could list `tool_id` (every server for None): an id that starts with no
    server's `<name>_` (a builtin such as bash) needs none, so asking about it starts nothing."""
    if tool_id is None:
        return list(servers)
    return [s for s in servers if tool_id.startswith(s.prefix)]


def load_mcp_tools(tree: Node | None, cwd: Path, cache: ListingCache | None = None, *,
                   tool_id: str | None = None, start_s: float | None = None, start_by: str = "",
                   progress: Progress | None = None, sandbox: tuple[str, Path] | None = None) -> McpSource:
    """The fourth source for a loaded config: servers read, connected (or cached), as tools. With
    `tool_id`, only the servers that could list it (`servers_needed`); `start_s`, `start_by` and
    `progress` as `list_servers` takes them; `sandbox` is `run`'s setting and project root."""
    servers, problems = servers_from_config(tree, cwd)
    needed = servers_needed(servers, tool_id)
    notes = []
    skipped = [s.name for s in servers if s not in needed]
    if skipped:
        notes.append(f"MCP server{'s' if len(skipped) > 1 else ''} {', '.join(skipped)} not started: "
                     f"{tool_id!r} cannot be one of their tools")
    if not needed:
        return McpSource([], problems, notes, {})
    listings, failures = list_servers(needed, cache if cache is not None else ListingCache.from_env(),
                                      start_s=start_s, start_by=start_by, progress=progress,
                                      sandbox=sandbox)
    cached = [lst.server.name for lst in listings if lst.cached]
    if cached:
        notes.append(f"MCP tools of {', '.join(cached)} from the listing cache (set {REFRESH_ENV}=1 to "
                     "connect again)")
    unlisted = {s.prefix: f.message for s in needed for f in failures
                if f.message.startswith(f"MCP server {s.key}:")}
    return McpSource(mcp_tools(listings), [*problems, *failures], notes, unlisted)

