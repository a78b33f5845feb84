"""Whether the permission rules hide a tool from a turn (SPEC 3.3), and per-request tool booleans.

A tool is hidden only by a blanket refusal: the last rule for its permission (whatever its pattern)
is exactly `*` with `deny`. A deny with a narrower pattern keeps the tool and rejects matching calls;
`ask` never hides.
"""

from __future__ import annotations

from collections.abc import Mapping

from forge_tools.origin import Origin
from forge_tools.permission.evaluate import RulesetLike, last_rule_for_permission
from forge_tools.permission.model import Rule
from forge_tools.permission.names import permission_name


def hidden_by_permission(tool_id: str, *rulesets: RulesetLike) -> Rule | None:
    """The `* deny` rule that hides `tool_id`, or None when the tool stays visible.

    Several rulesets are read as their concatenation (agent, session overlay, request booleans).
    """
    rule = last_rule_for_permission(permission_name(tool_id), *rulesets)
    if rule is not None and rule.pattern == "*" and rule.action == "deny":
        return rule
    return None


def request_rules(tool_booleans: Mapping[str, bool], origin: Origin) -> list[Rule]:
    """Per-request `{name: bool}`: false -> `name * deny`, true -> `name * allow`, in the given order.

    The name is kept as given (not folded into `edit`); the permission layer also drops exactly the
    tools set to false.
    """
    return [
        Rule(name, "*", "allow" if enabled else "deny", origin.at(name))
        for name, enabled in tool_booleans.items()
    ]
