"""opencode 1.18.33 has no command hook: the shim plugin forge-tools installs in `.opencode/plugins/`
(`hook.install`) runs `forge-tools hook --runtime opencode` from its `tool.execute.before` with
`{tool, args, cwd}` on stdin and throws (the call does not run; the message is the tool's output)
on anything but `{"decision": "allow"}`. So here a clear allow is printed for no decision."""

from __future__ import annotations

import json
from typing import Any

from forge_tools.hook.protocol import Answer, HookCall, call_of, top_level

NAME = "opencode"
LABEL = "opencode"
ASKS = False


def read(payload: Any) -> HookCall | None:
    return call_of(payload, "tool", "args", "cwd")


def answer(action: str | None, reason: str) -> Answer:
    if action is None:
        return top_level("allow")
    return top_level("deny", reason)


def deny(reason: str) -> Answer:
    return top_level("deny", reason)


def rewrite(tool_input: dict[str, Any], command: str, allows: bool, ask: str | None = None) -> Answer:
    """The shim plugin puts `command` into `output.args.command` in place (a new `output.args` object
    is ignored by opencode 1.18.33) and lets the call go on to opencode's own rules (a gate ask never
    gets here: the shim cannot ask, so it is a deny)."""
    return Answer(json.dumps({"decision": "allow", "command": command}) + "\n")
