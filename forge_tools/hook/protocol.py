"""What every agent's protocol module gives `hook.main` (payload in, answer out), and the pieces
they share. A protocol knows nothing about rules: `read` takes the agent's payload apart, `answer`
says a verdict in the agent's exact form and `deny` is the refusal the guard prints when no verdict
could be reached."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Protocol

from forge_tools.named_tuple import NamedTuple

MAX_REASON = 600


class Answer(NamedTuple):
    """What the hook process prints and exits with."""

    stdout: str
    stderr: str = ""
    code: int = 0


class HookCall(NamedTuple):
    """One tool call as the agent hands it to its hook: its tool name, input and working directory."""

    tool: str
    input: Any
    cwd: Path


class Unreadable(Exception):
    """A payload the hook cannot read (not JSON, truncated, a field missing): the guard denies."""


class AgentProtocol(Protocol):
    NAME: str
    LABEL: str
    ASKS: bool  # whether the agent honours an `ask` from its hook

    def read(self, payload: Any) -> HookCall | None:
        """The call, or None for an event that is not a pre-tool call (no decision)."""

    def answer(self, action: str | None, reason: str) -> Answer:
        """`action` None is no decision; "deny" (and "ask" where the agent asks) in its exact form."""

    def deny(self, reason: str) -> Answer:
        """The refusal this agent honours."""

    def rewrite(self, tool_input: dict[str, Any], command: str, allows: bool,
                ask: str | None = None) -> Answer | None:
        """`--sandbox`: the shell call's input with `command` in place of its command line, in this
        agent's rewrite field; `allows`: the agent itself would run the call without asking (the answer
        may then carry an allow); `ask`: the gate asks, for this reason (only where `ASKS`: the answer
        asks about the rewritten call). None: this agent cannot take the rewrite here (Codex without
        an allow), so the hook gives no decision."""


def one_line(reason: str) -> str:
    """A reason on one line, not empty (Codex ignores a deny without one), bounded."""
    text = " ".join(str(reason).split()) or "refused by forge-tools hook"
    return text if len(text) <= MAX_REASON else text[: MAX_REASON - 3] + "..."


def field(payload: Any, name: str) -> Any:
    if not isinstance(payload, dict) or name not in payload:
        raise Unreadable(f"the payload has no {name!r}")
    return payload[name]


def call_of(payload: Any, tool_key: str = "tool_name", input_key: str = "tool_input",
            cwd_key: str = "cwd") -> HookCall:
    """The (tool, input, cwd) of a command-hook payload; a missing or mistyped field is unreadable."""
    tool = field(payload, tool_key)
    cwd = field(payload, cwd_key)
    if not isinstance(tool, str) or not tool:
        raise Unreadable(f"{tool_key!r} is not a tool name")
    if not isinstance(cwd, str) or not cwd.startswith("/"):
        raise Unreadable(f"{cwd_key!r} is not an absolute directory")
    return HookCall(tool, payload.get(input_key, {}), Path(cwd))


def hook_specific(decision: str, reason: str) -> Answer:
    """Claude Code's and Codex CLI's form: only the documented fields (Codex throws out a deny with an
    unknown field, and one without a reason)."""
    out = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": decision,
                                  "permissionDecisionReason": one_line(reason)}}
    return Answer(json.dumps(out) + "\n")


def top_level(decision: str, reason: str | None = None) -> Answer:
    """Gemini CLI's form (and the opencode shim's): `{"decision": ..., "reason": ...}`."""
    out: dict[str, str] = {"decision": decision}
    if reason is not None:
        out["reason"] = one_line(reason)
    return Answer(json.dumps(out) + "\n")


def updated_input(tool_input: dict[str, Any], command: str, decision: str | None,
                  reason: str | None) -> Answer:
    """Claude Code's and Codex CLI's rewrite: `updatedInput` replaces the whole input (the other fields
    are sent back as they came), with `permissionDecision` where `decision` is given."""
    out: dict[str, Any] = {"hookEventName": "PreToolUse"}
    if decision is not None:
        out["permissionDecision"] = decision
        if reason is not None:
            out["permissionDecisionReason"] = one_line(reason)
    out["updatedInput"] = {**tool_input, "command": command}
    return Answer(json.dumps({"hookSpecificOutput": out}) + "\n")


def pre_tool_call(payload: Any, event: str) -> HookCall | None:
    """A command-hook payload's call, or None for another event than `event` (no decision)."""
    call = call_of(payload)
    return call if payload.get("hook_event_name", event) == event else None


def said(action: str | None, reason: str, form: Any, asks: bool) -> Answer:
    """No output for no decision; else `form(decision, reason)`, an ask sent as a deny where the agent
    cannot ask (`asks` False)."""
    if action is None:
        return Answer("")
    answer: Answer = form(action if asks else "deny", reason)
    return answer
