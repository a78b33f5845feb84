"""Claude Code 2.1.332's PreToolUse command hook (../shared agent-hooks.md section 1): payload
`{tool_name, tool_input, cwd, hook_event_name: "PreToolUse", ...}` on stdin; a deny or an ask is
`hookSpecificOutput.permissionDecision` with its reason, exit 0; no output is no decision."""

from __future__ import annotations

from typing import Any

from forge_tools.hook.protocol import Answer, HookCall, hook_specific, pre_tool_call, said, updated_input

NAME = "claude"
LABEL = "Claude Code"
ASKS = True
EVENT = "PreToolUse"


def read(payload: Any) -> HookCall | None:
    return pre_tool_call(payload, EVENT)


def answer(action: str | None, reason: str) -> Answer:
    return said(action, reason, hook_specific, ASKS)


def deny(reason: str) -> Answer:
    return hook_specific("deny", reason)


def rewrite(tool_input: dict[str, Any], command: str, allows: bool, ask: str | None = None) -> Answer:
    """`updatedInput` is honoured with or without a decision (agent-hooks.md 1.3): an allow only where
    Claude itself would allow, else Claude's own rules and prompts decide the sandboxed command. Beside
    an `ask` too (2.1.332, tests/compat/hooks/claude-2.1.332.json `ask_rewrite`): the person is asked
    about the sandboxed line, and that is what runs once approved."""
    if ask is not None:
        return updated_input(tool_input, command, "ask", ask)
    return updated_input(tool_input, command, "allow" if allows else None,
                         "forge-tools: run inside the sandbox" if allows else None)
