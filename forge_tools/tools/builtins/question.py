"""`question`: ask the person at the keyboard and return the answers.

It reads from a terminal with `input()`; without one there is nobody to answer, so it fails at once
with a clear message rather than waiting forever (the same rule as the ask gate, SPEC 4.5).
"""

from __future__ import annotations

import sys
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from forge_tools.tools.contract import Tool, ToolContext, ToolResult

DESCRIPTION = """Ask the user one or more questions and wait for the answers.

Use it to settle something only the user can decide (a preference, a missing requirement, a choice
between approaches), not for things you can find out yourself.
- `questions`: each has the `question` text, an optional short `header`, optional `options` (each a
  `label` with an optional `description`), and `multiple` to allow several choices.
- The user may always answer in their own words instead of picking an option."""


class Option(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)

    label: Annotated[str, Field(min_length=1, description="The choice as shown (a few words).")]
    description: Annotated[str | None, Field(description="What choosing it means.")] = None


class Question(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)

    question: Annotated[str, Field(min_length=1, description="The full question.")]
    header: Annotated[str | None, Field(description="A very short label for the question.")] = None
    options: Annotated[list[Option], Field(description="Choices to offer (may be empty).")] = []
    multiple: Annotated[bool, Field(description="Allow choosing several options.")] = False


class QuestionArgs(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)

    questions: Annotated[list[Question], Field(min_length=1, description="The questions to ask, in order.")]


def _interpret(answer: str, question: Question) -> str:
    """Option numbers (comma-separated when `multiple`) become labels; anything else is kept as typed."""
    raw = answer.strip()
    if not question.options or not raw:
        return raw
    parts = [p.strip() for p in raw.split(",")] if question.multiple else [raw]
    if all(p.isdigit() and 1 <= int(p) <= len(question.options) for p in parts):
        return ", ".join(question.options[int(p) - 1].label for p in parts)
    return raw


def execute(args: QuestionArgs, ctx: ToolContext) -> ToolResult:
    if not (sys.stdin is not None and sys.stdin.isatty()):
        return ToolResult(
            "The question tool needs an interactive terminal to ask the user, and this run has none "
            "(stdin is not a TTY). Continue with your best judgement and state the assumption you made.",
            title="question: no terminal", metadata={"truncated": False}, is_error=True,
        )
    answers: list[tuple[str, str]] = []
    for q in args.questions:
        lines = [f"\n{q.header}: {q.question}" if q.header else f"\n{q.question}"]
        for i, opt in enumerate(q.options, start=1):
            lines.append(f"  {i}. {opt.label}" + (f" - {opt.description}" if opt.description else ""))
        if q.options:
            lines.append("Answer with a number" + (" or several, comma-separated" if q.multiple else "")
                         + ", or in your own words.")
        print("\n".join(lines), file=sys.stderr)
        try:
            reply = input("> ")
        except EOFError:
            reply = ""
        answers.append((q.question, _interpret(reply, q)))
    output = "The user answered:\n" + "\n".join(
        f"- {question}\n  {answer or '(no answer)'}" for question, answer in answers)
    return ToolResult(output, title=f"asked {len(answers)} question{'s' if len(answers) != 1 else ''}",
                      metadata={"answers": [a for _, a in answers]})


TOOL = Tool(id="question", description=DESCRIPTION, parameters=QuestionArgs, execute=execute)
