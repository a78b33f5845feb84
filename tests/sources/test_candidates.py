"""Candidates in source order; a later id replaces an earlier one and the shadowing is recorded."""

from __future__ import annotations

from forge_tools.sources.candidates import build_candidates, collect_candidates
from forge_tools.tools.contract import Tool, ToolSource


def make(tool_id: str, source: ToolSource) -> Tool:
    return Tool(tool_id, f"{tool_id} from {source}", {"type": "object"}, lambda a, c: "", source=source)


BUILTIN = ToolSource("builtin")
SCRIPT = ToolSource("script", path="/p/.forge/tools/bash.py")
PLUGIN = ToolSource("plugin", plugin="extras", path="/p/.forge/plugins/extras.py")


def test_sources_come_in_order() -> None:
    result = collect_candidates([make("read", BUILTIN), make("bash", BUILTIN)], [make("mine", SCRIPT)],
                                [make("theirs", PLUGIN)])
    assert [c.id for c in result.candidates] == ["read", "bash", "mine", "theirs"]
    assert result.shadowings == []


def test_a_script_shadows_a_builtin_and_a_plugin_shadows_both() -> None:
    result = collect_candidates([make("read", BUILTIN), make("bash", BUILTIN)], [make("bash", SCRIPT)],
                                [make("bash", PLUGIN)])
    bash = result.get("bash")
    assert bash is not None
    assert bash.source == PLUGIN and bash.tool is not None and bash.tool.source == PLUGIN
    assert bash.shadowed == [BUILTIN, SCRIPT]
    assert [(s.shadowed, s.by) for s in result.shadowings] == [(BUILTIN, SCRIPT), (SCRIPT, PLUGIN)]
    assert "shadows builtin" in result.shadowings[0].describe()
    # the winner keeps the place of the first candidate with that id
    assert [c.id for c in result.candidates] == ["read", "bash"]


def test_static_entries_without_code_take_part_too() -> None:
    result = build_candidates([("read", None, BUILTIN)], [("read", None, SCRIPT)])
    [read] = result.candidates
    assert read.tool is None and read.source == SCRIPT and read.shadowed == [BUILTIN]


def test_malformed_tools_are_left_out_and_reported_against_their_own_source() -> None:
    bad_description = Tool("odd", 5, {"type": "object"}, lambda a, c: "", source=SCRIPT)  # type: ignore[arg-type]
    bad_params = Tool("weird", "ok", [1], lambda a, c: "", source=PLUGIN)  # type: ignore[arg-type]
    result = collect_candidates([make("bash", BUILTIN)], [bad_description], [bad_params])
    assert [c.id for c in result.candidates] == ["bash"]  # and bash is not shadowed by a broken tool
    assert result.shadowings == []
    first, second = (p.one_line() for p in result.problems)
    assert SCRIPT.path in first and "'odd'" in first and "an int, not a string" in first
    assert "plugin extras" in second and "'weird'" in second and "parameters" in second


def test_the_tool_decorator_refuses_a_non_string_description() -> None:
    import pytest

    from forge_tools.tools.contract import tool

    with pytest.raises(TypeError, match="description"):
        tool(description=5)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="name"):
        tool(name=3)  # type: ignore[arg-type]


def test_each_candidate_has_its_own_shadowed_list() -> None:
    """Candidates are made once, after every source is read: a replaced id lists what it replaced in
    order, and no two candidates share a list (a NamedTuple field has no fresh default per instance)."""
    result = build_candidates([("read", None, BUILTIN), ("bash", None, BUILTIN), ("grep", None, BUILTIN)],
                              [("bash", None, SCRIPT), ("read", None, SCRIPT)], [("bash", None, PLUGIN)])
    read, bash, grep = result.candidates
    assert (read.id, bash.id, grep.id) == ("read", "bash", "grep")
    assert bash.source == PLUGIN and bash.shadowed == [BUILTIN, SCRIPT]
    assert read.source == SCRIPT and read.shadowed == [BUILTIN]
    assert grep.shadowed == [] and len({id(c.shadowed) for c in result.candidates}) == 3
