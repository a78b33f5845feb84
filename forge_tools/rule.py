"""The permission rule value shared by config, agents, layers, the gate and check."""

from __future__ import annotations

from typing import Any, Literal

from forge_tools.named_tuple import NamedTuple
from forge_tools.origin import Origin

Action = Literal["allow", "deny", "ask"]
ACTIONS: tuple[Action, ...] = ("allow", "deny", "ask")


class Rule(NamedTuple):
    """`(permission, pattern, action)` plus where it was written. Both strings may hold wildcards."""

    permission: str
    pattern: str
    action: Action
    origin: Origin

    def to_json(self) -> dict[str, Any]:
        return {
            "permission": self.permission,
            "pattern": self.pattern,
            "action": self.action,
            "origin": self.origin.to_json(),
        }

    def __str__(self) -> str:
        return f"{self.permission} {self.pattern!r} {self.action} ({self.origin})"


Ruleset = tuple[Rule, ...]
