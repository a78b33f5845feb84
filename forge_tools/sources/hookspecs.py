"""The plugin hooks forge-tools calls (pluggy project name `forge_tools`).

A plugin is a module (or any object) with functions decorated by `forge_tools.hookimpl` whose names
are the hooks below. A hook implementation may accept any subset of a hook's arguments.
"""

from __future__ import annotations

from typing import Any

import pluggy

PROJECT = "forge_tools"

hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)


class ForgeToolsHooks:
    """The hook specifications; the one place that says which hooks exist."""

    @hookspec
    def register_tools(self, register: Any) -> None:
        """Register tools by calling `register(tool)` once per `forge_tools.Tool`."""

    @hookspec
    def tool_definition(self, tool_id: str, definition: Any) -> None:
        """Change `definition.description` and/or `definition.parameters` (JSON Schema) in place."""

    @hookspec
    def tool_execute_before(self, tool_id: str, args: Any, ctx: Any) -> None:
        """Look at (or change in place) a call's validated arguments before it executes."""

    @hookspec
    def tool_execute_after(self, tool_id: str, result: Any, ctx: Any) -> None:
        """Look at (or change in place) a call's result after it executes, before truncation."""


HOOK_NAMES: tuple[str, ...] = (
    "register_tools",
    "tool_definition",
    "tool_execute_before",
    "tool_execute_after",
)
