"""Codex CLI 0.171.0's PreToolUse command hook (agent-hooks.md section 2): the payload names the
shell tool `Bash` with `tool_input.command` (apply_patch: the patch in `command`; MCP tools by their
model-visible name). A deny is `hookSpecificOutput.permissionDecision: "deny"` with a non-empty reason
and no other field (Codex runs the call on a deny without a reason, with an unknown field, on
`ask`, and on exit 2 with an empty stderr); no output is no decision. Codex cannot ask from a hook."""

from __future__ import annotations

from typing import Any

from forge_tools.hook.protocol import Answer, HookCall, hook_specific, pre_tool_call, said, updated_input

NAME = "codex"
LABEL = "Codex CLI"
ASKS = False
EVENT = "PreToolUse"


def read(payload: Any) -> HookCall | None:
    call = pre_tool_call(payload, EVENT)
    if call is None:
        return None
    if call.tool == "apply_patch" and isinstance(call.input, dict) and "command" in call.input:
        return call._replace(input={"patchText": call.input["command"]})
    return call


def answer(action: str | None, reason: str) -> Answer:
    return said(action, reason, hook_specific, ASKS)


def deny(reason: str) -> Answer:
    return hook_specific("deny", reason)


def rewrite(tool_input: dict[str, Any], command: str, allows: bool, ask: str | None = None) -> Answer | None:
    """Codex takes `updatedInput` only with `permissionDecision: "allow"` (without one it runs the
    original, agent-hooks.md 2.3), and an allow would skip Codex's own approval: so the rewrite is sent
    only where Codex itself would allow, in exactly the verified form (no reason, no other field)."""
    return updated_input(tool_input, command, "allow", None) if allows and ask is None else None
