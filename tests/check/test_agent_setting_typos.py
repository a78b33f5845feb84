"""FT115: a key under `agent.<name>` close to an agent setting but not one. opencode passes unknown
agent keys to the model as options, so `temprature` is valid config that silently does nothing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def ft115(cli: Any) -> list[tuple[str, int, str]]:
    code, out, err = cli("check", "--format", "json")
    assert code == 0, err  # a warning: the config is valid
    return [(Path(f["location"]["path"]).name, f["location"]["line"], f["message"])
            for f in json.loads(out)["findings"] if f["code"] == "FT115"]


def test_a_misspelt_agent_setting_is_named_at_its_key(cli: Any, project: Path) -> None:
    (project / "opencode.json").write_text(json.dumps({"agent": {
        "build": {"temprature": 0.2, "reasoningEffort": "high", "temperature": 0.1},
        "review": {"description": "reviews", "mode": "subagent", "desription": "typo"},
    }}, indent=2))
    found = ft115(cli)
    assert [(name, line) for name, line, _ in found] == [("opencode.json", 4), ("opencode.json", 11)]
    assert "'temprature'" in found[0][2] and "did you mean 'temperature'?" in found[0][2]
    assert "did you mean 'description'?" in found[1][2]


def test_model_options_and_markdown_agents(cli: Any, project: Path) -> None:
    (project / "forge.yaml").write_text("agent:\n  build:\n    reasoningEffort: high\n    top_p: 0.9\n")
    assert ft115(cli) == []  # model options close to no setting are what the keys are for
    agents = project / ".opencode" / "agent"
    agents.mkdir(parents=True)
    (agents / "docs.md").write_text("---\ndescription: writes docs\nhiden: true\n---\nWrite.\n")
    found = ft115(cli)
    assert [(name, line) for name, line, _ in found] == [("docs.md", 3)]
    assert "did you mean 'hidden'?" in found[0][2]


def test_it_can_be_suppressed_inline(cli: Any, project: Path) -> None:
    (project / "forge.yaml").write_text(
        "agent:\n  build:\n    temprature: 0.2  # forge-tools: ignore FT115 -- a model option of ours\n")
    assert ft115(cli) == []
