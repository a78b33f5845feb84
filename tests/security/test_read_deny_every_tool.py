"""One secret, every tool (issue 9): a `read` deny also covers what grep, glob, list and a directory read
return. Denied files are left out and a note says how many; the effect is observed through the real
`run` (the secret's name and text never reach the output), with ripgrep and with the Python fallback.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

SECRET = "TOKEN=hunter2-secret"
PUBLIC = "TOKEN=public-value"

ENGINES = ["python", pytest.param("ripgrep", marks=pytest.mark.skipif(shutil.which("rg") is None,
                                                                      reason="needs ripgrep"))]


@pytest.fixture(params=ENGINES)
def engine(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    if request.param == "python":
        monkeypatch.setenv("FORGE_NO_RIPGREP", "1")
    else:
        monkeypatch.delenv("FORGE_NO_RIPGREP", raising=False)
    return str(request.param)


def setup(project: Path, permission: dict[str, Any]) -> None:
    (project / "forge.json").write_text(json.dumps({"permission": permission}))
    (project / "src").mkdir()
    (project / "src" / "app.py").write_text(PUBLIC + "\n")
    (project / "src" / "deploy.key").write_text(SECRET + "\n")
    (project / "conf").mkdir()
    (project / "conf" / "prod.key").write_text(SECRET + "\n")


def run(cli: Any, tool: str, args: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    code, out, err = cli("run", tool, "--args", json.dumps(args), "--format", "json")
    assert code == 0, err
    data = json.loads(out)
    return str(data["result"]["output"]), dict(data["result"]["metadata"])


DENIES = [
    {"read": {"*.key": "deny"}},
    {"read": {"*": "allow", "*.key": "deny"}},
    {"*": "allow", "read": {"*deploy.key": "deny", "*conf/*": "deny"}},
]


@pytest.mark.parametrize("permission", DENIES)
@pytest.mark.parametrize("args", [{"pattern": "TOKEN"}, {"pattern": "TOKEN", "path": "src"},
                                  {"pattern": "hunter2", "include": "*.key"}])
def test_grep_leaves_out_denied_files(cli: Any, project: Path, engine: str,
                                      permission: dict[str, Any], args: dict[str, Any]) -> None:
    setup(project, permission)
    output, meta = run(cli, "grep", args)
    assert "hunter2" not in output and "deploy.key" not in output and "prod.key" not in output
    expected = 1 if args.get("path") == "src" else 2
    assert meta["leftOut"] == expected
    assert f"{expected} file{'s' if expected > 1 else ''} left out because the read rules deny" in output
    if args["pattern"] == "TOKEN":
        assert PUBLIC in output


@pytest.mark.parametrize("permission", DENIES)
@pytest.mark.parametrize("pattern", ["*", "*.key", "**/*.key", "src/*"])
def test_glob_leaves_out_denied_files(cli: Any, project: Path, engine: str, permission: dict[str, Any],
                                      pattern: str) -> None:
    setup(project, permission)
    output, meta = run(cli, "glob", {"pattern": pattern})
    assert "deploy.key" not in output and "prod.key" not in output
    assert meta["leftOut"] >= 1 and "left out because the read rules deny" in output


@pytest.mark.parametrize("permission", DENIES)
@pytest.mark.parametrize("tool,args", [("list", {}), ("list", {"path": "src"}),
                                       ("read", {"filePath": "src"}), ("read", {"filePath": "conf"})])
def test_listings_leave_out_denied_names(cli: Any, project: Path, permission: dict[str, Any], tool: str,
                                         args: dict[str, Any]) -> None:
    setup(project, permission)
    output, meta = run(cli, tool, args)
    assert "deploy.key" not in output and "prod.key" not in output
    assert meta["leftOut"] >= 1 and "left out because the read rules deny" in output


def test_a_symlink_to_a_denied_file_is_left_out_of_listings(cli: Any, project: Path) -> None:
    setup(project, {"read": {"*.key": "deny"}})
    (project / "src" / "innocent.txt").symlink_to(project / "src" / "deploy.key")
    output, _ = run(cli, "list", {"path": "src"})
    assert "innocent.txt" not in output and "app.py" in output


@pytest.mark.skipif(not hasattr(os, "link"), reason="hard links")
def test_a_hard_link_to_a_denied_file_is_left_out_of_grep(cli: Any, project: Path, engine: str) -> None:
    setup(project, {"read": {"*.key": "deny"}})
    os.link(project / "src" / "deploy.key", project / "src" / "notes.txt")
    output, meta = run(cli, "grep", {"pattern": "hunter2"})
    assert "hunter2" not in output and meta["leftOut"] == 3


@pytest.mark.parametrize("permission", [{}, {"read": {"*.env": "ask"}}, {"edit": {"*.key": "deny"}}])
def test_without_a_read_deny_nothing_is_left_out(cli: Any, project: Path, engine: str,
                                                permission: dict[str, Any]) -> None:
    setup(project, permission)
    output, meta = run(cli, "grep", {"pattern": "hunter2"})
    assert "hunter2" in output and meta["leftOut"] == 0
    output, meta = run(cli, "glob", {"pattern": "*.key"})
    assert "deploy.key" in output and "prod.key" in output and meta["leftOut"] == 0
    output, meta = run(cli, "list", {})
    assert "deploy.key" in output and meta["leftOut"] == 0


def test_the_library_without_a_gate_filters_nothing(project: Path) -> None:
    """A tool called directly (no gate, so no rules) returns everything, as before."""
    from forge_tools.tools.builtins.glob import GlobArgs, execute
    from forge_tools.tools.contract import ToolContext

    setup(project, {"read": {"*.key": "deny"}})
    result = execute(GlobArgs(pattern="*.key"), ToolContext(project_root=project))
    assert "deploy.key" in result.output and "prod.key" in result.output
