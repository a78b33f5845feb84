"""Claude Code 2.1.332's PreToolUse command hook (../shared agent-hooks.md section 1): payload
`{tool_name, tool_input, cwd, hook_event_name: "PreToolUse", ...}` on stdin; a deny or an ask is
`hookSpecificOutput.permissionDecision` with its reason, exit 0; no output is no decision."""

from __future__ import annotations

from typing import Any

from forge_tools.hook.protocol import Answer, HookCall, call_of, hook_specific

NAME = "claude"
LABEL = "Claude Code"
ASKS = True
EVENT = "PreToolUse"


def read(payload: Any) -> HookCall | None:
    call = call_of(payload)
    return call if payload.get("hook_event_name", EVENT) == EVENT else None


def answer(action: str | None, reason: str) -> Answer:
    if action is None:
        return Answer("")
    return hook_specific(action, reason)


def deny(reason: str) -> Answer:
    return hook_specific("deny", reason)
