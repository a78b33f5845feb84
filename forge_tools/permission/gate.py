"""The ask gate (SPEC 4.5): what happens when a tool call needs a permission.

The core never prompts: `PermissionGate` takes an injected `approve(question) -> Answer`, and the CLI
supplies an interactive or a policy-based one. Session state lives in `PermissionSession`: the allow
rules added by `always`, and the questions still pending. An `always` answer also settles other pending
questions that the new rules now allow; a `reject` rejects every pending question of the session.
Every evaluated pattern is recorded as a `GateDecision` for `run --audit` and JSON output.
"""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, cast

from forge_tools.errors import PermissionDenied, PermissionRejected
from forge_tools.origin import Origin
from forge_tools.permission.evaluate import Decision, RuleIndex, RulesetLike, evaluate
from forge_tools.permission.model import Action, Rule

if TYPE_CHECKING:
    from forge_tools.permission.calls import PatternDecision

Reply = Literal["once", "always", "reject"]
REPLIES: tuple[Reply, ...] = ("once", "always", "reject")
Status = Literal["pending", "approved", "rejected"]

SESSION_ORIGIN = Origin("session")


@dataclass(frozen=True)
class Answer:
    """A person's (or a policy's) answer to a question; feedback goes back to the model on reject."""

    reply: Reply
    feedback: str | None = None


@dataclass
class Question:
    """One pending `ask`: the permission, the patterns that need an answer, and what `always` allows."""

    id: str
    permission: str
    patterns: tuple[str, ...]
    always: tuple[str, ...]
    metadata: dict[str, Any] = field(default_factory=dict)
    rules: tuple[Rule | None, ...] = ()  # the `ask` rule behind each pattern (None: nothing matched)
    status: Status = "pending"
    answer: Answer | None = None
    settled_by: str | None = None  # the question whose answer settled this one, if not its own

    def describe(self) -> str:
        return f"{self.permission} {', '.join(repr(p) for p in self.patterns)}"


@dataclass(frozen=True)
class GateDecision:
    """One audit record: what was checked, what the rules said, and how an `ask` was answered."""

    time: float
    permission: str
    pattern: str
    action: Action
    rule: Rule | None
    # For an `ask`: once / always / reject (its own answer), "settled" (another question's `always`
    # allowed it), "cancelled" (another question's reject, or the question was interrupted), or
    # "not-asked" (a deny decided the call first). None for allow and deny.
    answer: str | None = None
    reason: str | None = None  # why, for settled / cancelled / not-asked
    feedback: str | None = None  # the reject's feedback to the model (own or the cancelling one's)

    def to_json(self) -> dict[str, Any]:
        return {
            "time": self.time,
            "permission": self.permission,
            "pattern": self.pattern,
            "action": self.action,
            "rule": self.rule.to_json() if self.rule else None,
            "answer": self.answer,
            "reason": self.reason,
            "feedback": self.feedback,
        }

    def __str__(self) -> str:
        by = f"rule {self.rule.permission} {self.rule.pattern!r} ({self.rule.origin})" if self.rule else (
            "no rule matched (default ask)"
        )
        answered = f", answered {self.answer}" if self.answer else ""
        if self.reason:
            answered += f" ({self.reason})"
        return f"{self.permission} {self.pattern!r}: {self.action} by {by}{answered}"


class RuleDenied(PermissionDenied):
    """A deny, with the patterns and deciding rules kept for reports."""

    def __init__(self, permission: str, denied: Sequence[tuple[str, Rule]]) -> None:
        self.permission = permission
        self.denied = list(denied)
        parts = [
            f"{pattern!r} by rule {rule.permission} {rule.pattern!r} deny ({rule.origin})"
            for pattern, rule in denied
        ]
        super().__init__(f"permission denied: {permission} {'; '.join(parts)}")


class QuestionRejected(PermissionRejected):
    """A rejected question (by its own answer or by another question's reject)."""

    def __init__(self, question: Question) -> None:
        self.question = question
        answer = question.answer
        feedback = answer.feedback if answer is not None else None
        if question.settled_by:
            message = f"rejected: {question.describe()} (question {question.settled_by} was rejected)"
        elif feedback:
            message = f"rejected: {question.describe()}; feedback: {feedback}"
        else:
            message = f"rejected: {question.describe()}"
        super().__init__(message, feedback=feedback)


class PermissionSession:
    """Session-scoped permission state: rules added by `always`, and the questions still pending."""

    def __init__(self, ruleset: RulesetLike) -> None:
        self.base = ruleset if isinstance(ruleset, RuleIndex) else RuleIndex(ruleset)
        self.rules: list[Rule] = []
        self.pending: dict[str, Question] = {}
        self._ids = itertools.count(1)
        self._lock = threading.RLock()
        self._feedback: dict[str, str | None] = {}

    def evaluate(self, permission: str, pattern: str) -> Decision:
        with self._lock:
            return evaluate(permission, pattern, self.base, tuple(self.rules))

    def open(self, permission: str, patterns: Sequence[str], always: Sequence[str],
             metadata: dict[str, Any] | None = None, rules: Sequence[Rule | None] = ()) -> Question:
        with self._lock:
            question = Question(f"q{next(self._ids)}", permission, tuple(patterns), tuple(always),
                                dict(metadata or {}), tuple(rules))
            self.pending[question.id] = question
            return question

    def reply(self, question_id: str, answer: Answer) -> list[Question]:
        """Apply an answer; returns every question it settled, the answered one first."""
        with self._lock:
            question = self.pending.pop(question_id, None)
            if question is None:
                return []
            question.answer = answer
            settled = [question]
            if answer.reply == "reject":
                question.status = "rejected"
                self._feedback[question.id] = answer.feedback
                for other in list(self.pending.values()):
                    self._settle(other, "rejected", question.id)
                    settled.append(other)
                return settled
            question.status = "approved"
            if answer.reply == "always":
                for pattern in question.always or question.patterns:
                    self.rules.append(Rule(question.permission, pattern, "allow", SESSION_ORIGIN))
                for other in list(self.pending.values()):
                    if all(self.evaluate(other.permission, p).action == "allow" for p in other.patterns):
                        self._settle(other, "approved", question.id)
                        settled.append(other)
            return settled

    def feedback_of(self, question_id: str) -> str | None:
        """The reject feedback of an answered question (kept for the questions it cancelled)."""
        with self._lock:
            return self._feedback.get(question_id)

    def _settle(self, question: Question, status: Status, by: str) -> None:
        del self.pending[question.id]
        question.status = status
        question.settled_by = by


Approve = Callable[[Question], Answer | str]


def _as_answer(value: Answer | str) -> Answer:
    if isinstance(value, Answer):
        return value
    if value not in REPLIES:
        raise ValueError(f"approve returned {value!r}; expected one of {', '.join(REPLIES)}")
    return Answer(cast(Reply, value))


def policy_approver(policy: Literal["approve", "reject"]) -> Callable[[Question], Answer]:
    """A non-interactive answer for every question: approve once, or reject saying why."""
    if policy == "approve":
        return lambda question: Answer("once")
    return lambda question: Answer("reject", "not allowed: non-interactive run with the reject policy")


class PermissionGate:
    """The `ask` a tool's context carries (tools.contract.AskFn): deny, allow, or ask `approve`."""

    def __init__(
        self,
        ruleset: RulesetLike,
        approve: Approve,
        audit: Callable[[GateDecision], None] | None = None,
        session: PermissionSession | None = None,
    ) -> None:
        self.session = session if session is not None else PermissionSession(ruleset)
        self.approve = approve
        self.audit = audit
        self.decisions: list[GateDecision] = []
        self._record_lock = threading.Lock()
        self._prompt_lock = threading.Lock()
        self._peek_rules: tuple[int, tuple[Rule, ...]] | None = None

    def peek(self, permission: str, patterns: Sequence[str],
             metadata: dict[str, Any] | None = None) -> list[PatternDecision]:
        """What this gate would answer for the request now, asking no one and recording nothing."""
        from forge_tools.permission.calls import decide_request

        session = self.session
        with session._lock:
            key = len(session.rules)
            if self._peek_rules is None or self._peek_rules[0] != key:  # one tuple: its index is cached
                self._peek_rules = (key, (*session.base.rules, *session.rules))
            rules = self._peek_rules[1]
        return decide_request(permission, patterns, metadata, rules)

    def _record(self, entry: GateDecision) -> None:
        with self._record_lock:
            self.decisions.append(entry)
        if self.audit is not None:
            self.audit(entry)

    def __call__(
        self,
        permission: str,
        patterns: list[str],
        always: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> None:
        now = time.time()
        checked = [(p, self.session.evaluate(permission, p)) for p in patterns]
        denied = [(p, d.rule) for p, d in checked if d.action == "deny" and d.rule is not None]
        asked = [(p, d) for p, d in checked if d.action == "ask"]
        for p, d in checked:
            if d.action != "ask":
                self._record(GateDecision(now, permission, p, d.action, d.rule))
            elif denied:  # never put to anyone: say so, not a blank answer
                first = denied[0][0]
                self._record(GateDecision(now, permission, p, d.action, d.rule, "not-asked",
                                          f"not asked: the deny on {first!r} decided the call first"))
        if denied:
            raise RuleDenied(permission, denied)
        if not asked:
            return
        asked_patterns = [p for p, _ in asked]
        question = self.session.open(
            permission, asked_patterns, offered_always(always or [], asked_patterns), metadata,
            [d.rule for _, d in asked],
        )
        with self._prompt_lock:
            if question.status == "pending":  # an earlier answer may have settled it meanwhile
                try:
                    answer = _as_answer(self.approve(question))
                except BaseException as exc:  # interrupted or refused before an answer: still logged
                    self.session.pending.pop(question.id, None)
                    why = getattr(exc, "message", None) or str(exc) or type(exc).__name__
                    for p, d in asked:
                        self._record(GateDecision(now, permission, p, d.action, d.rule, "cancelled",
                                                  f"no answer: {why}"))
                    raise
                self.session.reply(question.id, answer)
        own = question.answer
        feedback = own.feedback if own is not None and question.status == "rejected" else None
        reason: str | None = None
        if question.settled_by and question.status == "approved":
            how, reason = "settled", f"allowed by the 'always' answer to question {question.settled_by}"
        elif question.settled_by:
            how, reason = "cancelled", f"question {question.settled_by} was rejected"
            feedback = self.session.feedback_of(question.settled_by)
        else:
            how = own.reply if own else question.status
        for p, d in asked:
            self._record(GateDecision(now, permission, p, d.action, d.rule, how, reason, feedback))
        if question.status == "rejected":
            raise QuestionRejected(question)

    def record_cancelled(self, permission: str, patterns: Sequence[str], reason: str) -> None:
        """Log patterns of a call that were never put to anyone because an earlier question of the same
        call was rejected (or refused): one audit line per permission decision, even the cancelled."""
        now = time.time()
        for p in patterns:
            d = self.session.evaluate(permission, p)
            if d.action == "ask":
                self._record(GateDecision(now, permission, p, d.action, d.rule, "cancelled", reason))


def offered_always(always: Sequence[str], patterns: Sequence[str]) -> list[str]:
    """The `always` patterns that cover a pattern being asked: a call asked in parts (some patterns
    allowed by rules or a policy) must not offer `always` for commands the person is not asked about.
    When none covers one (a tool's own scheme), the tool's list is kept as given."""
    from forge_tools.permission.wildcard import wildcard_match

    kept = [a for a in always if any(wildcard_match(p, a) for p in patterns)]
    return kept or list(always)
