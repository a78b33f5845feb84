"""A `model` in config (top level or per agent) must be PROVIDER/MODEL, as `--model` must be."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from forge_tools.config.schema import model_id_problem


@pytest.mark.parametrize(
    ("name", "text", "line", "col", "keys"),
    [
        ("forge.json", '{\n  "model": "gpt-5"\n}\n', 2, 12, "model"),
        ("forge.yaml", "agent:\n  review:\n    model: gpt5\n", 3, 12, "agent.review.model"),
        ("forge.toml", 'model = "/gpt-5"\n', 1, 9, "model"),
        ("forge.yaml", "mode:\n  old:\n    model: openai/\n", 3, 12, "mode.old.model"),
    ],
)
def test_model_without_provider_is_a_located_config_error(cli, project: Path, name: str, text: str,  # type: ignore[no-untyped-def]
                                                          line: int, col: int, keys: str) -> None:
    (project / name).write_text(text)
    code, _, err = cli("config")
    assert code == 3
    assert f"{project / name}:{line}:{col}: {keys}: expected PROVIDER/MODEL" in err


def test_agent_file_model_is_checked_too(cli, project: Path) -> None:  # type: ignore[no-untyped-def]
    path = project / ".opencode" / "agent" / "review.md"
    path.parent.mkdir(parents=True)
    path.write_text("---\nmodel: gpt-5\n---\nReview.\n")
    code, _, err = cli("agents")
    assert code == 3 and f"{path}:2:8: agent.review.model: expected PROVIDER/MODEL" in err


def test_unset_env_provider_is_an_error_that_does_not_show_the_value(cli, project: Path) -> None:  # type: ignore[no-untyped-def]
    (project / "forge.json").write_text(json.dumps({"model": "{env:NO_SUCH_PROVIDER}/secret-model-name"}))
    code, _, err = cli("config")
    assert code == 3
    assert "expected PROVIDER/MODEL" in err and "{env:NO_SUCH_PROVIDER}/secret-model-name" in err
    assert "'/secret-model-name'" not in err


def test_valid_model_loads(cli, project: Path) -> None:  # type: ignore[no-untyped-def]
    (project / "forge.json").write_text(json.dumps({"model": "openai/gpt-5",
                                                    "agent": {"x": {"model": "openrouter/a/b"}}}))
    code, out, _ = cli("config")
    assert code == 0 and 'model = "openai/gpt-5"' in out


def test_config_and_option_say_the_same(cli, project: Path) -> None:  # type: ignore[no-untyped-def]
    problem = model_id_problem("gpt5")
    assert problem is not None
    code, _, err = cli("explain", "read", "--model", "gpt5")
    assert code == 2 and problem in err
    (project / "forge.json").write_text(json.dumps({"model": "gpt5"}))
    code, _, err = cli("config")
    assert code == 3 and problem in err
