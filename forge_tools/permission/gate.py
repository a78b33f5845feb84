"""The ask gate (SPEC 4.5): the one place a call's permissions are decided, asked and recorded.

`PermissionGate.decide(request)` is the decision (pure: rules of the turn, then the session's `always`
rules, with the opaque fail-closed step of permission/calls.py); calling the gate decides, asks for
what is `ask` and records. `run` hands the gate to the tool wrapper as `ctx.ask`; `explain --call` and
`check --expect` use `dry_decide`, the same gate with an approver that never executes anything.

The core never prompts: `PermissionGate` takes an injected `approve(question) -> Answer`, and the CLI
supplies an interactive or a policy-based one. Session state lives in `PermissionSession`: the allow
rules added by `always`, and the questions still pending. An `always` answer also settles other pending
questions that the new rules now allow; a `reject` rejects every pending question of the session.
Every evaluated pattern is recorded as a `GateDecision` for `run --audit` and JSON output.
"""

from __future__ import annotations

import _thread
import itertools
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, cast

from forge_tools.errors import ExitCode, PermissionDenied, PermissionRejected
from forge_tools.named_tuple import NamedTuple
from forge_tools.origin import Origin
from forge_tools.permission.calls import (
    CallDecision,
    Escalation,
    PatternDecision,
    PermissionRequest,
    decide_request,
)
from forge_tools.permission.evaluate import RuleIndex, RulesetLike, index_of
from forge_tools.rule import Action, Rule

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


class GateDecision(NamedTuple):
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
    allowed_by: Rule | None = None  # for an escalated opaque pattern: the allow the escalation overrode
    escalated_by: Rule | None = None  # ... and the narrower rule that could apply to what really runs
    escalation: Escalation | None = None  # ... and why the pattern could not be pinned down
    reading: str | None = None  # ... and, for options before its words, the reading the rule meets

    @classmethod
    def of(cls, when: float, check: PatternDecision, answer: str | None = None, reason: str | None = None,
           feedback: str | None = None) -> GateDecision:
        """The audit record of one decided pattern (an escalated one names its `safety` ask)."""
        return cls(when, check.permission, check.pattern, check.action, check.asking_rule, answer, reason,
                   feedback, check.rule if check.escalated_by is not None else None, check.escalated_by,
                   check.escalation, check.reading)

    @property
    def check(self) -> PatternDecision:
        """The pattern decision this record holds, as `decide` made it."""
        if self.escalated_by is not None:
            return PatternDecision(self.permission, self.pattern, self.action, self.allowed_by,
                                   self.escalated_by, self.escalation, self.reading)
        return PatternDecision(self.permission, self.pattern, self.action, self.rule)

    def to_json(self) -> dict[str, Any]:
        deciding = self.check.deciding_rule
        return {
            "time": self.time,
            "permission": self.permission,
            "pattern": self.pattern,
            "action": self.action,
            "rule": self.rule.to_json() if self.rule else None,
            "deciding_rule": deciding.to_json() if deciding else None,
            "escalated_by": self.escalated_by.to_json() if self.escalated_by else None,
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

    def __init__(self, permission: str, denied: Sequence[PatternDecision]) -> None:
        self.permission = permission
        self.denied = [(c.pattern, c.deciding_rule) for c in denied]
        parts = []
        for c in denied:
            rule = c.deciding_rule
            assert rule is not None
            other = "" if rule.permission == permission else f"{rule.permission} "
            if c.escalated_by is not None and c.rule is not None:  # an allowed pattern made a deny
                allow = c.rule
                part = (f"{other}{c.pattern!r}: rule {allow.permission} {allow.pattern!r} ({allow.origin}) "
                        f"allows it, but {c.note}")
            else:
                part = f"{other}{c.pattern!r} by rule {rule.permission} {rule.pattern!r} deny ({rule.origin})"
            parts.append(part)
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
        # a turn's ruleset (a tuple) is indexed once for every session over it (`index_of` caches it by
        # identity): a dry gate is made per call decided, and `check` decides thousands
        if isinstance(ruleset, RuleIndex):
            self.base = ruleset
        else:
            cached = index_of(ruleset)
            self.base = cached if cached is not None else RuleIndex(ruleset)
        self.rules: list[Rule] = []
        self.pending: dict[str, Question] = {}
        self._ids = itertools.count(1)
        self._lock = _thread.RLock()
        self._feedback: dict[str, str | None] = {}

    def decide(self, permission: str, patterns: Sequence[str],
               metadata: dict[str, Any] | None = None) -> list[PatternDecision]:
        """Each pattern over the turn's rules, then the rules this session's `always` answers added."""
        with self._lock:
            return decide_request(permission, patterns, metadata, self.base, tuple(self.rules))

    def withdraw(self, question_id: str) -> None:
        """Drop a question nobody answered (the approver was interrupted or raised)."""
        with self._lock:
            self.pending.pop(question_id, None)

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
                    checks = self.decide(other.permission, other.patterns, other.metadata)
                    if all(c.action == "allow" for c in checks):
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


class QuestionInterrupted(PermissionRejected):
    """Ctrl-C at a permission question: nothing was approved, so the call stopped there (exit 130)."""

    exit_code = ExitCode.INTERRUPTED

    def __init__(self) -> None:
        super().__init__(INTERRUPTED_QUESTION)


INTERRUPTED_QUESTION = (
    "the permission question was interrupted (Ctrl-C); nothing was approved, so nothing ran"
)


def refusal_reason(exc: BaseException) -> str:
    """Why later patterns of a call were not asked, for their audit lines."""
    if isinstance(exc, QuestionInterrupted):
        return "the question before it was interrupted"
    if isinstance(exc, PermissionDenied):
        return "a deny decided the call first"
    question = getattr(exc, "question", None)
    which = f" ({question.id})" if question is not None else ""
    return f"an earlier question of the call{which} was rejected"


Covered = Callable[[str, str], bool]
"""Whether a non-interactive policy (`--yes`, `--approve`) approves one (permission, pattern)."""


class PermissionGate:
    """The one decision point of a call (tools.contract.AskFn): decide, ask for what is ask, record.

    `decide(request)` is pure (it reads the turn's rules and the session's `always` rules and changes
    nothing); `__call__` decides, raises for a deny, puts the `ask` patterns to `approve` and records one
    `GateDecision` per pattern. `run` passes a person or a policy as `approve`; `explain --call` and
    `check --expect` pass `DryApprover` through `dry_decide`, so all three answer from the same code.
    A `session` belongs to one turn's rules: when one is given, its rules are the ones checked.
    """

    def __init__(
        self,
        ruleset: RulesetLike,
        approve: Approve,
        audit: Callable[[GateDecision], None] | None = None,
        session: PermissionSession | None = None,
        pre_approved: Covered | None = None,
        tool: str | None = None,
    ) -> None:
        self.session = session if session is not None else PermissionSession(ruleset)
        self.approve = approve
        self.audit = audit
        self.pre_approved = pre_approved
        self.tool = tool
        self.decisions: list[GateDecision] = []
        self.refusals: list[PermissionDenied | PermissionRejected] = []
        self.requests_asked = 0  # how many permission requests of the call reached the gate
        self._record_lock = _thread.allocate_lock()
        self._prompt_lock = _thread.allocate_lock()

    def peek(self, permission: str, patterns: Sequence[str],
             metadata: dict[str, Any] | None = None) -> list[PatternDecision]:
        """What this gate would answer for the request now, asking no one and recording nothing (a tool
        leaving denied files out of its results: `ToolContext.peek`)."""
        return self.session.decide(permission, patterns, metadata)

    def _record(self, entry: GateDecision) -> None:
        with self._record_lock:
            self.decisions.append(entry)
        if self.audit is not None:
            self.audit(entry)

    def decide(self, request: PermissionRequest) -> CallDecision:
        """How the rules and this session's answers decide one permission request (changes nothing)."""
        return CallDecision(tuple(self.session.decide(request.permission, request.patterns,
                                                      request.metadata)))

    def begin_call(self, requests: Sequence[PermissionRequest]) -> None:
        """Decide the whole call before anything is asked: when any pattern of any request is denied,
        the call is denied at once (every pattern recorded, the asks as not asked) and nobody is asked
        about the parts that could never run. The wrapper calls this before the requests one by one."""
        decided = [(req, self.decide(req)) for req in requests]
        denied = [c for _, d in decided for c in d.checks
                  if c.action == "deny" and c.deciding_rule is not None]
        if not denied:
            return
        now = time.time()
        why = f"not asked: the deny on {denied[0].pattern!r} decided the call first"
        for _, d in decided:
            for c in d.checks:
                self._record(GateDecision.of(now, c, "not-asked", why) if c.action == "ask"
                             else GateDecision.of(now, c))
        self.requests_asked += len(decided)  # every request is accounted for: none is left unasked
        permission = next(c.permission for _, d in decided for c in d.checks if c.action == "deny")
        exc = RuleDenied(permission, denied)
        self.refusals.append(exc)
        raise exc

    def __call__(
        self,
        permission: str,
        patterns: list[str],
        always: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> None:
        """One permission request of a call. The patterns a non-interactive policy covers are asked
        apart from the rest (`--approve 'bash=git *'` approves `git log` of `git log && echo x`, and a
        refusal names only `echo x`); a deny anywhere keeps one group, so every denied pattern is named."""
        self.requests_asked += 1
        meta = {"tool": self.tool, **(metadata or {})} if self.tool is not None else dict(metadata or {})
        request = PermissionRequest(permission, tuple(patterns), tuple(always or ()), meta)
        decision = self.decide(request)
        groups = self._groups(decision)
        for index, group in enumerate(groups):
            try:
                self._settle(request, [decision.checks[i] for i in group])
            except (PermissionDenied, PermissionRejected) as exc:
                self.refusals.append(exc)
                later = [decision.checks[i].pattern for rest in groups[index + 1:] for i in rest]
                if later:  # never put to anyone: still one line each, saying why
                    self.record_cancelled(permission, later, f"not asked: {refusal_reason(exc)}", meta)
                raise

    def _groups(self, decision: CallDecision) -> list[list[int]]:
        positions = list(range(len(decision.checks)))
        covered = self.pre_approved
        if covered is None or len(positions) < 2 or decision.action == "deny":
            return [positions]
        yes = [i for i in positions if covered(decision.checks[i].permission, decision.checks[i].pattern)]
        no = [i for i in positions if i not in yes]
        return [group for group in (yes, no) if group]

    def _settle(self, request: PermissionRequest, checked: list[PatternDecision]) -> None:
        now = time.time()
        permission = request.permission
        denied = [c for c in checked if c.action == "deny" and c.deciding_rule is not None]
        asked = [c for c in checked if c.action == "ask"]
        for c in checked:
            if c.action != "ask":
                self._record(GateDecision.of(now, c))
            elif denied:  # never put to anyone: say so, not a blank answer
                first = denied[0].pattern
                self._record(GateDecision.of(now, c, "not-asked",
                                             f"not asked: the deny on {first!r} decided the call first"))
        if denied:
            raise RuleDenied(permission, denied)
        if not asked:
            return
        asked_patterns = [c.pattern for c in asked]
        question = self.session.open(
            permission, asked_patterns, offered_always(request.always, asked_patterns), request.metadata,
            [c.asking_rule for c in asked],
        )
        with self._prompt_lock:
            if question.status == "pending":  # an earlier answer may have settled it meanwhile
                try:
                    answer = _as_answer(self.approve(question))
                except BaseException as exc:  # interrupted or refused before an answer: still logged
                    self.session.withdraw(question.id)
                    why = getattr(exc, "message", None) or str(exc) or type(exc).__name__
                    for c in asked:
                        self._record(GateDecision.of(now, c, "cancelled", f"no answer: {why}"))
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
        for c in asked:
            self._record(GateDecision.of(now, c, how, reason, feedback))
        if question.status == "rejected":
            raise QuestionRejected(question)

    def record_cancelled(self, permission: str, patterns: Sequence[str], reason: str,
                         metadata: dict[str, Any] | None = None) -> None:
        """Log patterns of a call that were never put to anyone because an earlier question of the same
        call was rejected (or refused): one audit line per permission decision, even the cancelled."""
        now = time.time()
        for c in self.session.decide(permission, patterns, metadata):
            if c.action == "ask":
                self._record(GateDecision.of(now, c, "cancelled", reason))

    def record_unasked(self, requests: Sequence[PermissionRequest]) -> None:
        """After a refusal, the requests of the call the wrapper never put to the gate (it stops at the
        first refusal) are logged as cancelled, so the audit has one line per permission the call needed."""
        if not self.refusals:
            return
        reason = f"not asked: {refusal_reason(self.refusals[-1])}"
        for req in list(requests)[self.requests_asked:]:
            self.record_cancelled(req.permission, list(req.patterns), reason, req.metadata)


class DryApprover:
    """The approver of a dry run (`explain --call`, `check --expect`): keeps each question and answers
    `once`, so every request of the call is decided, and nothing is ever executed or remembered."""

    def __init__(self) -> None:
        self.questions: list[Question] = []

    def __call__(self, question: Question) -> Answer:
        self.questions.append(question)
        return Answer("once")


def dry_gate(ruleset: RulesetLike, session: PermissionSession | None = None) -> PermissionGate:
    """A gate over `ruleset` whose questions nobody is asked (see `dry_decide`)."""
    return PermissionGate(ruleset, DryApprover(), session=session)


def dry_decide(gate: PermissionGate, requests: Sequence[PermissionRequest],
               args: dict[str, Any] | None = None) -> CallDecision:
    """Put one call's requests to `gate` as the wrapper does (`begin_call`, then each request), without
    running anything. The checks are `gate.decide`'s, every pattern of every request in order: a dry
    run reports the whole call even where `run` stops at the first refusal."""
    checks = tuple(c for req in requests for c in gate.decide(req).checks)
    try:
        gate.begin_call(requests)
        for req in requests:
            gate(req.permission, list(req.patterns), list(req.always), dict(req.metadata))
    except PermissionDenied:
        pass
    return CallDecision(checks, dict(args or {}))


def offered_always(always: Sequence[str], patterns: Sequence[str]) -> list[str]:
    """The `always` patterns that cover a pattern being asked: a call asked in parts (some patterns
    allowed by rules or a policy) must not offer `always` for commands the person is not asked about.
    When none covers one (a tool's own scheme), the tool's list is kept as given."""
    from forge_tools.permission.wildcard import wildcard_match

    kept = [a for a in always if any(wildcard_match(p, a) for p in patterns)]
    return kept or list(always)
