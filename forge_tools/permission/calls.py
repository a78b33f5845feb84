"""The one pattern evaluator and the one call-decision record (SPEC 4.4, 4.5).

`PermissionGate.decide` (permission/gate.py) is the only caller that decides a call: `run` asks the gate
and then the person, `explain --call` and `check --expect` put the same requests to a gate whose approver
never executes anything. This module holds what the gate decides with: `decide_pattern` (last match over
the turn's rules then the session's `always` rules, plus the opaque fail-closed step) and the records
`PatternDecision` and `CallDecision`.

A pattern marked opaque (a bash command whose real name is only known when it runs, such as `$CMD x` or
`curl .. | sh`) fails closed: if the rules would allow it but a narrower deny or ask could apply to what
really runs, the answer is ask. A person's `always` answer in this session is the one allow that stands.
A pattern marked linked (a file with more than one hard link: its other names are unknown) is asked when
the rules would allow it but a narrower deny of the permission exists, since another name of the same
file may be the denied one. A pattern with readings (a bash command with options before its words:
`git -C . push x` may be `git push x`) is asked when the rules allow it but a reading meets a deny or
ask that is narrower than the catch-all and written after that allow.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from forge_tools.origin import Origin
from forge_tools.permission.evaluate import RuleIndex, RulesetLike, evaluate, rules_for
from forge_tools.permission.wildcard import WILDCARD_CHARS
from forge_tools.rule import Action, Rule

STRICTNESS: dict[str, int] = {"allow": 0, "ask": 1, "deny": 2}


def strictest(actions: Iterable[Action]) -> Action:
    """The strictest of a call's checked actions (deny > ask > allow), allow when nothing is checked:
    the action of a call no rule refuses (`CallDecision.action`)."""
    worst: Action = "allow"
    for action in actions:
        if STRICTNESS[action] > STRICTNESS[worst]:
            worst = action
    return worst


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
    escalation: Escalation | None = None  # why the pattern could not be pinned down
    reading: str | None = None  # for an "options" escalation: the reading the narrower rule meets

    @property
    def deciding_rule(self) -> Rule | None:
        """The rule that decided the action: the escalating rule for an opaque pattern, else the match."""
        return self.escalated_by if self.escalated_by is not None else self.rule

    @property
    def note(self) -> str | None:
        if self.escalated_by is None:
            return None
        r = self.escalated_by
        if r is AGENT_CONFIG_RULE:
            return (f"{self.pattern!r} is the project's agent config: a write there would change the rules, "
                    "so it is always asked")
        if r is OVERSIZED_RULE:
            return (f"the command line is {len(self.pattern):,} characters, over the 1 MiB that is "
                    "analysed, so it is asked")
        hint = by_name_hint(self.pattern) if self.escalation in (None, "opaque") else ""
        return (f"{escalation_reason(self.escalation or 'opaque', self.pattern, self.reading)}, and rule "
                f"{r.permission} {r.pattern!r} {r.action} ({r.origin}) could apply to it{hint}")

    @property
    def asking_rule(self) -> Rule | None:
        """The rule a question and an audit line name: for an escalated pattern a `safety` ask whose
        origin says why (the allow it overrides is in `rule`), else the matching rule."""
        note = self.note
        if note is None:
            return self.rule
        return Rule(self.permission, self.pattern, self.action, Origin("safety", name=note))

    def to_json(self) -> dict[str, Any]:
        return {
            "permission": self.permission,
            "pattern": self.pattern,
            "action": self.action,
            "rule": self.rule.to_json() if self.rule is not None else None,
            "escalated_by": self.escalated_by.to_json() if self.escalated_by is not None else None,
            "escalation": self.escalation,
            **({"reading": self.reading} if self.reading is not None else {}),
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
        return strictest(check.action for check in self.checks)

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


Escalation = Literal["opaque", "linked", "options"]
ESCALATIONS: tuple[Escalation, ...] = ("opaque", "linked")
"""The request metadata keys that list patterns which cannot be pinned down, in the order checked."""
#: request metadata key: pattern -> its readings past its options (tools.shell.option_readings)
READINGS = "readings"


def escalation_reason(kind: Escalation, pattern: str, reading: str | None = None) -> str:
    """Why a pattern the rules allow may still be something a rule forbids, in words."""
    if kind == "linked":
        return f"{pattern!r} has more than one name (hard links) and the rules see only this one"
    if kind == "options":
        return (f"options come before the words of {pattern!r}, and which of them takes a value only the "
                f"program knows: it may be {reading!r}")
    return f"what {pattern!r} runs is known only when it runs"


def by_name_hint(pattern: str) -> str:
    """How a person lets an opaque pattern run (`allowed_by_name`), in words."""
    return f"; an allow rule for exactly {pattern!r} (no wildcard) lets it run"


def opaque_escalation(permission: str, pattern: str, rules: Sequence[Rule],
                      kind: Escalation = "opaque") -> Rule | None:
    """For a pattern that cannot be pinned down: a rule that could apply to what it really is, or None.

    Only rules after the last catch-all (`*`) rule of the permission can decide anything, since that
    one matches every command; among those, any deny or ask might match what really runs (opaque), or
    any deny might name another link of the same file (linked). For an opaque pattern a catch-all deny is
    returned first: under `"*": "deny"` an opaque command is denied, not asked.
    """
    actions = ("deny",) if kind == "linked" else ("deny", "ask")
    relevant = rules_for(permission, rules)
    catch_all = max((i for i, r in enumerate(relevant) if set(r.pattern) <= {"*"}), default=0)
    last = relevant[catch_all] if relevant else None
    if kind == "opaque" and last is not None and set(last.pattern) <= {"*"} and last.action == "deny":
        return last
    return next((r for r in reversed(relevant[catch_all:]) if r.action in actions), None)


def allowed_by_name(rule: Rule | None) -> bool:
    """Whether an allow rule names the very command it allows: a pattern with no wildcard
    (`python3 -c "print(1)"`). A wildcard cannot say which word carries code (`sed -n *` also matches
    `sed -n -e'1e rm x'`, `git diff *` a diff whose external driver a variable names), so code given to
    a program stays opaque under any rule with one."""
    if rule is None or rule.action != "allow" or rule.origin.kind == "safety":
        return False
    return not any(c in WILDCARD_CHARS for c in rule.pattern)


def named_allow_risk(permission: str, allow: Rule, rules: Sequence[Rule]) -> Rule | None:
    """For an opaque pattern allowed by name (`allowed_by_name`): a deny or ask written after that
    allow which could still apply to what really runs (`"python3 -c x": "allow"` then `"rm *": "deny"`:
    the code may run rm), or None. Rules before the allow are overridden by it, as last match says."""
    relevant = rules_for(permission, rules)
    after = next((i for i, r in enumerate(relevant) if r is allow), None)
    if after is None:
        return None
    return next((r for r in reversed(relevant[after + 1:]) if r.action in ("deny", "ask")), None)


def escalated_action(risk: Rule) -> Action:
    """What an allowed opaque pattern becomes: deny under a catch-all deny, else ask."""
    return "deny" if risk.action == "deny" and set(risk.pattern) <= {"*"} else "ask"


# The rule behind a pattern that is always asked (`metadata["ask"]`): a bash write into the project's
# own agent config would change the rules themselves.
AGENT_CONFIG_RULE = Rule("edit", "*", "ask", Origin("safety", name="a write to the project's agent config"))
# The rule behind a bash line too long to analyse (`metadata["oversized"]`, `tools.shell.MAX_LINE`):
# asked, unless a rule denies it (or asks) anyway.
OVERSIZED_RULE = Rule("bash", "*", "ask", Origin("safety", name="a command line over 1 MiB, not analysed"))
#: request metadata key: its `ask` patterns are asked because they are too long to analyse
OVERSIZED = "oversized"


def _rules_of(ruleset: RulesetLike) -> tuple[Rule, ...]:
    return ruleset.rules if isinstance(ruleset, RuleIndex) else tuple(ruleset)


def decide_pattern(permission: str, pattern: str, rules: RulesetLike, opaque: bool = False,
                   session: Sequence[Rule] = (), always_ask: bool = False,
                   escalations: Iterable[Escalation] = (), readings: Sequence[str] = (),
                   forced_by: Rule | None = None) -> PatternDecision:
    """The one pattern evaluator: last match over the turn's rules then the session's rules; an opaque
    pattern the rules allow is asked when a narrower deny or ask could apply to what really runs, and
    denied under a catch-all deny; a pattern the rules allow is asked when one of its `readings` meets a
    narrower deny or ask written after that allow (`reading_escalation`); an `always_ask` pattern the
    rules allow is asked (a session `always` answer for any of these stands)."""
    decision = evaluate(permission, pattern, rules, tuple(session))
    answered = decision.rule is not None and decision.rule.origin.kind == "session"
    kinds: list[Escalation] = ["opaque"] if opaque else []
    kinds += [k for k in escalations if k not in kinds]
    if kinds and decision.action == "allow" and not answered:
        every = (*_rules_of(rules), *session)
        for kind in kinds:
            if kind == "opaque" and allowed_by_name(decision.rule):
                assert decision.rule is not None
                named = named_allow_risk(permission, decision.rule, every)
                if named is not None:
                    return PatternDecision(permission, pattern, "ask", decision.rule, named, kind)
                continue
            risk = opaque_escalation(permission, pattern, every, kind)
            if risk is not None:
                action = escalated_action(risk) if kind == "opaque" else "ask"
                return PatternDecision(permission, pattern, action, decision.rule, risk, kind)
    if readings and decision.action == "allow" and not answered:
        found = reading_escalation(permission, decision.rule, readings, rules, session)
        if found is not None:
            return PatternDecision(permission, pattern, "ask", decision.rule, found[1], "options", found[0])
    if always_ask and decision.action == "allow" and not answered:
        return PatternDecision(permission, pattern, "ask", decision.rule, forced_by or AGENT_CONFIG_RULE)
    return PatternDecision(permission, pattern, decision.action, decision.rule)


def reading_escalation(permission: str, allow: Rule | None, readings: Sequence[str], rules: RulesetLike,
                       session: Sequence[Rule] = ()) -> tuple[str, Rule] | None:
    """The first reading of an allowed pattern (`git -C . push x` read as `git push x`) that the rules
    deny or ask by a rule narrower than the catch-all and after `allow` (an earlier rule is overridden
    by the allow, as last match says), with that rule; or None."""
    every = (*_rules_of(rules), *session)
    after = next((i for i, r in enumerate(every) if r is allow), -1)
    later = {id(r) for r in every[after + 1:]}
    for reading in readings:
        rule = evaluate(permission, reading, rules, tuple(session)).rule
        if (rule is not None and rule.action != "allow" and id(rule) in later
                and not set(rule.pattern) <= {"*"}):
            return reading, rule
    return None


#: request metadata key: rule patterns whose `allow` does not cover the request (the output store's
#: `<store>/*` for a file in the store that the store did not write; tools/outputs.OutputStore.wrote)
NOT_COVERED_BY = "not_covered_by"


def decide_request(permission: str, patterns: Iterable[str], metadata: dict[str, Any] | None,
                   rules: RulesetLike, session: Sequence[Rule] = ()) -> list[PatternDecision]:
    """Every pattern of one permission request; `metadata["opaque"]` and `metadata["linked"]` list the
    patterns that cannot be pinned down, `metadata["ask"]` the ones never allowed without a question,
    `metadata["not_covered_by"]` the rule patterns whose allow does not count for this request (the
    request is decided as if those allow rules were not there)."""
    forced = set((metadata or {}).get("ask") or ())
    uncovered = set((metadata or {}).get(NOT_COVERED_BY) or ())
    readings: dict[str, Sequence[str]] = (metadata or {}).get(READINGS) or {}
    if uncovered:
        rules = tuple(r for r in _rules_of(rules) if not (r.action == "allow" and r.pattern in uncovered))
    forced_by = OVERSIZED_RULE if (metadata or {}).get(OVERSIZED) else None
    return [decide_pattern(permission, p, rules, session=session, always_ask=p in forced,
                           escalations=escalations_of(metadata, p), readings=readings.get(p, ()),
                           forced_by=forced_by)
            for p in patterns]


def escalations_of(metadata: dict[str, Any] | None, pattern: str) -> list[Escalation]:
    """The kinds under which a request's metadata lists `pattern` (`metadata["opaque"]`, `["linked"]`)."""
    meta = metadata or {}
    return [kind for kind in ESCALATIONS if pattern in (meta.get(kind) or ())]
