"""`run`'s worker thread: the call runs there, its permission questions come back to the main thread.

The CLI keeps its live status, its prompt and Ctrl-C in the main thread; `BackgroundRun.poll` answers
relayed questions there and says when the call is done.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from forge_tools.permission.gate import QuestionInterrupted

if TYPE_CHECKING:
    from forge_tools.call import RunOutcome

ApproveFn = Callable[[Any], Any]
"""The gate's approve callback: given a question, returns the answer (see permission/gate.py)."""


@dataclass
class _Question:
    question: Any
    answered: threading.Event = field(default_factory=threading.Event)
    answer: Any = None
    error: BaseException | None = None


class BackgroundRun:
    """Runs a call in a worker thread; approval questions come back to the owner's thread.

    The owner calls `poll(timeout)` in a loop: it answers pending questions with `approve` (in the
    owner's thread, so a prompt and Ctrl-C live there), and returns True once the call is done.
    """

    def __init__(self, work: Callable[[ApproveFn], RunOutcome], approve: ApproveFn) -> None:
        self._approve = approve
        self._questions: queue.Queue[_Question | None] = queue.Queue()  # None: the call finished
        self._outcome: RunOutcome | None = None
        self._error: BaseException | None = None
        self._done = threading.Event()
        self._work = work
        self._thread = threading.Thread(target=self._main, name="forge-tools-run", daemon=True)
        self.waiting_for_answer = False
        self.question_interrupted = False  # Ctrl-C came while a person was being asked

    def start(self) -> BackgroundRun:
        self._thread.start()
        return self

    def _relay(self, question: Any) -> Any:
        pending = _Question(question)
        self._questions.put(pending)
        while not pending.answered.wait(0.1):
            if self._done.is_set():  # pragma: no cover - the owner went away
                break
        if pending.error is not None:
            raise pending.error
        return pending.answer

    def _main(self) -> None:
        try:
            self._outcome = self._work(self._relay)
        except BaseException as exc:
            self._error = exc
        finally:
            self._done.set()
            self._questions.put(None)  # wakes a `poll` that is waiting, so the owner sees the end at once

    def poll(self, timeout: float = 0.1) -> bool:
        """Answer one pending question if there is one; True when the call has finished."""
        try:
            pending = self._questions.get(timeout=timeout)
        except queue.Empty:
            return self._done.is_set()
        if pending is None:
            return True
        self.waiting_for_answer = True
        try:
            pending.answer = self._approve(pending.question)
        except BaseException as exc:
            if isinstance(exc, Exception):
                pending.error = exc
            else:  # Ctrl-C at the prompt: the worker stops the call without running it
                self.question_interrupted = True
                pending.error = QuestionInterrupted()
            pending.answered.set()
            raise
        finally:
            self.waiting_for_answer = False
        pending.answered.set()
        return self._done.is_set()

    @property
    def done(self) -> bool:
        return self._done.is_set()

    def result(self) -> RunOutcome:
        """The outcome (re-raising what the worker raised); call after `poll` returned True."""
        self._done.wait()
        if self._error is not None:
            raise self._error
        assert self._outcome is not None
        return self._outcome
