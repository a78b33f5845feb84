"""Shared fixtures: every test runs with isolated config and data dirs, no colour, and its own project."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

_FORGE_ENV = (
    "FORGE_CONFIG",
    "FORGE_CONFIG_DIR",
    "FORGE_CONFIG_CONTENT",
    "FORGE_PERMISSION",
    "FORGE_DISABLE_PROJECT_CONFIG",
    "FORGE_DATA_DIR",
    "XDG_CONFIG_HOME",
    "XDG_DATA_HOME",
    "FORCE_COLOR",
    "GITHUB_ACTIONS",
)


@pytest.fixture(autouse=True)
def isolated_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    """HOME, XDG dirs and the data dir point into tmp; the cwd is an empty project directory."""
    for name in _FORGE_ENV:
        monkeypatch.delenv(name, raising=False)
    for name in [n for n in os.environ if n.startswith("OPENCODE_")]:  # opencode's own (issue 10)
        monkeypatch.delenv(name, raising=False)
    home = tmp_path / "home"
    project = tmp_path / "project"
    data = tmp_path / "data"
    for d in (home, project, data):
        d.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / ".local" / "share"))
    monkeypatch.setenv("FORGE_DATA_DIR", str(data))
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("COLUMNS", "200")
    # The output store's fallback (and any other temp file) stays inside the test's own tmp.
    temp = tmp_path / "systmp"
    temp.mkdir()
    monkeypatch.setenv("TMPDIR", str(temp))
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    # A git root stops the upward project search inside tmp.
    (project / ".git").mkdir()
    monkeypatch.chdir(project)
    return {"home": home, "project": project, "data": data}


@pytest.fixture
def project(isolated_env: dict[str, Path]) -> Path:
    return isolated_env["project"]


@pytest.fixture
def cli():
    """Run the CLI in-process: returns (exit_code, stdout, stderr)."""
    import contextlib
    import io

    from forge_tools.cli.app import run

    def invoke(*args: str, input: str | None = None) -> tuple[int, str, str]:
        import sys

        out, err = io.StringIO(), io.StringIO()
        old_stdin = sys.stdin
        sys.stdin = io.StringIO(input or "")
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                code = run(list(args))
        finally:
            sys.stdin = old_stdin
        return code, out.getvalue(), err.getvalue()

    return invoke


@pytest.fixture
def write_file():
    """`write_file(path, text)`: create parents, dedent, write; returns the path."""
    import textwrap

    def write(path: Path, text: str) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip())
        return path

    return write


@pytest.fixture
def forge_project(project: Path, write_file) -> Path:  # type: ignore[no-untyped-def]
    """Issue 4's scenario: forge.toml, a tool script, and a plugin that rewrites one description."""
    write_file(project / "forge.toml", """
        model = "anthropic/claude-sonnet-4"

        [permission]
        bash = { "*" = "ask", "git *" = "allow", "rm *" = "deny" }

        [agent.plan.permission]
        webfetch = "deny"
    """)
    write_file(project / ".forge" / "tools" / "count_lines.py", """
        from forge_tools import tool

        @tool(description="Count the lines of a file")
        def count_lines(path: str) -> str:
            return str(len(open(path).read().splitlines()))
    """)
    write_file(project / ".forge" / "plugins" / "policy.py", """
        from forge_tools import hookimpl

        @hookimpl
        def tool_definition(tool_id, definition):
            if tool_id == "read":
                definition.description = "Read a file (house rule: never print secrets)."
    """)
    return project


def pytest_configure(config: pytest.Config) -> None:
    os.environ.setdefault("NO_COLOR", "1")
    # CI runs the property tests with a fixed seed so a run is reproducible; locally they stay random
    # and keep finding new cases (a failure prints the example to pin with @example).
    from hypothesis import settings

    settings.register_profile("ci", derandomize=True, database=None, print_blob=True)
    if os.environ.get("CI"):
        settings.load_profile("ci")
