"""question: answers read from a TTY; a clear error without one."""

from __future__ import annotations

import io
import sys
from typing import Any

import pytest

from forge_tools.tools.builtins import question


class FakeTTY(io.StringIO):
    def isatty(self) -> bool:
        return True


ARGS = {"questions": [
    {"question": "Which database?", "header": "DB",
     "options": [{"label": "sqlite"}, {"label": "postgres", "description": "server"}]},
    {"question": "Which features?", "options": [{"label": "a"}, {"label": "b"}, {"label": "c"}],
     "multiple": True},
    {"question": "Anything else?"},
]}


def test_answers_from_a_terminal(call: Any, monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    monkeypatch.setattr(sys, "stdin", FakeTTY("2\n1, 3\nkeep it small\n"))
    result = call(question.TOOL, **ARGS)
    assert not result.is_error
    assert result.metadata["answers"] == ["postgres", "a, c", "keep it small"]
    assert "2. postgres - server" in capsys.readouterr().err


def test_free_text_when_not_an_option_number(call: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", FakeTTY("9\n\n"))
    result = call(question.TOOL, questions=ARGS["questions"][:2])
    assert result.metadata["answers"] == ["9", ""] and "(no answer)" in result.output


def test_no_terminal(call: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("1\n"))
    result = call(question.TOOL, **ARGS)
    assert result.is_error and "interactive terminal" in result.output
