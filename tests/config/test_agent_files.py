"""opencode's Markdown agents (`agent/*.md`, `agents/*.md` in a config directory) load as `agent.<name>`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from forge_tools.config import LoadedConfig, LoadOptions, load_config
from forge_tools.errors import ConfigError
from forge_tools.permission.agents import load_agents

REVIEW = """---
description: Reviews code
mode: subagent
model: anthropic/claude-sonnet-4
tools:
  write: false
permission:
  bash:
    "*": ask
    "git diff*": allow
---

You review code.
"""


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def load(cwd: Path, overlays: tuple[Path, ...] = ()) -> LoadedConfig:
    return load_config(LoadOptions(cwd=cwd, overlays=overlays))


def agent(loaded: LoadedConfig, name: str) -> dict[str, object]:
    node = loaded.node_at("agent", name)
    assert node is not None, f"agent {name} not loaded"
    return dict(node.plain())


def test_frontmatter_and_body_become_the_agent_with_origins_in_the_file(project: Path) -> None:
    path = write(project / ".opencode" / "agent" / "review.md", REVIEW)
    loaded = load(project)
    assert agent(loaded, "review") == {
        "description": "Reviews code", "mode": "subagent", "model": "anthropic/claude-sonnet-4",
        # the legacy tools map became rules inside the file, before its own permission keys
        "permission": {"edit": "deny", "bash": {"*": "ask", "git diff*": "allow"}},
        "prompt": "You review code.",
    }
    mode = loaded.node_at("agent", "review", "mode")
    assert mode is not None and mode.origin.path == str(path)
    assert (mode.origin.line, mode.origin.column) == (3, 7)
    prompt = loaded.node_at("agent", "review", "prompt")
    assert prompt is not None and prompt.origin.line == 13
    review = load_agents(loaded)["review"]
    assert review.mode == "subagent" and review.origin.path == str(path)
    bash = [r for r in review.ruleset if r.permission == "bash"]
    got = [(r.pattern, r.action, r.origin.line) for r in bash]
    assert got == [("*", "ask", 9), ("git diff*", "allow", 10)]


@pytest.mark.parametrize("where", [".opencode/agent", ".opencode/agents", ".forge/agent", ".forge/agents"])
def test_every_project_config_dir_and_both_folder_names(project: Path, where: str) -> None:
    write(project / where / "review.md", REVIEW)
    assert agent(load(project), "review")["mode"] == "subagent"


def test_global_dir_and_forge_config_dir(project: Path, isolated_env: dict[str, Path],
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    write(isolated_env["home"] / ".config" / "forge" / "agent" / "globalone.md", "---\nmode: primary\n---\n")
    extra = project.parent / "extra"
    write(extra / "agents" / "extraone.md", "---\ndescription: from the extra dir\n---\n")
    monkeypatch.setenv("FORGE_CONFIG_DIR", str(extra))
    loaded = load(project)
    assert agent(loaded, "globalone") == {"mode": "primary"}
    assert agent(loaded, "extraone") == {"description": "from the extra dir"}


def test_no_frontmatter_is_a_prompt_only_agent_and_subfolders_name_it(project: Path) -> None:
    write(project / ".opencode" / "agent" / "team" / "helper.md", "Just a prompt.\n")
    assert agent(load(project), "team/helper") == {"prompt": "Just a prompt."}


def test_agent_file_overrides_the_project_json_and_config_overlays_override_it(project: Path) -> None:
    (project / "opencode.json").write_text(json.dumps(
        {"agent": {"review": {"mode": "primary", "description": "from json", "color": "#fff"}}}))
    write(project / ".opencode" / "agent" / "review.md", REVIEW)
    loaded = load(project)
    review = agent(loaded, "review")
    assert review["mode"] == "subagent" and review["description"] == "Reviews code"
    assert review["color"] == "#fff"  # objects deep-merge: keys the file does not set stay
    overlay = write(project / "over.json", json.dumps({"agent": {"review": {"mode": "all"}}}))
    assert agent(load(project, (overlay,)), "review")["mode"] == "all"


def test_project_agent_file_overrides_a_global_one(project: Path, isolated_env: dict[str, Path]) -> None:
    write(isolated_env["home"] / ".config" / "forge" / "agent" / "review.md", "---\nmode: primary\n---\n")
    write(project / ".forge" / "agent" / "review.md", "---\nmode: subagent\n---\n")
    assert agent(load(project), "review")["mode"] == "subagent"


@pytest.mark.parametrize(
    ("text", "line", "words"),
    [
        ("---\ndescription: x\nmode: sideways\n---\nhi\n", 3, "not one of"),
        ("---\ndescription: x\n", 1, "never closed"),
        ("---\n- a list\n---\n", 2, "mapping of agent settings"),
        ("---\ntemperature: hot\n---\n", 2, "expected a number"),
        ("---\n\tbad: [\n---\n", None, "invalid YAML"),
    ],
)
def test_frontmatter_errors_are_located_in_the_file(project: Path, cli, text: str, line: int | None,  # type: ignore[no-untyped-def]
                                                    words: str) -> None:
    path = write(project / ".opencode" / "agent" / "bad.md", text)
    with pytest.raises(ConfigError) as info:
        load(project)
    origin = info.value.origin
    assert origin is not None and origin.path == str(path)
    if line is not None:
        assert origin.line == line
    assert words in info.value.message
    code, _, err = cli("agents")
    assert code == 3 and f"{path}:" in err and "Traceback" not in err


def test_disabled_project_config_skips_project_agent_files(project: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    write(project / ".opencode" / "agent" / "review.md", REVIEW)
    monkeypatch.setenv("FORGE_DISABLE_PROJECT_CONFIG", "1")
    assert load(project).node_at("agent", "review") is None


def test_agents_command_lists_the_file_agent(project: Path, cli) -> None:  # type: ignore[no-untyped-def]
    path = write(project / ".opencode" / "agent" / "review.md", REVIEW)
    code, out, _ = cli("agents")
    assert code == 0
    line = next(row for row in out.splitlines() if row.startswith("review"))
    assert "subagent" in line and f"{path}:1:1" in line
