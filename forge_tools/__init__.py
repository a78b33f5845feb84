"""forge-tools: the tool system of an AI coding agent, implemented faithfully and made visible.

Public API (imported lazily so `forge-tools` starts fast):

- `tool`, `Tool`, `ToolContext`, `ToolResult`, `PermissionRequest`: write tools (SPEC 1).
- `hookimpl`: implement plugin hooks (see `forge_tools.sources.hookspecs`).
- `load_project`: load a project's merged config as the CLI does.
- `resolve`, `tool_visibility`: the visibility pipeline for an agent; is a tool visible, and why.
- `decide_call`: how the permission gate decides a whole call (nothing runs).
- `call_answers`: both answers about a call: the runtime's (what the agent, e.g. opencode 1.18.33,
  does) and the gate's (what `run` enforces), with the line saying where they differ.
- `answers_by_runtime`: one call answered by every agent runtime the project configures (opencode,
  Claude Code), each with its deciding rule, and the gate's once.
- `run_call`: run one call through the real wrapper and the gate; `new_session` shares `always` answers.
- `PermissionSession`, `Answer`, `Question`, `CallDecision`, `PatternDecision`: the gate's records.
- `LoadedConfig`, `PipelineResult`, `ToolVerdict`, `LayerVerdict`, `RunOutcome`: what they return
  (docs/library.md); `ForgeToolsError` and its subclasses, `ExitCode`: what they raise.

Project code (scripts, plugins) is imported only when a function is given `load_code=True`.

This module imports nothing of forge_tools: every package below may import it (for `__version__`)
without depending on the whole library. Type checkers read the names' types from `__init__.pyi`.
"""

from __future__ import annotations

from typing import Any

__version__ = "0.1.0"

_LAZY = {
    "tool": ("forge_tools.tools.contract", "tool"),
    "Tool": ("forge_tools.tools.contract", "Tool"),
    "ToolContext": ("forge_tools.tools.context", "ToolContext"),
    "ToolResult": ("forge_tools.tools.context", "ToolResult"),
    "ToolSource": ("forge_tools.tools.contract", "ToolSource"),
    "PermissionRequest": ("forge_tools.permission.calls", "PermissionRequest"),
    "hookimpl": ("forge_tools.sources.hookspecs", "hookimpl"),
    "load_project": ("forge_tools.config", "load_project"),
    "resolve": ("forge_tools.api", "resolve"),
    "tool_visibility": ("forge_tools.api", "tool_visibility"),
    "decide_call": ("forge_tools.api", "decide_call"),
    "call_answers": ("forge_tools.api", "call_answers"),
    "answers_by_runtime": ("forge_tools.api", "answers_by_runtime"),
    "run_call": ("forge_tools.api", "run_call"),
    "new_session": ("forge_tools.api", "new_session"),
    "PermissionSession": ("forge_tools.permission.gate", "PermissionSession"),
    "Answer": ("forge_tools.permission.gate", "Answer"),
    "Question": ("forge_tools.permission.gate", "Question"),
    "CallDecision": ("forge_tools.permission.calls", "CallDecision"),
    "PatternDecision": ("forge_tools.permission.calls", "PatternDecision"),
    "LoadedConfig": ("forge_tools.config.loader", "LoadedConfig"),
    "PipelineResult": ("forge_tools.visibility.pipeline", "PipelineResult"),
    "ToolVerdict": ("forge_tools.visibility.pipeline", "ToolVerdict"),
    "LayerVerdict": ("forge_tools.visibility.pipeline", "LayerVerdict"),
    "ToolHidden": ("forge_tools.visibility.pipeline", "ToolHidden"),
    "RunOutcome": ("forge_tools.call", "RunOutcome"),
    "ExitCode": ("forge_tools.errors", "ExitCode"),
    "ForgeToolsError": ("forge_tools.errors", "ForgeToolsError"),
    "UsageError": ("forge_tools.errors", "UsageError"),
    "UnknownNameError": ("forge_tools.errors", "UnknownNameError"),
    "ConfigError": ("forge_tools.errors", "ConfigError"),
    "PluginError": ("forge_tools.errors", "PluginError"),
    "ToolInputError": ("forge_tools.errors", "ToolInputError"),
    "PermissionDenied": ("forge_tools.errors", "PermissionDenied"),
    "PermissionRejected": ("forge_tools.errors", "PermissionRejected"),
}

__all__ = [*_LAZY, "__version__"]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        module, attr = _LAZY[name]
        value = getattr(importlib.import_module(module), attr)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'forge_tools' has no attribute {name!r}")
