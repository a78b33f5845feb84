"""The unified tool wrapper (SPEC 1): validate -> before-hooks -> permission -> execute -> after-hooks
-> truncate.

Every tool runs through `call_tool` (or `call_tool_async`), whatever its source, so that a plugin tool
gets the same input checks, permission gate and output limit as a builtin. Invalid input never reaches
`execute`; a tool that raises becomes an error result carrying its message (the model can react to a
message, not to a traceback). Permission errors propagate: deciding what a denial means is the caller's
job (the run command exits 4, an agent loop tells the model).
"""

from __future__ import annotations

import copy
import inspect
import json
import re
import threading
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from pydantic import BaseModel, ValidationError

from forge_tools.errors import PermissionDenied, PermissionRejected
from forge_tools.tools.arguments import non_text, permission_requests_for
from forge_tools.tools.contract import Tool, ToolContext, ToolResult

ABORT_GRACE_SECONDS = 10.0
_PROPAGATE = (PermissionDenied, PermissionRejected)


class ExecuteHooks(Protocol):
    """What the wrapper calls around `execute`; a pluggy `HookRelay` (`pm.hook`) fits as it is.

    Hooks are called with keyword arguments. `args` is a plain dict a before-hook may change in place
    (the changed input is validated again); a before-hook that raises blocks the call.
    """

    def tool_execute_before(self, *, tool_id: str, args: dict[str, Any], ctx: ToolContext) -> Any: ...

    def tool_execute_after(self, *, tool_id: str, result: ToolResult, ctx: ToolContext) -> Any: ...


class SchemaValidationError(ValueError):
    """JSON Schema failures in the shape of pydantic's `ValidationError.errors()`, so one formatter and
    a tool's own `format_validation_error` can treat both kinds of tool alike."""

    def __init__(self, errors: list[dict[str, Any]], title: str = "input") -> None:
        super().__init__(f"{len(errors)} validation error(s) for {title}")
        self._errors = errors
        self.title = title

    def errors(self) -> list[dict[str, Any]]:
        return list(self._errors)

    def error_count(self) -> int:
        return len(self._errors)


class InvalidInput(Exception):
    """Raised inside the wrapper when input cannot be used; carries the text for the model."""

    def __init__(self, text: str, details: list[dict[str, Any]]) -> None:
        super().__init__(text)
        self.text = text
        self.details = details


# -- validation ----------------------------------------------------------------------------------


def _loc_text(loc: tuple[Any, ...] | list[Any]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out or "(input)"


def error_details(error: ValidationError | SchemaValidationError) -> list[dict[str, Any]]:
    """`[{"field": "a.b[0]", "problem": "..."}]` for either kind of validation error."""
    details = []
    for err in error.errors():
        loc = tuple(err.get("loc", ()))
        details.append({"field": _loc_text(loc), "problem": str(err.get("msg", "invalid value"))})
    return details


def default_validation_text(tool_id: str, error: ValidationError | SchemaValidationError) -> str:
    """The text a model gets for input that does not fit: each bad field, then what to do."""
    lines = [f"The input for the {tool_id} tool does not match its parameter schema:"]
    for d in error_details(error):
        lines.append(f"- {d['field']}: {d['problem']}")
    lines.append("Rewrite the input so that it fits the schema, then call the tool again.")
    return "\n".join(lines)


def _jsonschema_errors(schema: dict[str, Any], value: Any) -> list[dict[str, Any]]:
    import jsonschema
    from jsonschema.validators import validator_for

    cls = validator_for(schema, default=jsonschema.Draft202012Validator)
    validator = cls(schema)
    found: list[dict[str, Any]] = []
    for err in validator.iter_errors(value):
        loc = tuple(err.absolute_path)
        if err.validator == "required" and isinstance(err.instance, dict):
            names = err.validator_value if isinstance(err.validator_value, list) else []
            missing = [name for name in names if name not in err.instance]
            found.extend({"loc": (*loc, n), "msg": "Field required", "type": "missing"} for n in missing)
            if missing:
                continue
        if err.validator == "additionalProperties" and isinstance(err.instance, dict):
            sub = err.schema if isinstance(err.schema, dict) else {}
            known = sub.get("properties", {})
            patterns = list(sub.get("patternProperties", {}))
            extra = [k for k in err.instance if k not in known and not any(re.search(p, k) for p in patterns)]
            found.extend(
                {"loc": (*loc, name), "msg": "Extra inputs are not permitted", "type": "extra_forbidden"}
                for name in extra
            )
            if extra:
                continue
        found.append({"loc": loc, "msg": err.message, "type": str(err.validator)})
    found.sort(key=lambda e: [str(part) for part in e["loc"]])
    return found


def validate_args(tool: Tool, raw_args: Any) -> Any:
    """The validated, coerced value `execute` receives; raises `InvalidInput` with the model's text."""
    if raw_args is None:
        raw_args = {}
    if isinstance(raw_args, str | bytes):
        try:
            raw_args = json.loads(raw_args) if raw_args.strip() else {}
        except ValueError as exc:
            text = (
                f"The input for the {tool.id} tool is not valid JSON ({exc}). "
                "Send a JSON object that fits the tool's parameter schema."
            )
            raise InvalidInput(text, [{"field": "(input)", "problem": f"not valid JSON: {exc}"}]) from None
    _refuse_non_text(tool, raw_args)
    if tool.unchecked_input is not None and isinstance(raw_args, dict):
        return raw_args
    params = tool.parameters
    error: ValidationError | SchemaValidationError
    if isinstance(params, dict):
        found = _jsonschema_errors(params, raw_args)
        if not found:
            return raw_args
        error = SchemaValidationError(found, title=tool.id)
    else:
        try:
            return params.model_validate(raw_args)
        except ValidationError as exc:
            error = exc
    formatter: Callable[[Any], str] | None = tool.format_validation_error
    text = formatter(error) if formatter is not None else default_validation_text(tool.id, error)
    raise InvalidInput(text, error_details(error))


def _refuse_non_text(tool: Tool, raw_args: Any) -> None:
    """`InvalidInput` naming the field when a string of the input is not text (`arguments.non_text`): before
    the schema, so every tool, and `run`, `explain --call` and `check --expect` alike, says which field
    is wrong instead of failing later in the permission checks."""
    found = non_text(raw_args, tool.source.kind == "builtin")
    if found is None:
        return
    at, problem = found
    field = ".".join(str(part) for part in at) or "(input)"
    text = (f"The input for the {tool.id} tool does not match its parameter schema:\n- {field}: {problem}\n"
            "Rewrite the input so that it fits the schema, then call the tool again.")
    raise InvalidInput(text, [{"field": field, "problem": problem}])


def _as_plain(args: Any) -> Any:
    """What a before-hook sees: the validated input as plain data, under the names the schema shows."""
    if isinstance(args, BaseModel):
        return args.model_dump(mode="python", by_alias=True)
    return args


# -- the steps around execute ------------------------------------------------------------------------


def _relay(hooks: Any) -> Any:
    """Accept a pluggy PluginManager (use its `.hook`), a HookRelay, or any object with the methods."""
    if hooks is None:
        return None
    relay = getattr(hooks, "hook", None)
    return relay if relay is not None and not callable(getattr(hooks, "tool_execute_before", None)) else hooks


def _error_result(tool: Tool, text: str, kind: str, **meta: Any) -> ToolResult:
    return ToolResult(output=text, title=tool.id, metadata={"error": kind, **meta}, is_error=True)


def _exception_text(exc: BaseException) -> str:
    message = str(exc).strip()
    return message or type(exc).__name__


def _before(tool: Tool, raw_args: Any, ctx: ToolContext, hooks: Any) -> tuple[Any, ToolResult | None]:
    """Validate, run before-hooks, then the permission checks. Returns (args, early error result)."""
    if tool.cannot_run:
        return None, _error_result(tool, f"forge-tools cannot run tool {tool.id!r}: {tool.cannot_run}",
                                   "cannot_run")
    try:
        args = validate_args(tool, raw_args)
    except InvalidInput as exc:
        return None, _error_result(tool, exc.text, "invalid_input", errors=exc.details)
    relay = _relay(hooks)
    before = getattr(relay, "tool_execute_before", None) if relay is not None else None
    gate = ctx.ask  # the permission gate as the caller set it: a hook may not swap it out
    if before is not None:
        plain = _as_plain(args)
        snapshot = copy.deepcopy(plain)
        try:
            before(tool_id=tool.id, args=plain, ctx=ctx)
        except _PROPAGATE:
            raise
        except Exception as exc:
            text = f"Blocked by a plugin: {_exception_text(exc)}"
            return None, _error_result(tool, text, "blocked_by_plugin")
        finally:
            ctx.ask = gate
        if plain != snapshot:
            try:
                args = validate_args(tool, plain)
            except InvalidInput as exc:
                text = "A plugin changed the input so that it no longer fits the schema.\n" + exc.text
                return None, _error_result(tool, text, "invalid_input", errors=exc.details)
    try:
        requests = permission_requests_for(tool, args, ctx)
    except Exception as exc:
        return None, _error_result(tool, f"Could not work out the permission checks: {_exception_text(exc)}",
                                   "permission_requests")
    begin = getattr(gate, "begin_call", None)  # the permission gate decides the whole call first
    if callable(begin):
        begin(requests)
    for req in requests:
        gate(req.permission, list(req.patterns), list(req.always), dict(req.metadata))
    if ctx.abort.aborted:
        return None, _error_result(tool, f"The call was aborted before it started ({ctx.abort.reason}).",
                                   "aborted", aborted=True)
    return args, None


def _to_result(value: Any) -> ToolResult:
    """str -> output; ToolResult as it is; None -> empty; anything else as JSON (or its str)."""
    if isinstance(value, ToolResult):
        return value
    if isinstance(value, str):
        return ToolResult(output=value)
    if value is None:
        return ToolResult(output="")
    try:
        return ToolResult(output=json.dumps(value, ensure_ascii=False, indent=2, default=str))
    except (TypeError, ValueError):
        return ToolResult(output=str(value))


def _after(tool: Tool, result: ToolResult, ctx: ToolContext, hooks: Any) -> ToolResult:
    """After-hooks (a failing one is noted, the output is kept), then the shared truncation."""
    relay = _relay(hooks)
    after = getattr(relay, "tool_execute_after", None) if relay is not None else None
    if after is not None:
        try:
            after(tool_id=tool.id, result=result, ctx=ctx)
        except _PROPAGATE:
            raise
        except Exception as exc:
            result.metadata.setdefault("hookErrors", []).append(_exception_text(exc))
    if "truncated" in result.metadata:
        cleanup = getattr(ctx.outputs, "maybe_cleanup", None)
        if result.metadata["truncated"] and callable(cleanup):
            cleanup()  # a tool that saved its own full output (bash) ages old ones out too
        return result
    return apply_truncation(tool, result, ctx)


def apply_truncation(tool: Tool, result: ToolResult, ctx: ToolContext) -> ToolResult:
    """Cut the output to the shared limit, saving the whole text (SPEC 5); metadata records it."""
    from forge_tools.tools.outputs import OutputStore
    from forge_tools.tools.truncation import TruncationPolicy, truncate_output

    policy = ctx.truncation if isinstance(ctx.truncation, TruncationPolicy) else TruncationPolicy()
    store = ctx.outputs if isinstance(ctx.outputs, OutputStore) else None
    if store is None:
        store = OutputStore.from_env()
        ctx.outputs = store
    cut = truncate_output(result.output, policy, hint=ctx.hint, store=store, tool_id=tool.id)
    result.output = cut.content
    result.metadata.update(cut.metadata())
    if cut.truncated:
        store.maybe_cleanup()
    return result


# -- execution ---------------------------------------------------------------------------------------


async def _await(value: Awaitable[Any]) -> Any:
    return await value


def _execute_in_worker(tool: Tool, args: Any, ctx: ToolContext) -> Any:
    """Run `execute` in a worker thread so Ctrl-C in the caller turns into `ctx.abort` for the tool.

    The tool then gets a chance to stop its subprocess and return what it has; when it does not stop
    within `ABORT_GRACE_SECONDS`, the interrupt is raised again.
    """
    outcome: dict[str, Any] = {}

    def target() -> None:
        try:
            value = tool.execute(args, ctx)
            if inspect.isawaitable(value):
                import asyncio  # only async tools pay for it (with ssl, ~50 ms of start-up)

                value = asyncio.run(_await(value))
            outcome["value"] = value
        except BaseException as exc:
            outcome["error"] = exc

    worker = threading.Thread(target=target, name=f"forge-tool-{tool.id}", daemon=True)
    try:
        worker.start()
        while worker.is_alive():
            worker.join(0.1)
    except KeyboardInterrupt:
        ctx.abort.abort("interrupted")
        worker.join(ABORT_GRACE_SECONDS)
        if worker.is_alive():
            raise
    if "error" in outcome:
        raise outcome["error"]
    return outcome.get("value")


def _exception_result(tool: Tool, ctx: ToolContext, exc: Exception) -> ToolResult:
    meta: dict[str, Any] = {"exception": type(exc).__name__}
    if ctx.abort.aborted:
        meta["aborted"] = True
    return _error_result(tool, _exception_text(exc), "exception", **meta)


def _value_result(tool: Tool, ctx: ToolContext, value: Any) -> ToolResult:
    result = _to_result(value)
    if ctx.abort.aborted:
        result.metadata.setdefault("aborted", True)
    return result


def call_tool(tool: Tool, raw_args: Any, ctx: ToolContext | None = None, hooks: Any = None) -> ToolResult:
    """Run one call through the whole wrapper, synchronously (sync or async tools alike).

    `raw_args` is a mapping or a JSON string. An interrupted call (Ctrl-C) aborts the tool and returns
    what it produced; the caller sees `ctx.abort.aborted`.
    """
    ctx = ctx or ToolContext()
    args, early = _before(tool, raw_args, ctx, hooks)
    if early is not None:
        return apply_truncation(tool, early, ctx)
    try:
        result = _value_result(tool, ctx, _execute_in_worker(tool, args, ctx))
    except _PROPAGATE:
        raise
    except Exception as exc:
        result = _exception_result(tool, ctx, exc)
    return _after(tool, result, ctx, hooks)


async def call_tool_async(
    tool: Tool, raw_args: Any, ctx: ToolContext | None = None, hooks: Any = None
) -> ToolResult:
    """`call_tool` for an event loop: sync tools run in a thread; cancelling the task aborts the tool."""
    import asyncio

    ctx = ctx or ToolContext()
    args, early = _before(tool, raw_args, ctx, hooks)
    if early is not None:
        return apply_truncation(tool, early, ctx)
    try:
        if inspect.iscoroutinefunction(tool.execute):
            value = await tool.execute(args, ctx)
        else:
            value = await asyncio.to_thread(tool.execute, args, ctx)
            if inspect.isawaitable(value):
                value = await value
        result = _value_result(tool, ctx, value)
    except asyncio.CancelledError:
        ctx.abort.abort("cancelled")
        raise
    except _PROPAGATE:
        raise
    except Exception as exc:
        result = _exception_result(tool, ctx, exc)
    return _after(tool, result, ctx, hooks)
