"""A reader that stops reading (`forge-tools layers | head -1`) is not an error: exit 0, nothing on stderr.

The pipe's read end is closed before the command starts, so every write meets EPIPE (the worst case of
`| head -1`, without depending on when `head` exits).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

COMMANDS: list[list[str]] = [
    [],
    ["layers"],
    ["layers", "--format", "json"],
    ["layers", "--matrix"],
    ["agents"],
    ["rules"],
    ["config"],
    ["config", "--show-origin"],
    ["explain", "bash"],
    ["explain", "bash", "--call", '{"command": "ls"}'],
    ["check"],
    ["check", "--format", "json"],
    ["check", "--format", "sarif"],
    ["outputs", "list"],
    ["completions", "bash"],
    ["run", "read", "--args", '{"filePath": "forge.json"}'],
    ["run", "bash", "--yes", "--args", '{"command": "seq 1 20000"}'],
    ["diff", "old", "new"],
    ["--help"],
    ["--version"],
]


def closed_pipe_run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        return subprocess.run([sys.executable, "-m", "forge_tools", *args], cwd=cwd, stdout=write_end,
                              stderr=subprocess.PIPE, text=True, timeout=120)
    finally:
        os.close(write_end)


@pytest.fixture
def printing_project(project: Path) -> Path:
    config = {"permission": {"bash": {"*": "allow", "rm *": "deny"}, "read": {"*.key": "deny"}}}
    (project / "forge.json").write_text(json.dumps(config))
    for name in ("old", "new"):
        (project / name).mkdir()
        (project / name / "forge.json").write_text(json.dumps(config))
    (project / "new" / "forge.json").write_text('{"permission": {"bash": "ask"}}')
    return project


@pytest.mark.parametrize("args", COMMANDS, ids=lambda a: " ".join(a) or "(bare)")
def test_closed_stdout_exits_0_quietly(printing_project: Path, args: list[str]) -> None:
    proc = closed_pipe_run(args, printing_project)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr and "Broken pipe" not in proc.stderr
    assert "internal error" not in proc.stderr


def test_every_command_help_exits_0_on_a_closed_pipe(printing_project: Path) -> None:
    """Each registered command (new ones included) prints its help into a closed pipe without failing."""
    from forge_tools.cli.app import app

    names = [info.name or (info.callback.__name__ if info.callback else "")
             for info in app.registered_commands]
    names += [group.name for group in app.registered_groups if group.name]
    assert "layers" in names and "outputs" in names
    for name in names:
        proc = closed_pipe_run([name, "--help"], printing_project)
        assert proc.returncode == 0, (name, proc.stderr)


def test_a_real_head_sees_the_first_line_and_exit_0(printing_project: Path) -> None:
    shell = (f"{sys.executable} -m forge_tools layers | head -1; "
             "echo \"status=${PIPESTATUS[0]}\"")
    proc = subprocess.run(["bash", "-c", shell], cwd=printing_project, capture_output=True, text=True,
                          timeout=120)
    assert proc.stdout.splitlines()[-1] == "status=0", proc.stderr
    assert len(proc.stdout.splitlines()) == 2
    assert proc.stderr == ""


def test_closed_pipe_still_reports_a_bad_config_with_exit_3(printing_project: Path) -> None:
    """Only the closed pipe is forgiven: a real error still has its code and its line on stderr."""
    (printing_project / "forge.json").write_text('{"permission": {"bash": "allwo"}}')
    proc = closed_pipe_run(["layers"], printing_project)
    assert proc.returncode == 3
    assert "forge.json:1:" in proc.stderr
