"""Gemini CLI 0.61.0's BeforeTool command hook (agent-hooks.md section 3): payload `{tool_name,
tool_input, cwd, hook_event_name: "BeforeTool", ...}` (its environment holds the API key: never
logged); a deny is top-level `{"decision": "deny", "reason": ...}`, exit 0 (Claude's
`hookSpecificOutput` form is ignored, exit 2 with an empty stderr runs the call); no output is no
decision. Gemini cannot ask from a hook."""

from __future__ import annotations

from typing import Any

from forge_tools.hook.protocol import Answer, HookCall, pre_tool_call, said, top_level

NAME = "gemini"
LABEL = "Gemini CLI"
ASKS = False
EVENT = "BeforeTool"


def read(payload: Any) -> HookCall | None:
    return pre_tool_call(payload, EVENT)


def answer(action: str | None, reason: str) -> Answer:
    return said(action, reason, top_level, ASKS)


def deny(reason: str) -> Answer:
    return top_level("deny", reason)
