"""The ask gate (SPEC 4.5): deny, ask with once/always/reject, session rules, pending questions."""

from __future__ import annotations

import threading

import pytest

from forge_tools.errors import ExitCode, PermissionDenied, PermissionRejected
from forge_tools.origin import Origin
from forge_tools.permission.calls import PermissionRequest
from forge_tools.permission.gate import (
    Answer,
    GateDecision,
    PermissionGate,
    PermissionSession,
    Question,
    policy_approver,
)
from forge_tools.rule import Action, Rule

FILE = Origin("file", path="forge.json", line=4, column=7)


def R(permission: str, pattern: str, action: Action) -> Rule:
    return Rule(permission, pattern, action, FILE)


RULES = (R("*", "*", "allow"), R("bash", "*", "ask"), R("bash", "git *", "allow"), R("bash", "rm *", "deny"))


class Scripted:
    """Answers questions from a list and remembers what it was asked."""

    def __init__(self, *answers: Answer | str) -> None:
        self.answers = list(answers)
        self.asked: list[Question] = []

    def __call__(self, question: Question) -> Answer | str:
        self.asked.append(question)
        return self.answers.pop(0)


def test_allow_needs_no_question() -> None:
    approve = Scripted()
    gate = PermissionGate(RULES, approve)
    gate("bash", ["git status", "git log"])
    gate("read", ["/x"])
    assert approve.asked == []
    assert [(d.pattern, d.action, d.answer) for d in gate.decisions] == [
        ("git status", "allow", None), ("git log", "allow", None), ("/x", "allow", None)
    ]


def test_deny_names_rule_and_origin_and_asks_nothing() -> None:
    approve = Scripted()
    gate = PermissionGate(RULES, approve)
    with pytest.raises(PermissionDenied) as info:
        gate("bash", ["ls", "rm -rf /"])  # the deny wins even though `ls` would be asked first
    message = info.value.one_line()
    assert "'rm -rf /'" in message and "rm *" in message and "forge.json:4:7" in message
    assert info.value.exit_code == ExitCode.PERMISSION
    assert approve.asked == []
    assert {d.action for d in gate.decisions} == {"ask", "deny"}


def test_once_asks_again_next_time() -> None:
    approve = Scripted("once", "once")
    gate = PermissionGate(RULES, approve)
    gate("bash", ["ls"])
    gate("bash", ["ls"])
    assert len(approve.asked) == 2
    assert approve.asked[0].patterns == ("ls",)
    assert approve.asked[0].rules == (RULES[1],)
    assert gate.decisions[-1].answer == "once"


def test_only_asked_patterns_are_in_the_question() -> None:
    approve = Scripted("once")
    PermissionGate(RULES, approve)("bash", ["git status", "make"])
    assert approve.asked[0].patterns == ("make",)


def test_always_adds_session_rules_for_always_patterns() -> None:
    approve = Scripted(Answer("always"))
    gate = PermissionGate(RULES, approve)
    gate("bash", ["make test"], always=["make *"])
    gate("bash", ["make"])  # allowed by the session rule `make *`
    gate("bash", ["make lint"])
    assert len(approve.asked) == 1
    added = gate.session.rules
    assert [(r.permission, r.pattern, r.action, r.origin.kind) for r in added] == [
        ("bash", "make *", "allow", "session")
    ]
    last = gate.decisions[-1]
    assert last.action == "allow" and last.rule is added[0]
    with pytest.raises(PermissionDenied):
        gate("bash", ["rm x"])  # not covered by `make *`: the config deny still decides


def test_always_without_always_patterns_allows_the_asked_ones() -> None:
    gate = PermissionGate(RULES, Scripted("always"))
    gate("bash", ["make"])
    assert [r.pattern for r in gate.session.rules] == ["make"]


def test_reject_raises_with_feedback() -> None:
    gate = PermissionGate(RULES, Scripted(Answer("reject", "use make instead")))
    with pytest.raises(PermissionRejected) as info:
        gate("bash", ["cmake ."])
    assert info.value.feedback == "use make instead"
    assert "use make instead" in info.value.one_line()
    assert gate.decisions[-1].answer == "reject"
    # work continues: the next question is asked normally
    gate.approve = Scripted("once")
    gate("bash", ["cmake ."])


def test_policy_approvers() -> None:
    PermissionGate(RULES, policy_approver("approve"))("bash", ["make"])
    with pytest.raises(PermissionRejected) as info:
        PermissionGate(RULES, policy_approver("reject"))("bash", ["make"])
    assert "non-interactive" in info.value.one_line()


def test_audit_callback_sees_every_decision() -> None:
    seen: list[GateDecision] = []
    gate = PermissionGate(RULES, Scripted("once"), audit=seen.append)
    gate("bash", ["git x", "make"])
    assert seen == gate.decisions and len(seen) == 2
    data = seen[1].to_json()
    assert data["answer"] == "once" and data["rule"]["origin"]["line"] == 4
    assert "bash 'make': ask by rule bash '*'" in str(seen[1])


# --- session semantics with several pending questions -------------------------------------------

def test_always_settles_pending_questions_it_now_allows() -> None:
    session = PermissionSession(RULES)
    q1 = session.open("bash", ["make a"], ["make *"])
    q2 = session.open("bash", ["make b"], [])
    q3 = session.open("bash", ["cmake"], [])
    settled = session.reply(q1.id, Answer("always"))
    assert [q.id for q in settled] == [q1.id, q2.id]
    assert (q1.status, q2.status, q3.status) == ("approved", "approved", "pending")
    assert q2.settled_by == q1.id
    assert list(session.pending) == [q3.id]


def test_reject_rejects_every_pending_question() -> None:
    session = PermissionSession(RULES)
    q1 = session.open("bash", ["a"], [])
    q2 = session.open("edit", ["b"], [])
    session.reply(q1.id, Answer("reject", "no"))
    assert (q1.status, q2.status) == ("rejected", "rejected")
    assert q2.settled_by == q1.id and session.pending == {}
    assert session.reply(q2.id, Answer("once")) == []  # already settled: the late answer is ignored
    q3 = session.open("bash", ["c"], [])  # later questions are asked again
    assert q3.status == "pending"


def test_concurrent_calls_are_settled_by_one_always() -> None:
    """Two calls ask at once; the first answer `always` covers the second, which is never prompted."""
    both_pending = threading.Barrier(2)
    prompts: list[Question] = []
    lock = threading.Lock()

    def approve(question: Question) -> Answer:
        with lock:
            prompts.append(question)
        return Answer("always")

    gate = PermissionGate(RULES, approve)
    original_open = gate.session.open

    def open_and_wait(*args, **kwargs):  # type: ignore[no-untyped-def]
        question = original_open(*args, **kwargs)
        both_pending.wait(timeout=5)
        return question

    gate.session.open = open_and_wait  # type: ignore[method-assign]
    errors: list[BaseException] = []

    def call(pattern: str) -> None:
        try:
            gate("bash", [pattern], always=["make *"])
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=call, args=(p,)) for p in ("make a", "make b")]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=10)
    assert errors == []
    assert len(prompts) == 1
    answers = sorted((d.answer or "", d.reason or "") for d in gate.decisions)
    assert answers[0][0] == "always"
    assert answers[1][0] == "settled" and "'always' answer to question q" in answers[1][1]


def test_bad_approve_answer_is_a_programming_error() -> None:
    with pytest.raises(ValueError):
        PermissionGate(RULES, Scripted("sure"))("bash", ["make"])


# --- every decision is one explicit record ----------------------------------------------------------

def test_an_ask_a_deny_pre_empts_is_recorded_as_not_asked() -> None:
    gate = PermissionGate(RULES, Scripted())
    with pytest.raises(PermissionDenied):
        gate("bash", ["ls", "rm -rf x"])
    ls = next(d for d in gate.decisions if d.pattern == "ls")
    assert ls.action == "ask" and ls.answer == "not-asked"
    assert "'rm -rf x'" in (ls.reason or "") and "deny" in (ls.reason or "")
    assert ls.to_json()["answer"] == "not-asked" and ls.to_json()["reason"] == ls.reason


def test_a_reject_records_its_feedback() -> None:
    gate = PermissionGate(RULES, Scripted(Answer("reject", "use make")))
    with pytest.raises(PermissionRejected):
        gate("bash", ["cmake ."])
    assert gate.decisions[-1].to_json()["feedback"] == "use make"
    assert gate.session.feedback_of("q1") == "use make"


def test_a_cancelled_question_in_flight_is_logged_with_the_reject_feedback() -> None:
    """Two calls ask at once; the first is rejected; the second (never prompted) is logged cancelled."""
    both_pending = threading.Barrier(2)
    gate = PermissionGate(RULES, lambda q: Answer("reject", "not now"))
    original_open = gate.session.open

    def open_and_wait(*args, **kwargs):  # type: ignore[no-untyped-def]
        question = original_open(*args, **kwargs)
        both_pending.wait(timeout=5)
        return question

    gate.session.open = open_and_wait  # type: ignore[method-assign]

    def call(pattern: str) -> None:
        with pytest.raises(PermissionRejected):
            gate("bash", [pattern])

    threads = [threading.Thread(target=call, args=(p,)) for p in ("make a", "make b")]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=10)
    records = sorted((d.answer, d.feedback, d.reason or "") for d in gate.decisions)
    assert [r[0] for r in records] == ["cancelled", "reject"]
    assert records[0][1] == "not now" and "was rejected" in records[0][2]
    assert records[1][1] == "not now"


def test_an_approve_that_raises_is_logged_as_cancelled() -> None:
    seen: list[GateDecision] = []

    def approve(question: Question) -> Answer:
        raise PermissionRejected("the permission question was interrupted")

    gate = PermissionGate(RULES, approve, audit=seen.append)
    with pytest.raises(PermissionRejected):
        gate("bash", ["make"])
    assert [(d.pattern, d.answer) for d in seen] == [("make", "cancelled")]
    assert "interrupted" in (seen[0].reason or "")
    assert gate.session.pending == {}


def test_record_cancelled_logs_only_what_would_have_been_asked() -> None:
    gate = PermissionGate(RULES, Scripted())
    gate.record_cancelled("bash", ["git log", "make"], "an earlier question was rejected")
    assert [(d.pattern, d.answer, d.reason) for d in gate.decisions] == [
        ("make", "cancelled", "an earlier question was rejected")
    ]


def test_always_offers_only_the_patterns_being_asked() -> None:
    approve = Scripted("once")
    gate = PermissionGate(RULES, approve)
    gate("bash", ["git log", "ls"], always=["git log *", "ls *"])
    assert approve.asked[0].patterns == ("ls",) and approve.asked[0].always == ("ls *",)
    approve = Scripted("once")
    PermissionGate(RULES, approve)("bash", ["make"], always=["other-scheme"])
    assert approve.asked[0].always == ("other-scheme",)  # a tool's own scheme is kept


# --- one decision: decide is pure, a deny anywhere decides the call, the dry run agrees -------------

def test_decide_changes_nothing_and_sees_session_answers() -> None:
    approve = Scripted("always")
    gate = PermissionGate(RULES, approve)
    request = PermissionRequest("bash", ("make x",), ("make *",))
    assert gate.decide(request).action == "ask" and gate.decisions == [] and approve.asked == []
    gate("bash", ["make x"], ["make *"])
    decided = gate.decide(PermissionRequest("bash", ("make y",)))
    assert decided.action == "allow" and decided.deciding_rule is not None
    assert decided.deciding_rule.origin.kind == "session"


def test_a_deny_in_a_later_request_denies_the_call_before_anything_is_asked() -> None:
    from forge_tools.permission.gate import dry_decide, dry_gate

    rules = (*RULES, R("external_directory", "*", "ask"))
    requests = [PermissionRequest("external_directory", ("/etc/*",)),
                PermissionRequest("bash", ("cat /etc/x", "rm y"))]
    approve = Scripted()
    gate = PermissionGate(rules, approve)
    with pytest.raises(PermissionDenied) as info:
        gate.begin_call(requests)
    assert approve.asked == [] and "rm y" in info.value.one_line()
    assert [(d.pattern, d.action, d.answer) for d in gate.decisions] == [
        ("/etc/*", "ask", "not-asked"), ("cat /etc/x", "ask", "not-asked"), ("rm y", "deny", None)]
    dry = dry_decide(dry_gate(rules), requests)
    assert dry.action == "deny" and dry.deciding_rule == rules[3]
    assert [c.pattern for c in dry.checks] == ["/etc/*", "cat /etc/x", "rm y"]
