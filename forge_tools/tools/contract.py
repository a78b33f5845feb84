"""The one contract every tool is wrapped into, whatever its source (SPEC 1).

A `Tool` has an id, a description, a parameter schema (a pydantic model, or a JSON Schema dict for
plugin tools), an `execute` (sync or async) and, optionally, `permission_requests`: a pure function from
validated arguments to the permission checks a call needs (SPEC 4.4). Keeping that function pure lets
`explain --call` and `check --expect` show per-call decisions without running anything.

Listing tools needs only ids, descriptions and schemas, and pydantic's model machinery costs about as
much as the rest of a `layers` run: a `LazyTool` (every builtin, every `@tool` function) is known by
those and builds its code, argument model included, on first use of anything else.
"""

from __future__ import annotations

import copy
import inspect
import sys
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import (
    TYPE_CHECKING,
    Any,
    Literal,
    Protocol,
    TypeAlias,
    get_type_hints,
    runtime_checkable,
)

from forge_tools.named_tuple import NamedTuple

if TYPE_CHECKING:
    from pathlib import Path

    from pydantic import BaseModel, ValidationError

    from forge_tools.errors import ForgeToolsError
    from forge_tools.origin import Node

    # re-exported for tools (see `__getattr__`): the types checkers see
    from forge_tools.permission.calls import PermissionRequest as PermissionRequest
    from forge_tools.tools.context import AbortSignal as AbortSignal
    from forge_tools.tools.context import AskFn as AskFn
    from forge_tools.tools.context import Attachment as Attachment
    from forge_tools.tools.context import PeekFn as PeekFn
    from forge_tools.tools.context import ToolContext as ToolContext
    from forge_tools.tools.context import ToolResult as ToolResult

SourceKind = Literal["builtin", "script", "plugin", "mcp"]


@dataclass(frozen=True)
class ToolSource:
    """Where a candidate tool came from (SPEC 2). `flavour` is "opencode" for opencode's own
    TypeScript/JavaScript script tools; `server` names the `mcp` server of an MCP tool."""

    kind: SourceKind
    path: str | None = None
    plugin: str | None = None
    line: int | None = None
    server: str | None = None
    flavour: str | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "path": self.path, "plugin": self.plugin}
        if self.server is not None:
            out["server"] = self.server
        if self.flavour is not None:
            out["flavour"] = self.flavour
        return out

    def __str__(self) -> str:
        if self.kind == "builtin":
            return "builtin"
        if self.kind == "script":
            return f"script ({self.flavour}) {self.path}" if self.flavour else f"script {self.path}"
        if self.kind == "mcp":
            return f"mcp {self.server}"
        return f"plugin {self.plugin}" + (f" ({self.path})" if self.path else "")


BUILTIN = ToolSource("builtin")


# ------------------------------------------------------------------------------- the source protocol


class SourceQuery(NamedTuple):
    """What every tool source is asked with: the project's config dirs, its merged config tree (the
    `mcp` servers) and `plugin` entries, and the turn's switches. `tool_id` names the one tool a
    question is about (None: every tool), so a source that must start something starts only what
    could list it; `start_s`, `start_by` and `progress` are how long a server may take to start,
    what set that limit, and who hears what is being started."""

    config_dirs: tuple[Path, ...] = ()
    tree: Node | None = None
    plugin_specs: tuple[Any, ...] = ()
    cwd: Path | None = None
    flags: frozenset[str] = frozenset()
    client: str = "cli"
    pure: bool = False  # `--pure`: no external plugin
    no_mcp: bool = False  # `--no-mcp`: no MCP server is started
    tool_id: str | None = None
    start_s: float | None = None
    start_by: str = ""
    progress: Callable[[str], None] | None = None
    sandbox: str = "off"  # `run`'s sandbox setting, for the local MCP servers started to list tools
    project_root: Path | None = None
    #: the config is opencode's files (`permission.agents.is_opencode_project`, not a project without
    #: any config): its builtins are opencode 1.18.33's, which has no `list` tool
    opencode: bool = False


class Listed(NamedTuple):
    """One tool a source lists: its id, the tool (None when only the id is known, from a static
    scan), and where it came from."""

    id: str
    tool: Tool | None
    source: ToolSource


class Unlisted(NamedTuple):
    """A part of a source whose tools are not listed (a plugin not imported, an MCP server not
    started or failed): where it is, how a person names it, and why. `prefix` is the id prefix its
    tools would carry when it has one (`<server>_`), so an unknown id with it gets this reason."""

    source: ToolSource
    label: str
    why: str
    prefix: str | None = None


class Listing(NamedTuple):
    """A source's answer: its tools in order, the problems met (each located where it is), notes for
    the person, the parts whose tools are not listed, and (plugins) the hooks object."""

    tools: Sequence[Listed] = ()
    problems: Sequence[ForgeToolsError] = ()
    notes: Sequence[str] = ()
    unlisted: Sequence[Unlisted] = ()
    hooks: Any = None  # sources.plugins.PluginHooks, for layer two and the call wrapper


@runtime_checkable
class Source(Protocol):
    """A source of candidate tools (SPEC 2). `name` is how docs and tests name it. Both methods list
    the source's tools and say where each came from (`Listed.source`, a `ToolSource`):

    - `scan` reads files and config only and never runs a project's scripts, plugins or MCP servers
      (what `check` and `load_code=False` ask);
    - `load` may run them (what `layers`, `explain` and `run` ask with code loaded).

    Where `scan` cannot know a part's tools it says so in `Listing.unlisted`; the ids and origins it
    does list are those `load` lists (tests/sources/test_source_protocol.py holds every source to it).
    """

    name: str

    def scan(self, query: SourceQuery) -> Listing: ...

    def load(self, query: SourceQuery) -> Listing: ...


ExecuteReturn: TypeAlias = "str | ToolResult"
ExecuteFn: TypeAlias = "Callable[[Any, ToolContext], ExecuteReturn | Awaitable[ExecuteReturn]]"
RequestsFn: TypeAlias = "Callable[[Any, ToolContext], list[PermissionRequest]]"


@dataclass
class Tool:
    """A candidate tool. `parameters` is a pydantic model class or a JSON Schema dict."""

    id: str
    description: str
    parameters: type[BaseModel] | dict[str, Any]
    execute: ExecuteFn
    source: ToolSource = BUILTIN
    permission_requests: RequestsFn | None = None
    # Gets a pydantic ValidationError, or for JSON Schema tools a wrapper.SchemaValidationError with the
    # same `errors()` shape.
    format_validation_error: Callable[[Any], str] | None = None
    internal: bool = False  # e.g. `invalid`: goes through the layers but is not for direct use
    # why forge-tools cannot execute this tool (opencode's TypeScript tools); the wrapper refuses it
    # before validating or asking, so nobody is asked to approve a call that cannot happen
    cannot_run: str | None = None
    # why the agent checks no input against `parameters` (opencode's script tools): the input is taken
    # as it is, a JSON object, so no call is refused that the agent would run
    unchecked_input: str | None = None

    def json_schema(self) -> dict[str, Any]:
        if isinstance(self.parameters, dict):
            return self.parameters
        from forge_tools.tools.schema_cache import model_schema  # builtins': shipped, computed once

        return model_schema(self.parameters)


class _Deferred:
    """A `Tool` field a `LazyTool` reads from its loaded tool (unless set on the lazy tool itself)."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, obj: LazyTool | None, objtype: type | None = None) -> Any:
        if obj is None:
            return self
        if self.name in obj.__dict__:
            return obj.__dict__[self.name]
        light = obj._light.get(self.name)
        if light is not None and obj._loaded is None:  # known without the tool's module
            value = obj.__dict__[self.name] = light()
            return value
        return getattr(obj.loaded(), self.name)

    def __set__(self, obj: LazyTool, value: Any) -> None:
        obj.__dict__[self.name] = value


class LazyTool(Tool):
    """A tool whose id, description and (when known) parameter schema are there before its code: the
    rest (`parameters`, `execute`, `permission_requests`, `format_validation_error`, `unchecked_input`)
    comes from the tool `load()` returns, built on first use and kept. It is that tool wherever it is
    read, so a call is validated and checked exactly as the loaded tool's would be."""

    parameters = _Deferred()
    execute = _Deferred()
    permission_requests = _Deferred()
    format_validation_error = _Deferred()
    unchecked_input = _Deferred()

    #: validates a call's arguments for a decision without the tool's model: the arguments as its
    #: `permission_requests` read them, or None when it cannot say (`tools/arguments.py`)
    quick_args: Callable[[dict[str, Any]], Any] | None = None

    def __init__(self, id: str, description: str, load: Callable[[], Tool] | None = None, *,
                 schema: dict[str, Any] | None = None, source: ToolSource = BUILTIN,
                 internal: bool = False, schema_key: str | None = None, cannot_run: str | None = None,
                 light: dict[str, Callable[[], Any]] | None = None,
                 quick_args: Callable[[dict[str, Any]], Any] | None = None, **fields: Any) -> None:
        self.id = id
        self.description = description
        self.source = source
        self.internal = internal
        self.cannot_run = cannot_run
        if load is None:  # `dataclasses.replace` passes every field of a `Tool`: it is built already
            made = Tool(id, description, source=source, internal=internal, cannot_run=cannot_run, **fields)
            load = lambda: made  # noqa: E731
        self._load = load
        self._schema = schema
        self._schema_key = schema_key  # a computed schema is remembered under it for later runs
        self._loaded: Tool | None = None
        # fields known without loading (each the loaded tool's own: a test holds builtins to it)
        self._light = light or {}
        self.quick_args = quick_args

    def loaded(self) -> Tool:
        if self._loaded is None:
            self._loaded = self._load()
        return self._loaded

    def json_schema(self) -> dict[str, Any]:
        if self._schema is None:
            self._schema = self.loaded().json_schema()
            if self._schema_key is not None:
                from forge_tools.tools.schema_cache import remember_script_schema

                remember_script_schema(self._schema_key, self._schema)
        return copy.deepcopy(self._schema)


def is_context_annotation(annotation: Any) -> bool:
    if annotation == "ToolContext":
        return True
    context = sys.modules.get("forge_tools.tools.context")  # a ToolContext annotation imported it
    return context is not None and annotation is context.ToolContext


def tool(
    _fn: Callable[..., Any] | None = None,
    *,
    description: str | None = None,
    name: str | None = None,
    format_validation_error: Callable[[ValidationError], str] | None = None,
) -> Any:
    """Turn a function into a `Tool`.

    Parameters become the pydantic argument model (defaults and `Annotated[..., Field(...)]` kept); a
    parameter typed `ToolContext` is injected, not exposed. Sync or async; returns str or ToolResult.
    The description defaults to the docstring. `name` sets the id (default: the function's name) that a
    plugin registers; in a config-dir script the binding decides the id (SPEC 2), whatever `name` says.
    When every parameter is plain data (see `schema_cache.signature_key`) the model is built when the
    tool is first validated or its schema is read (a `LazyTool`, whose schema is kept for later runs);
    any other signature builds it here, so a type pydantic refuses fails the decoration, as it always
    did.
    """

    # checked here, where the script author wrote it, so the error names their line (not a plugin's hook)
    if description is not None and not isinstance(description, str):
        kind = type(description).__name__
        raise TypeError(f"@tool(description=...) must be a string, not {'an' if kind[0] in 'aeiou' else 'a'} "
                        f"{kind}")
    if name is not None and (not isinstance(name, str) or not name):
        raise TypeError(f"@tool(name=...) must be a non-empty string, not {name!r}")

    def wrap(fn: Callable[..., Any]) -> Tool:
        fields, ctx_param = _signature_fields(fn)
        is_async = inspect.iscoroutinefunction(fn)

        if is_async:
            async def execute_async(args: BaseModel, ctx: ToolContext) -> Any:
                kwargs = {k: getattr(args, k) for k in fields}
                if ctx_param:
                    kwargs[ctx_param] = ctx
                return await fn(**kwargs)

            execute: ExecuteFn = execute_async
        else:
            def execute_sync(args: BaseModel, ctx: ToolContext) -> Any:
                kwargs = {k: getattr(args, k) for k in fields}
                if ctx_param:
                    kwargs[ctx_param] = ctx
                return fn(**kwargs)

            execute = execute_sync

        tool_id = name or fn.__name__
        desc = description if description is not None else inspect.getdoc(fn) or ""
        model_name = "".join(part.capitalize() for part in fn.__name__.split("_")) + "Args"

        def load() -> Tool:
            from pydantic import ConfigDict, create_model

            model = create_model(model_name, __config__=ConfigDict(extra="forbid"), **fields)
            return Tool(id=tool_id, description=desc, parameters=model, execute=execute,
                        format_validation_error=format_validation_error)

        from forge_tools.tools.schema_cache import cached_script_schema, signature_key

        key = signature_key(model_name, fields)
        if key is None:  # a type of the script's own: built now, so a type pydantic refuses fails here
            built = load()
            built.__dict__["_function"] = fn
            return built
        schema = cached_script_schema(key)
        t = LazyTool(tool_id, desc, load, schema=schema, schema_key=key if schema is None else None)
        t.execute = execute
        t.permission_requests = None
        t.format_validation_error = format_validation_error
        t.__dict__["_function"] = fn
        return t

    if _fn is not None:
        return wrap(_fn)
    return wrap


def _signature_fields(fn: Callable[..., Any]) -> tuple[dict[str, Any], str | None]:
    """The argument model's fields `{name: (annotation, default)}` and the `ToolContext` parameter."""
    sig = inspect.signature(fn)
    try:
        hints = get_type_hints(fn, include_extras=True)
    except Exception:
        hints = {}
    fields: dict[str, Any] = {}
    ctx_param: str | None = None
    for pname, param in sig.parameters.items():
        annotation = hints.get(pname, param.annotation)
        if is_context_annotation(annotation):
            ctx_param = pname
            continue
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            raise TypeError(f"tool {fn.__name__}: *args/**kwargs parameters are not supported")
        if annotation is inspect.Parameter.empty:
            annotation = Any
        default = ... if param.default is inspect.Parameter.empty else param.default
        fields[pname] = (annotation, default)
    return fields, ctx_param


_REEXPORTED = {
    "PermissionRequest": "forge_tools.permission.calls",
    **dict.fromkeys(("ToolContext", "ToolResult", "Attachment", "AbortSignal", "AskFn", "PeekFn"),
                    "forge_tools.tools.context"),
}


def __getattr__(name: str) -> Any:
    """What a tool imports from here besides the declaration (`PermissionRequest`, `ToolContext`,
    `ToolResult`, ...), imported on first use: listing tools needs none of it."""
    module = _REEXPORTED.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)
