"""todowrite: validation, a per-session file under the data dir, the list returned."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from forge_tools.tools.builtins import todowrite
from forge_tools.tools.contract import ToolContext

from_list = todowrite.TodoWriteArgs.model_validate


def test_saves_per_session_and_returns_the_list(ctx: ToolContext, isolated_env: dict[str, Path]) -> None:
    todos = [{"content": "write tests", "status": "in_progress", "priority": "high"},
             {"content": "ship", "status": "pending", "priority": "medium"}]
    result = todowrite.execute(from_list({"todos": todos}), ctx)
    assert not result.is_error and result.title == "2 open todos"
    saved = isolated_env["data"] / "todo" / f"{ctx.session_id}.json"
    assert json.loads(saved.read_text()) == json.loads(result.output)
    assert json.loads(result.output)[1]["priority"] == "medium"
    assert saved.stat().st_mode & 0o777 == 0o600
    other = ToolContext(session_id="ses_other", project_root=ctx.project_root)
    todowrite.execute(from_list({"todos": []}), other)
    assert len(todowrite.load_todos(ctx.session_id)) == 2 and todowrite.load_todos("ses_other") == []


def test_session_id_cannot_escape(isolated_env: dict[str, Path]) -> None:
    path = todowrite.todo_file("../../etc/passwd")
    assert path.parent == isolated_env["data"] / "todo"


@pytest.mark.parametrize(
    "todos",
    [[{"content": "a", "status": "pending"}],  # opencode 1.18.33 requires all three
     [{"status": "pending", "priority": "low"}],
     [{"content": 1, "status": "pending", "priority": "low"}]],
)
def test_invalid_lists(todos: list[dict[str, Any]]) -> None:
    with pytest.raises(ValidationError):
        from_list({"todos": todos})
