"""A call's arguments before its tool sees them: the text check every tool's input passes first, and
the arguments a decision reads (`decision_args`), validated without building the tool's pydantic
model where a builtin ships its validator (`tools/schema_cache.py`).

Deciding a call (`explain --call`, `check`, `forge-tools hook`) needs the arguments only as the tool's
`permission_requests` read them, and building a builtin's model (pydantic's model machinery and its
plugin scan) costs more than the rest of such a command. The shipped validator is the model's own core
schema, so it accepts exactly what the model accepts, with the same values; whatever it does not accept
goes to the model, which says what is wrong in the tool's own words.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from forge_tools.lazy_re import lazy
from forge_tools.names import permission_name
from forge_tools.permission.calls import PermissionRequest

if TYPE_CHECKING:
    from forge_tools.tools.contract import Tool, ToolContext

_SURROGATE = lazy("[\ud800-\udfff]")


def non_text(value: Any, builtin: bool, at: tuple[Any, ...] = ()) -> tuple[tuple[Any, ...], str] | None:
    """The first string in `value` (keys included) that is not text a tool can be given, and why: a
    lone surrogate is not Unicode text at all (it cannot be encoded for any file, process or server);
    a NUL cannot be part of a path, a command or an argument, which is what builtins hand the system."""
    if isinstance(value, str):
        found = None if value.isascii() else _SURROGATE().search(value)
        if found is not None:
            return at, (f"contains a lone surrogate (U+{ord(found.group()):04X}, at character "
                        f"{found.start() + 1}), which is not Unicode text; send valid text")
        if builtin and "\0" in value:
            return at, (f"contains a NUL character (U+0000, at character {value.index(chr(0)) + 1}), "
                        "which no path, command or argument can hold")
        return None
    if isinstance(value, dict):
        for key, item in value.items():
            found_key = non_text(key, builtin, (*at, key)) if isinstance(key, str) else None
            problem = found_key or non_text(item, builtin, (*at, key))
            if problem is not None:
                return problem
    elif isinstance(value, list | tuple):
        for index, item in enumerate(value):
            problem = non_text(item, builtin, (*at, index))
            if problem is not None:
                return problem
    return None


def decision_args(tool: Tool, raw_args: Any) -> Any:
    """The call's arguments as its permission checks read them: from the tool's shipped validator
    when it accepts them, else validated by the tool itself (`wrapper.validate_args`, which raises
    `InvalidInput` with the tool's text). Only for deciding: running a call validates by its model."""
    quick = getattr(tool, "quick_args", None)
    if quick is not None and isinstance(raw_args, dict) and non_text(raw_args, True) is None:
        found = quick(raw_args)
        if found is not None:
            return found
    from forge_tools.tools.wrapper import validate_args

    return validate_args(tool, raw_args)


def default_permission_requests(tool: Tool) -> list[PermissionRequest]:
    """A tool that does not say which checks a call needs is checked under its permission name with `*`."""
    return [PermissionRequest(permission_name(tool.id), ("*",), ("*",))]


def permission_requests_for(tool: Tool, args: Any, ctx: ToolContext) -> list[PermissionRequest]:
    """The checks one call needs (pure; `explain --call` uses it without running anything)."""
    if tool.permission_requests is None:
        return default_permission_requests(tool)
    return list(tool.permission_requests(args, ctx))
