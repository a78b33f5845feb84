"""Gemini CLI 0.61.0's BeforeTool command hook (agent-hooks.md section 3): payload `{tool_name,
tool_input, cwd, hook_event_name: "BeforeTool", ...}` (its environment holds the API key: never
logged); a deny is top-level `{"decision": "deny", "reason": ...}`, exit 0 (Claude's
`hookSpecificOutput` form is ignored, exit 2 with an empty stderr runs the call); no output is no
decision. Gemini cannot ask from a hook."""

from __future__ import annotations

from typing import Any

from forge_tools.hook.protocol import Answer, HookCall, call_of, top_level

NAME = "gemini"
LABEL = "Gemini CLI"
ASKS = False
EVENT = "BeforeTool"


def read(payload: Any) -> HookCall | None:
    call = call_of(payload)
    return call if payload.get("hook_event_name", EVENT) == EVENT else None


def answer(action: str | None, reason: str) -> Answer:
    if action is None:
        return Answer("")
    return top_level("deny", reason)


def deny(reason: str) -> Answer:
    return top_level("deny", reason)
