"""Gemini CLI 0.61.0's BeforeTool command hook (agent-hooks.md section 3): payload `{tool_name,
tool_input, cwd, hook_event_name: "BeforeTool", ...}` (its environment holds the API key: never
logged); a deny is top-level `{"decision": "deny", "reason": ...}`, exit 0 (Claude's
`hookSpecificOutput` form is ignored, exit 2 with an empty stderr runs the call); no output is no
decision. Gemini cannot ask from a hook."""

from __future__ import annotations

import json
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


def rewrite(tool_input: dict[str, Any], command: str, allows: bool, ask: str | None = None) -> Answer:
    """`hookSpecificOutput.tool_input` is merged over the model's arguments (agent-hooks.md 3.3), with
    `decision: "allow"` where Gemini itself would allow (the verified form), else without a decision.
    Gemini cannot ask from a hook: a gate ask never gets here (it is a deny)."""
    out: dict[str, Any] = {"decision": "allow"} if allows else {}
    out["hookSpecificOutput"] = {"hookEventName": EVENT, "tool_input": {"command": command}}
    return Answer(json.dumps(out) + "\n")
