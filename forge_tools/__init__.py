"""forge-tools: the tool system of an AI coding agent, implemented faithfully and made visible.

Public API (imported lazily so `forge-tools` starts fast):

- `tool`, `Tool`, `ToolContext`, `ToolResult`, `PermissionRequest`: write tools (SPEC 1).
- `hookimpl`: implement plugin hooks (see `forge_tools.sources.hookspecs`).
- `load_project`: load a project's merged config as the CLI does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

_LAZY = {
    "tool": ("forge_tools.tools.contract", "tool"),
    "Tool": ("forge_tools.tools.contract", "Tool"),
    "ToolContext": ("forge_tools.tools.contract", "ToolContext"),
    "ToolResult": ("forge_tools.tools.contract", "ToolResult"),
    "ToolSource": ("forge_tools.tools.contract", "ToolSource"),
    "PermissionRequest": ("forge_tools.tools.contract", "PermissionRequest"),
    "hookimpl": ("forge_tools.sources.hookspecs", "hookimpl"),
    "load_project": ("forge_tools.config", "load_project"),
}

__all__ = [*_LAZY, "__version__"]

if TYPE_CHECKING:
    from forge_tools.config import load_project as load_project
    from forge_tools.sources.hookspecs import hookimpl as hookimpl
    from forge_tools.tools.contract import PermissionRequest as PermissionRequest
    from forge_tools.tools.contract import Tool as Tool
    from forge_tools.tools.contract import ToolContext as ToolContext
    from forge_tools.tools.contract import ToolResult as ToolResult
    from forge_tools.tools.contract import ToolSource as ToolSource
    from forge_tools.tools.contract import tool as tool


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        module, attr = _LAZY[name]
        value = getattr(importlib.import_module(module), attr)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'forge_tools' has no attribute {name!r}")
