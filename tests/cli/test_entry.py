"""The real entry point in a new process: exit codes and one-line errors reach the shell."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def forge(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "forge_tools", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=60)


def test_bare_command_shows_the_default_agents_layers(project: Path) -> None:
    proc = forge(cwd=project)
    assert proc.returncode == 0, proc.stderr
    assert "agent build" in proc.stdout
    assert "bash" in proc.stdout


def test_unknown_agent_is_one_line_and_exit_1(project: Path) -> None:
    proc = forge("rules", "--agent", "buidl", cwd=project)
    assert proc.returncode == 1
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
    assert "build" in proc.stderr  # did-you-mean


def test_bad_config_is_exit_3_with_location(project: Path) -> None:
    (project / "forge.json").write_text('{"permission": {"bash": "allwo"}}')
    proc = forge("layers", cwd=project)
    assert proc.returncode == 3
    assert "forge.json:1:" in proc.stderr and "allow" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_usage_errors_are_one_line_with_did_you_mean(cli) -> None:
    code, out, err = cli("lyaers")
    assert code == 2 and out == ""
    assert err.count("\n") == 1
    assert err.startswith("forge-tools: error: No such command 'lyaers'.")
    assert err.count("Did you mean 'layers'?") == 1
    code, _, err = cli("layers", "--agnet", "plan")
    assert code == 2 and err.count("\n") == 1 and "--agent" in err and "layers --help" in err


GC_PLUGIN = """import gc
import pathlib

from forge_tools import hookimpl
from forge_tools.tools.contract import Tool

MARK = pathlib.Path(__file__).resolve().parents[2] / "GC_AT_LOAD"


@hookimpl
def register_tools(register):
    MARK.write_text(str(gc.isenabled()))
    register(Tool("gc_state", "d", {"type": "object"}, lambda a, c: f"collection on: {gc.isenabled()}"))
"""


def test_cycle_collection_is_paused_while_a_result_is_built_and_on_while_a_tool_runs(project: Path) -> None:
    """cli.entry: no cycle collection while `layers` (and the other inspection commands) build their
    result (on a large project it cost more than the work); `run` turns it on before the tool runs."""
    (project / ".forge" / "plugins").mkdir(parents=True)
    (project / ".forge" / "plugins" / "gc_state.py").write_text(GC_PLUGIN)
    (project / "forge.json").write_text('{"permission": {"gc_state": "allow"}}')
    proc = forge("layers", cwd=project)
    assert proc.returncode == 0, proc.stderr
    assert "gc_state" in proc.stdout
    assert (project / "GC_AT_LOAD").read_text() == "False"
    proc = forge("run", "gc_state", "--yes", cwd=project)
    assert proc.returncode == 0, proc.stderr
    assert (project / "GC_AT_LOAD").read_text() == "False"
    assert "collection on: True" in proc.stdout


def test_version_is_the_installed_distributions(cli) -> None:  # type: ignore[no-untyped-def]
    """One version (forge_tools.__version__, which pyproject reads through hatch): --version prints it
    without reading package metadata, and it is what the installed distribution says."""
    from importlib.metadata import version

    import forge_tools

    code, out, _ = cli("--version")
    assert code == 0
    assert out == f"forge-tools {forge_tools.__version__}\n"
    assert version("forge-tools") == forge_tools.__version__
