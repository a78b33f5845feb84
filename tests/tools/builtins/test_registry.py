"""The builtin list: SPEC 2 order, flag gates, lazy imports, one module per tool."""

from __future__ import annotations

import subprocess
import sys

import pytest

from forge_tools.tools.builtins import BUILTIN_ORDER, builtin_ids, builtin_tools, load_builtin

SPEC_ORDER = ["invalid", "question", "bash", "read", "glob", "grep", "list", "edit", "write", "apply_patch",
              "task", "webfetch", "todowrite", "websearch", "skill"]


@pytest.mark.parametrize(
    ("flags", "client", "tail"),
    [((), "cli", []), (("lsp",), "cli", ["lsp"]), (("plan",), "cli", ["plan_exit"]),
     (("plan",), "app", []), (("plan", "lsp"), "cli", ["lsp", "plan_exit"])],
)
def test_order_and_gates(flags: tuple[str, ...], client: str, tail: list[str]) -> None:
    assert list(BUILTIN_ORDER) == SPEC_ORDER
    tools = builtin_tools(flags, client)
    assert [t.id for t in tools] == SPEC_ORDER + tail == builtin_ids(flags, client)


def test_every_tool_is_complete() -> None:
    for tool in builtin_tools(("lsp", "plan"), "cli"):
        assert tool.description.strip() and tool.source.kind == "builtin"
        schema = tool.json_schema()
        assert schema["type"] == "object", tool.id
        assert load_builtin(tool.id) is tool


def test_the_skill_definition_names_no_skill() -> None:
    """opencode 1.18.33 lists skills in its system prompt, not in the tool's description."""
    (skill,) = [t for t in builtin_tools() if t.id == "skill"]
    assert "listed in the system prompt" in skill.description and "Available" not in skill.description


def test_unknown_builtin() -> None:
    with pytest.raises(KeyError):
        load_builtin("nope")


def test_import_is_lazy() -> None:
    code = ("import sys, forge_tools.tools.builtins as b; "
            "heavy = [m for m in ('httpx', 'tree_sitter', 'markdownify', 'forge_tools.tools.builtins.bash') "
            "if m in sys.modules]; print(heavy)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
