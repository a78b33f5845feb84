"""invalid, task, websearch, lsp, plan_exit: plain results, real permission requests where defined."""

from __future__ import annotations

from typing import Any

from forge_tools.tools.builtins import invalid, lsp, plan_exit, task, websearch


def test_invalid_names_tool_and_error(call: Any) -> None:
    result = call(invalid.TOOL, tool="bash", error="command: field required")
    assert result.is_error and "'bash'" in result.output and "command: field required" in result.output
    assert invalid.TOOL.internal is True


def test_task_needs_a_model(call: Any, reqs: Any) -> None:
    args = {"description": "find uses", "prompt": "look", "subagent_type": "explore"}
    result = call(task.TOOL, **args)
    assert result.is_error and "needs a model" in result.output and "explore" in result.output
    assert reqs(task.TOOL, **args) == [("task", ("explore",))]


def test_websearch_lsp_plan_exit_say_what_is_missing(call: Any) -> None:
    assert "search backend" in call(websearch.TOOL, query="x").output
    assert "language server" in call(lsp.TOOL, operation="hover", filePath="a.py", line=1, character=1).output
    assert "plan" in call(plan_exit.TOOL).output
    for tool in (websearch.TOOL, lsp.TOOL, plan_exit.TOOL):
        assert tool.permission_requests is None  # checked with `*` (SPEC 4.4)
