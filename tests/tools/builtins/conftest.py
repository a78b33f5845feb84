"""Fixtures for builtin tool tests: a context rooted at the test's project, and a direct caller."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from forge_tools.tools.contract import PermissionRequest, Tool, ToolContext, ToolResult


@pytest.fixture
def ctx(project: Path) -> ToolContext:
    return ToolContext(project_root=project)


def run_tool(tool: Tool, ctx: ToolContext, /, **raw: Any) -> ToolResult:
    """Validate like the wrapper does, then execute (sync or async); a str result becomes a ToolResult."""
    assert not isinstance(tool.parameters, dict)
    args = tool.parameters.model_validate(raw)
    out = tool.execute(args, ctx)
    if inspect.isawaitable(out):
        out = asyncio.run(_await(out))
    return out if isinstance(out, ToolResult) else ToolResult(str(out))


async def _await(value: Any) -> Any:
    return await value


def requests_for(tool: Tool, ctx: ToolContext, /, **raw: Any) -> list[PermissionRequest]:
    assert tool.permission_requests is not None and not isinstance(tool.parameters, dict)
    return tool.permission_requests(tool.parameters.model_validate(raw), ctx)


@pytest.fixture
def call(ctx: ToolContext) -> Callable[..., ToolResult]:
    """`call(tool, **args)`: run a tool in the test's project."""

    def invoke(tool: Tool, /, **raw: Any) -> ToolResult:
        return run_tool(tool, ctx, **raw)

    return invoke


@pytest.fixture
def reqs(ctx: ToolContext) -> Callable[..., list[tuple[str, tuple[str, ...]]]]:
    """`reqs(tool, **args)`: the (permission, patterns) pairs a call would be checked against."""

    def invoke(tool: Tool, /, **raw: Any) -> list[tuple[str, tuple[str, ...]]]:
        return [(r.permission, r.patterns) for r in requests_for(tool, ctx, **raw)]

    return invoke
