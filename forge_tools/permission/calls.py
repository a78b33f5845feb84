"""How the ruleset answers one call's permission checks, without running anything (SPEC 4.4, 4.5).

`run` (through the gate), `explain --call` and `check --expect` all decide calls here, so the three can
never disagree. A pattern marked opaque (a bash command whose real name is only known when it runs,
such as `$CMD x` or `curl .. | sh`) fails closed: if the rules would allow it but a narrower deny or ask
could apply to what really runs, the answer is ask.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from forge_tools.origin import Origin
from forge_tools.permission.evaluate import evaluate
from forge_tools.permission.model import Action, Rule
from forge_tools.permission.wildcard import wildcard_match


@dataclass(frozen=True)
class PatternDecision:
    """One checked pattern: the action, the deciding rule, and why an opaque pattern was escalated."""

    permission: str
    pattern: str
    action: Action
    rule: Rule | None
    escalated_by: Rule | None = None  # the narrower rule that could apply to an opaque command

    @property
    def note(self) -> str | None:
        if self.escalated_by is None:
            return None
        r = self.escalated_by
        return (f"what {self.pattern!r} runs is known only when it runs, and rule {r.permission} "
                f"{r.pattern!r} {r.action} ({r.origin}) could apply to it")

    def to_json(self) -> dict[str, Any]:
        return {
            "permission": self.permission,
            "pattern": self.pattern,
            "action": self.action,
            "rule": self.rule.to_json() if self.rule is not None else None,
            "escalated_by": self.escalated_by.to_json() if self.escalated_by is not None else None,
            "note": self.note,
        }


def opaque_escalation(permission: str, pattern: str, rules: Sequence[Rule]) -> Rule | None:
    """For an opaque pattern: a deny or ask rule that could apply to the real command, or None.

    Only rules after the last catch-all (`*`) rule of the permission can decide anything, since that
    one matches every command; among those, any deny or ask might match what really runs. A catch-all
    deny is returned first: under `"*": "deny"` an opaque command is denied, not asked.
    """
    relevant = [r for r in rules if wildcard_match(permission, r.permission)]
    catch_all = max((i for i, r in enumerate(relevant) if set(r.pattern) <= {"*"}), default=0)
    last = relevant[catch_all] if relevant else None
    if last is not None and set(last.pattern) <= {"*"} and last.action == "deny":
        return last
    return next((r for r in reversed(relevant[catch_all:]) if r.action in ("deny", "ask")), None)


def escalated_action(risk: Rule) -> Action:
    """What an allowed opaque pattern becomes: deny under a catch-all deny, else ask."""
    return "deny" if risk.action == "deny" and set(risk.pattern) <= {"*"} else "ask"


# The rule behind a pattern that is always asked (`metadata["ask"]`): a bash redirect into the
# project's own agent config would change the rules themselves.
AGENT_CONFIG_RULE = Rule("edit", "*", "ask", Origin("safety", name="a write to the project's agent config"))


def decide_pattern(
    permission: str, pattern: str, rules: Sequence[Rule], opaque: bool = False, always_ask: bool = False,
) -> PatternDecision:
    decision = evaluate(permission, pattern, tuple(rules))
    if opaque and decision.action == "allow":
        risk = opaque_escalation(permission, pattern, rules)
        if risk is not None:
            return PatternDecision(permission, pattern, escalated_action(risk), decision.rule, risk)
    if always_ask and decision.action == "allow":
        return PatternDecision(permission, pattern, "ask", decision.rule, AGENT_CONFIG_RULE)
    return PatternDecision(permission, pattern, decision.action, decision.rule)


def decide_request(permission: str, patterns: Iterable[str], metadata: dict[str, Any] | None,
                   rules: Sequence[Rule]) -> list[PatternDecision]:
    """Every pattern of one permission request; `metadata["opaque"]` lists the opaque ones and
    `metadata["ask"]` the ones never allowed without a question."""
    opaque = set((metadata or {}).get("opaque") or ())
    forced = set((metadata or {}).get("ask") or ())
    return [decide_pattern(permission, p, rules, p in opaque, p in forced) for p in patterns]
