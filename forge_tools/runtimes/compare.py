"""The one line that says where the runtime's answer and forge-tools' gate differ (explain, check)."""

from __future__ import annotations

import difflib
import json
from typing import TYPE_CHECKING, Any

from forge_tools.named_tuple import NamedTuple
from forge_tools.permission.calls import STRICTNESS
from forge_tools.runtimes import Chosen
from forge_tools.runtimes.base import RuntimeAnswer

if TYPE_CHECKING:
    from forge_tools.permission.calls import CallDecision, PatternDecision

#: the runtimes that read the rules the gate reads (opencode's and forge-tools' files); any other agent
#: decides by its own files, so a gate rule is never "its" rule
READS_THE_GATES_RULES = frozenset({"opencode", "forge"})
_RUNTIME_VERB = {"allow": "runs this", "ask": "asks before running this", "deny": "refuses this"}
_GATE_VERB = {"allow": "run it", "ask": "ask first", "deny": "deny it"}


def differs(answer: RuntimeAnswer, gate: CallDecision) -> bool:
    return answer.action != gate.action


def difference(answer: RuntimeAnswer, gate: CallDecision) -> str | None:
    """`opencode 1.18.33 runs this: its rule "rm *" does not match "/bin/rm v2.txt"; forge-tools run
    would deny it (the gate checks "rm v2.txt")`, or None when both give the same action."""
    if not differs(answer, gate):
        return None
    why, gate_side = _halves(answer, gate)
    return f"{answer.label} {_RUNTIME_VERB[answer.action]}: {why}; {gate_side}"


def beside_reason(answer: RuntimeAnswer, gate: CallDecision) -> str | None:
    """What `difference` adds to a line that already gave the runtime's reason: the gate's half
    alone when the runtime's half would only repeat that reason, else the whole difference."""
    if not differs(answer, gate):
        return None
    why, gate_side = _halves(answer, gate)
    return gate_side if why == answer.reason else difference(answer, gate)


def _halves(answer: RuntimeAnswer, gate: CallDecision) -> tuple[str, str]:
    """(why the runtime does what it does, what the gate would do and why) for answers that differ."""
    looser = STRICTNESS[answer.action] < STRICTNESS[gate.action]
    why = _looser_why(answer, gate) if looser else answer.reason
    return why, f"forge-tools run would {_GATE_VERB[gate.action]}{_gate_why(answer, gate)}"


def _looser_why(answer: RuntimeAnswer, gate: CallDecision) -> str:
    """Why the runtime lets through what the gate stops: the gate's rule and the text the runtime
    matched instead."""
    strict = gate.deciding
    if strict is None or gate.refused is not None:
        return answer.reason
    rule = strict.deciding_rule
    seen = _closest(answer.decision.checks, strict)
    if rule is None:
        return answer.reason
    if answer.runtime not in READS_THE_GATES_RULES:
        return answer.reason  # another agent's own files decided: the gate's rule is not its rule
    if seen is None:
        return (f"it makes no {strict.permission} check here, so its {strict.permission} rule "
                f"{json.dumps(rule.pattern)} "
                "never applies")
    if seen.rule == rule:
        return f"its rule {json.dumps(rule.pattern)} matches {json.dumps(seen.pattern)}, as the gate's does"
    return f"its rule {json.dumps(rule.pattern)} does not match {json.dumps(seen.pattern)}"


def _gate_why(answer: RuntimeAnswer, gate: CallDecision) -> str:
    strict = gate.deciding
    if gate.refused is not None:
        return f" ({gate.refused})"
    if strict is None:
        return ""
    if strict.escalated_by is not None and strict.note:
        return f" ({strict.note})"
    texts = {c.pattern for c in answer.decision.checks}
    if strict.pattern not in texts:
        return f" (the gate checks {strict.permission} {json.dumps(strict.pattern)})"
    rule = strict.deciding_rule
    return f" (by its rule {json.dumps(rule.pattern)})" if rule is not None else ""


def _closest(checks: tuple[PatternDecision, ...], strict: PatternDecision) -> PatternDecision | None:
    """The runtime's check of the same permission most like the gate's strictest one."""
    same = [c for c in checks if c.permission.lower() == strict.permission]  # Claude says Bash
    if not same:
        return None
    return max(same, key=lambda c: difflib.SequenceMatcher(None, c.pattern, strict.pattern).ratio())


class Answers(NamedTuple):
    """Both answers about one call: the runtime's (what the agent does) and the gate's (what
    `forge-tools run` enforces), and which runtime was used."""

    chosen: Chosen
    runtime: RuntimeAnswer
    gate: CallDecision
    translated: str | None = None  # what of the call was put in the runtime's words ("bash is Bash ...")

    @property
    def difference(self) -> str | None:
        return difference(self.runtime, self.gate)

    @property
    def beside_reason(self) -> str | None:
        """The difference for a line that already says the runtime's reason (check, diff)."""
        return beside_reason(self.runtime, self.gate)

    def to_json(self) -> dict[str, Any]:
        """The answering agent's decision as the flat fields (`action`, `checks`, `args`, ...: issue
        28), the gate's beside it (`gate`), the runtime's whole answer (`runtime`, as before)."""
        return {**self.runtime.decision.to_json(), "runtime": self.runtime.to_json(),
                "gate": self.gate.to_json(), "differs": differs(self.runtime, self.gate),
                "difference": self.difference, "translated": self.translated}
