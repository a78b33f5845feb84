"""The builtin tools: an explicit, ordered list, never a scan of this folder (SPEC 2, source 1).

The list (`BUILTIN_ORDER`, `GATED_ORDER`, `ALL_BUILTINS`) is in `forge_tools/names.py`, with the
permission vocabulary that names the same ids, so config and permission read it without importing tools.

Each builtin is one module exposing `TOOL`. The pipeline sees each as a `LazyTool` declared from the
shipped definitions (`tools/schema_cache.py`): its module, and pydantic with it, is imported only when
its code is used (a call is validated or run), so listing and explaining tools starts fast. The tools
whose permission requests are in the lean table (`requests.py`) also ship their argument checks, so a
call is decided (`tools/arguments.py`) without importing their module either.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable
from functools import partial
from typing import TYPE_CHECKING, Any

from forge_tools.names import ALL_BUILTINS, BUILTIN_ORDER, GATED_ORDER

if TYPE_CHECKING:
    from forge_tools.tools.contract import Listing, SourceQuery, Tool


def gate_holds(tool_id: str, flags: Iterable[str], client: str) -> bool:
    """Whether a flag-gated builtin is registered for these flags and client."""
    flag_set = set(flags)
    if tool_id == "lsp":
        return "lsp" in flag_set
    if tool_id == "plan_exit":
        return "plan" in flag_set and client == "cli"
    return True


def builtin_ids(flags: Iterable[str] = (), client: str = "cli") -> list[str]:
    flag_set = set(flags)
    return [*BUILTIN_ORDER, *(t for t in GATED_ORDER if gate_holds(t, flag_set, client))]


def import_builtin(tool_id: str) -> Tool:
    """The `TOOL` of one builtin module (importing it)."""
    if tool_id not in ALL_BUILTINS:
        raise KeyError(tool_id)
    module = importlib.import_module(f"{__name__}.{tool_id}")
    tool: Tool = module.TOOL
    return tool


_declared: dict[str, Tool] = {}


def load_builtin(tool_id: str) -> Tool:
    """One builtin as the pipeline sees it (the same object on every call)."""
    if tool_id not in ALL_BUILTINS:
        raise KeyError(tool_id)
    found = _declared.get(tool_id)
    if found is None:
        found = _declared[tool_id] = _declare(tool_id)
    return found


def _declare(tool_id: str, description: str | None = None) -> Tool:
    """A `LazyTool` from the shipped definition; with a stale entry, the module's own tool (or, for a
    description of our own, a `LazyTool` over it)."""
    from forge_tools.tools.contract import LazyTool
    from forge_tools.tools.schema_cache import shipped_definition

    entry = shipped_definition(tool_id)
    if entry is None:
        tool = import_builtin(tool_id)
        if description is None:
            return tool
        return LazyTool(tool_id, description, lambda: tool, internal=tool.internal)
    quick = None
    # no builtin takes its input unchecked (only opencode's script tools do)
    light: dict[str, Callable[[], Any]] = {"unchecked_input": _unchecked}
    if "validator" in entry:  # decided without the model: the shipped checks, the lean requests
        from forge_tools.tools.schema_cache import quick_args

        quick = partial(quick_args, tool_id)
        light["permission_requests"] = partial(_requests, tool_id)
    return LazyTool(tool_id, entry["description"] if description is None else description,
                    partial(import_builtin, tool_id), schema=entry["parameters"],
                    internal=bool(entry.get("internal")), light=light, quick_args=quick)


def _unchecked() -> None:
    return None


def _requests(tool_id: str) -> Any:
    """A builtin's `permission_requests` from the lean table (the function its module's tool holds)."""
    from forge_tools.tools.builtins.requests import REQUESTS

    return REQUESTS[tool_id][0]


#: forge-tools' builtins opencode 1.18.33 does not have ("Tool list not found for agent")
NOT_OPENCODE = frozenset({"list"})


def builtin_tools(flags: Iterable[str] = (), client: str = "cli", opencode: bool = False) -> list[Tool]:
    """The builtin candidates in SPEC order (`skill`'s definition names no skill, as opencode's); for
    an opencode config, only those opencode 1.18.33 has."""
    return [load_builtin(tool_id) for tool_id in builtin_ids(flags, client)
            if not (opencode and tool_id in NOT_OPENCODE)]


class BuiltinSource:
    """The first source (`tools.contract.Source`): the builtins for the query's flags and client, in
    SPEC order. Nothing of the project runs to list them, so `scan` and `load` give the same answer
    (each a `LazyTool` whose module is imported when a call needs it)."""

    name = "builtins"

    def scan(self, query: SourceQuery) -> Listing:
        from forge_tools.tools.contract import Listed, Listing

        tools = builtin_tools(query.flags, query.client, query.opencode)
        return Listing([Listed(t.id, t, t.source) for t in tools])

    def load(self, query: SourceQuery) -> Listing:
        return self.scan(query)


SOURCE = BuiltinSource()
