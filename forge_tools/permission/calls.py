"""The one pattern evaluator and the one call-decision record (SPEC 4.4, 4.5).

`PermissionGate.decide` (permission/gate.py) is the only caller that decides a call: `run` asks the gate
and then the person, `explain --call` and `check --expect` put the same requests to a gate whose approver
never executes anything. This module holds what the gate decides with: `decide_pattern` (last match over
the turn's rules then the session's `always` rules, plus the opaque fail-closed step) and the records
`PatternDecision` and `CallDecision`.

A pattern marked opaque (a bash command whose real name is only known when it runs, such as `$CMD x` or
`curl .. | sh`) fails closed: if the rules would allow it but a narrower deny or ask could apply to what
really runs, the answer is ask. A person's `always` answer in this session is the one allow that stands.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from forge_tools.origin import Origin
from forge_tools.permission.evaluate import RuleIndex, RulesetLike, evaluate
from forge_tools.permission.model import Action, Rule
from forge_tools.permission.wildcard import wildcard_match

STRICTNESS: dict[str, int] = {"allow": 0, "ask": 1, "deny": 2}


@dataclass(frozen=True)
class PermissionRequest:
    """One permission check a call needs: the permission name, the patterns to check, and the
    patterns that an `always` answer would allow for the rest of the session. `metadata["opaque"]`
    lists the patterns whose real command is known only when it runs. (A tool returns these from its
    `permission_requests`; `forge_tools.PermissionRequest` is this class.)"""

    permission: str
    patterns: tuple[str, ...]
    always: tuple[str, ...] = ()
    metadata: dict[str, Any] = field(default_factory=dict, hash=False, compare=False)


@dataclass(frozen=True)
class PatternDecision:
    """One checked pattern: the action, the matching rule, and why an opaque pattern was escalated."""

    permission: str
    pattern: str
    action: Action
    rule: Rule | None
    escalated_by: Rule | None = None  # the narrower rule that could apply to an opaque command

    @property
    def deciding_rule(self) -> Rule | None:
        """The rule that decided the action: the escalating rule for an opaque pattern, else the match."""
        return self.escalated_by if self.escalated_by is not None else self.rule

    @property
    def note(self) -> str | None:
        if self.escalated_by is None:
            return None
        r = self.escalated_by
        return (f"what {self.pattern!r} runs is known only when it runs, and rule {r.permission} "
                f"{r.pattern!r} {r.action} ({r.origin}) could apply to it")

    @property
    def asking_rule(self) -> Rule | None:
        """The rule a question and an audit line name: for an escalated pattern a `safety` ask whose
        origin says why (the allow it overrides is in `rule`), else the matching rule."""
        note = self.note
        if note is None:
            return self.rule
        return Rule(self.permission, self.pattern, "ask", Origin("safety", name=note))

    def to_json(self) -> dict[str, Any]:
        return {
            "permission": self.permission,
            "pattern": self.pattern,
            "action": self.action,
            "rule": self.rule.to_json() if self.rule is not None else None,
            "escalated_by": self.escalated_by.to_json() if self.escalated_by is not None else None,
            "note": self.note,
        }


@dataclass(frozen=True)
class CallDecision:
    """What one call meets at the gate: one `PatternDecision` per checked pattern, in the order the
    wrapper asks them, or the reason the call never reaches the gate (unknown or hidden tool, input
    that does not fit). The action is the strictest: deny > ask > allow."""

    checks: tuple[PatternDecision, ...] = ()
    args: dict[str, Any] = field(default_factory=dict)
    refused: str | None = None  # why the call is denied before any pattern is checked
    refused_by: Rule | None = None  # the rule behind that refusal (a hiding `* deny`), if any

    @property
    def action(self) -> Action:
        if self.refused is not None:
            return "deny"
        worst = self.deciding
        return worst.action if worst is not None else "allow"

    @property
    def deciding(self) -> PatternDecision | None:
        """The first check with the strictest action (None: no check, or a refusal)."""
        worst: PatternDecision | None = None
        for check in self.checks:
            if worst is None or STRICTNESS[check.action] > STRICTNESS[worst.action]:
                worst = check
        return worst

    @property
    def deciding_rule(self) -> Rule | None:
        if self.refused is not None:
            return self.refused_by
        worst = self.deciding
        return worst.deciding_rule if worst is not None else None

    def to_json(self) -> dict[str, Any]:
        rule = self.deciding_rule
        data: dict[str, Any] = {
            "args": self.args,
            "action": self.action,
            "deciding_rule": rule.to_json() if rule is not None else None,
            "checks": [c.to_json() for c in self.checks],
        }
        if self.refused is not None:
            data["refused"] = self.refused
        return data


def opaque_escalation(permission: str, pattern: str, rules: Sequence[Rule]) -> Rule | None:
    """For an opaque pattern: a deny or ask rule that could apply to the real command, or None.

    Only rules after the last catch-all (`*`) rule of the permission can decide anything, since that
    one matches every command; among those, any deny or ask might match what really runs.
    """
    relevant = [r for r in rules if wildcard_match(permission, r.permission)]
    catch_all = max((i for i, r in enumerate(relevant) if set(r.pattern) <= {"*"}), default=0)
    return next((r for r in reversed(relevant[catch_all:]) if r.action in ("deny", "ask")), None)


def _rules_of(ruleset: RulesetLike) -> tuple[Rule, ...]:
    return ruleset.rules if isinstance(ruleset, RuleIndex) else tuple(ruleset)


def decide_pattern(permission: str, pattern: str, rules: RulesetLike, opaque: bool = False,
                   session: Sequence[Rule] = ()) -> PatternDecision:
    """The one pattern evaluator: last match over the turn's rules then the session's rules; an opaque
    pattern the rules allow is asked when a narrower deny or ask could apply to what really runs (a
    session `always` answer for it stands)."""
    decision = evaluate(permission, pattern, rules, tuple(session))
    answered = decision.rule is not None and decision.rule.origin.kind == "session"
    if opaque and decision.action == "allow" and not answered:
        risk = opaque_escalation(permission, pattern, (*_rules_of(rules), *session))
        if risk is not None:
            return PatternDecision(permission, pattern, "ask", decision.rule, risk)
    return PatternDecision(permission, pattern, decision.action, decision.rule)


def decide_request(permission: str, patterns: Iterable[str], metadata: dict[str, Any] | None,
                   rules: RulesetLike, session: Sequence[Rule] = ()) -> list[PatternDecision]:
    """Every pattern of one permission request; `metadata["opaque"]` lists the opaque ones."""
    opaque = set((metadata or {}).get("opaque") or ())
    return [decide_pattern(permission, p, rules, p in opaque, session) for p in patterns]
