"""Shared fixtures for the visibility tests: a project with a tool script and a plugin."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def _builtins_until_landed(monkeypatch: pytest.MonkeyPatch) -> None:
    """Temporary: stand-in builtins while `builtin_tools` is being written in parallel."""
    import importlib

    import forge_tools.tools.builtins as package

    if hasattr(package, "builtin_tools"):
        return
    from forge_tools.tools.contract import Tool

    def builtin_tools(flags: frozenset[str], client: str) -> list[Tool]:
        real = {"read", "bash", "glob", "grep", "list", "edit", "write", "apply_patch"}
        names = ["invalid", "question", "bash", "read", "glob", "grep", "list", "edit", "write", "apply_patch",
                 "task", "webfetch", "todowrite", "websearch", "skill"]
        if "lsp" in flags:
            names.append("lsp")
        if "plan" in flags and client == "cli":
            names.append("plan_exit")
        out = []
        for name in names:
            if name in real:
                out.append(importlib.import_module(f"forge_tools.tools.builtins.{name}").TOOL)
            else:
                out.append(Tool(name, f"The {name} tool.", {"type": "object", "properties": {}},
                                lambda a, c: ""))
        return out

    monkeypatch.setattr(package, "builtin_tools", builtin_tools, raising=False)


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip())
    return path


@pytest.fixture
def forge_project(project: Path) -> Path:
    """The issue's scenario: forge.toml, a tool script, and a plugin that rewrites one description."""
    write(project / "forge.toml", """
        model = "anthropic/claude-sonnet-4"

        [permission]
        bash = { "*" = "ask", "git *" = "allow", "rm *" = "deny" }

        [agent.plan.permission]
        webfetch = "deny"
    """)
    write(project / ".forge" / "tools" / "count_lines.py", """
        from forge_tools import tool

        @tool(description="Count the lines of a file")
        def count_lines(path: str) -> str:
            return str(len(open(path).read().splitlines()))
    """)
    write(project / ".forge" / "plugins" / "policy.py", """
        from forge_tools import hookimpl

        @hookimpl
        def tool_definition(tool_id, definition):
            if tool_id == "read":
                definition.description = "Read a file (house rule: never print secrets)."
    """)
    return project
