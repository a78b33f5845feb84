"""README, "Which commands run project code": only layers, explain and run (and bare forge-tools) import
tool scripts and plugins; config, agents, rules, check, diff, outputs and completions never do."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

SCRIPT = """import pathlib
pathlib.Path(__file__).resolve().parents[2].joinpath("SCRIPT_RAN").write_text("x")
from forge_tools import tool

@tool(description="x")
def marker() -> str:
    return "x"
"""
PLUGIN = """import pathlib
pathlib.Path(__file__).resolve().parents[2].joinpath("PLUGIN_RAN").write_text("x")
"""


@pytest.fixture
def trap(project: Path) -> Path:
    (project / ".forge" / "tools").mkdir(parents=True)
    (project / ".forge" / "plugins").mkdir(parents=True)
    (project / ".forge" / "tools" / "marker.py").write_text(SCRIPT)
    (project / ".forge" / "plugins" / "marker_plugin.py").write_text(PLUGIN)
    (project / "forge.json").write_text('{"permission": {"bash": "ask"}}')
    return project


def ran(project: Path) -> tuple[bool, bool]:
    return (project / "SCRIPT_RAN").exists(), (project / "PLUGIN_RAN").exists()


@pytest.mark.parametrize("args", [
    ("config", "--show-origin"), ("agents",), ("rules",), ("check",), ("outputs", "list"),
    ("completions", "bash"), ("hook", "status"), ("hook", "install", "--runtime", "claude"),
])
def test_inspection_commands_never_import_project_code(trap: Path, cli, args: tuple[str, ...]) -> None:
    cli(*args)
    assert ran(trap) == (False, False)


def test_diff_never_imports_project_code(trap: Path, cli) -> None:
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(["git", "init", "-q"], cwd=trap, check=True)
    subprocess.run([*git, "add", "-A"], cwd=trap, check=True)
    subprocess.run([*git, "commit", "-qm", "x"], cwd=trap, check=True)
    code, _, err = cli("diff", "--base", "HEAD")
    assert code == 0, err
    assert ran(trap) == (False, False)


def test_layers_imports_scripts_and_plugins_and_pure_skips_plugins(trap: Path, cli) -> None:
    cli("layers", "--pure")
    assert ran(trap) == (True, False)
    cli("layers")
    assert ran(trap) == (True, True)
