"""Agents in an opencode project (issue 10): plan's plan dirs, the task tool's subagent order."""

from __future__ import annotations

import json
from pathlib import Path


def write(path: Path, data: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


def edit_action(cli, path: str) -> str:
    code, out, err = cli("explain", "write", "--agent", "plan", "--format", "json",
                         "--call", json.dumps({"filePath": path, "content": "x"}))
    assert code == 0, err
    return str(json.loads(out)["call"]["action"])


def test_plan_writes_opencode_plan_files_only_in_an_opencode_project(cli, project: Path,
                                                                     isolated_env) -> None:
    write(project / "forge.json", {"model": "anthropic/claude-sonnet-4"})
    assert edit_action(cli, ".forge/plans/a.md") == "allow"
    assert edit_action(cli, ".opencode/plans/a.md") == "deny"
    write(project / "opencode.json", {"model": "anthropic/claude-sonnet-4"})
    assert edit_action(cli, ".opencode/plans/a.md") == "allow"
    assert edit_action(cli, ".forge/plans/a.md") == "allow"
    assert edit_action(cli, ".opencode/plans/a.txt") == "deny"
    # opencode's global plans dir (in its data dir) is writable too, and outside the project allowed
    plans = isolated_env["home"] / ".local" / "share" / "opencode" / "plans"
    assert edit_action(cli, str(plans / "p.md")) == "allow"


def test_task_lists_subagents_case_insensitively(cli, project: Path) -> None:
    write(project / "opencode.json", {"model": "anthropic/claude-sonnet-4", "agent": {
        "Zeta": {"mode": "subagent", "description": "z"},
        "alpha": {"mode": "subagent", "description": "a"},
        "Beta": {"mode": "subagent", "description": "b"}}})
    code, out, err = cli("explain", "task", "--format", "json")
    assert code == 0, err
    listing = json.loads(out)["definition"]["description"].split("Subagents this agent may dispatch:")[1]
    names = [line[2:].split(":")[0] for line in listing.strip().splitlines() if line.startswith("- ")]
    assert names == ["alpha", "Beta", "explore", "general", "Zeta"]
