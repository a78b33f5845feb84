"""How the ruleset answers one call's permission checks, without running anything (SPEC 4.4, 4.5).

`run` (through the gate), `explain --call` and `check --expect` all decide calls here, so the three can
never disagree. A pattern marked opaque (a bash command whose real name is only known when it runs,
such as `$CMD x` or `curl .. | sh`) fails closed: if the rules would allow it but a narrower deny or ask
could apply to what really runs, the answer is ask. A pattern marked linked (a file with more than one
hard link: its other names are unknown) is asked when the rules would allow it but a narrower deny of
the permission exists, since another name of the same file may be the denied one.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

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
    escalation: Escalation | None = None  # why the pattern could not be pinned down

    @property
    def note(self) -> str | None:
        if self.escalated_by is None:
            return None
        r = self.escalated_by
        return (f"{escalation_reason(self.escalation or 'opaque', self.pattern)}, and rule {r.permission} "
                f"{r.pattern!r} {r.action} ({r.origin}) could apply to it")

    def to_json(self) -> dict[str, Any]:
        return {
            "permission": self.permission,
            "pattern": self.pattern,
            "action": self.action,
            "rule": self.rule.to_json() if self.rule is not None else None,
            "escalated_by": self.escalated_by.to_json() if self.escalated_by is not None else None,
            "escalation": self.escalation,
            "note": self.note,
        }


Escalation = Literal["opaque", "linked"]
ESCALATIONS: tuple[Escalation, ...] = ("opaque", "linked")
"""The request metadata keys that list patterns which cannot be pinned down, in the order checked."""


def escalation_reason(kind: Escalation, pattern: str) -> str:
    """Why a pattern the rules allow may still be something a rule forbids, in words."""
    if kind == "linked":
        return f"{pattern!r} has more than one name (hard links) and the rules see only this one"
    return f"what {pattern!r} runs is known only when it runs"


def opaque_escalation(permission: str, pattern: str, rules: Sequence[Rule],
                      kind: Escalation = "opaque") -> Rule | None:
    """For a pattern that cannot be pinned down: a rule that could apply to what it really is, or None.

    Only rules after the last catch-all (`*`) rule of the permission can decide anything, since that
    one matches every command; among those, any deny or ask might match what really runs (opaque), or
    any deny might name another link of the same file (linked).
    """
    actions = ("deny",) if kind == "linked" else ("deny", "ask")
    relevant = [r for r in rules if wildcard_match(permission, r.permission)]
    catch_all = max((i for i, r in enumerate(relevant) if set(r.pattern) <= {"*"}), default=0)
    return next((r for r in reversed(relevant[catch_all:]) if r.action in actions), None)


def decide_pattern(
    permission: str, pattern: str, rules: Sequence[Rule], opaque: bool = False,
    escalations: Iterable[Escalation] = (),
) -> PatternDecision:
    decision = evaluate(permission, pattern, tuple(rules))
    kinds: list[Escalation] = ["opaque"] if opaque else []
    kinds += [k for k in escalations if k not in kinds]
    if decision.action == "allow":
        for kind in kinds:
            risk = opaque_escalation(permission, pattern, rules, kind)
            if risk is not None:
                return PatternDecision(permission, pattern, "ask", decision.rule, risk, kind)
    return PatternDecision(permission, pattern, decision.action, decision.rule)


def escalations_of(metadata: dict[str, Any] | None, pattern: str) -> list[Escalation]:
    """The kinds under which a request's metadata lists `pattern` (`metadata["opaque"]`, `["linked"]`)."""
    meta = metadata or {}
    return [kind for kind in ESCALATIONS if pattern in (meta.get(kind) or ())]


def decide_request(permission: str, patterns: Iterable[str], metadata: dict[str, Any] | None,
                   rules: Sequence[Rule]) -> list[PatternDecision]:
    """Every pattern of one permission request; `metadata["opaque"]` and `metadata["linked"]` list the
    patterns that cannot be pinned down."""
    return [decide_pattern(permission, p, rules, escalations=escalations_of(metadata, p)) for p in patterns]
