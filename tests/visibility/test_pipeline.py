"""The whole pipeline: every candidate, every layer's verdict, the definition and the problems."""

from __future__ import annotations

from pathlib import Path

import pytest

from forge_tools.config import LoadOptions, load_config
from forge_tools.errors import ConfigError, UnknownNameError, UsageError
from forge_tools.visibility.pipeline import Request, parse_tool_overrides, resolve


def load(project: Path):
    return load_config(LoadOptions(cwd=project))


def test_every_candidate_in_source_order_with_every_layer(forge_project: Path) -> None:
    result = resolve(load(forge_project), Request())
    ids = result.ids
    assert ids[:3] == ["invalid", "question", "bash"] and ids[-1] == "count_lines"
    for verdict in result.tools:
        assert [lv.layer for lv in verdict.layers] == ["model", "definition", "permission", "request"]
    assert result.agent.name == "build" and result.model == "anthropic/claude-sonnet-4"
    count = result.get("count_lines")
    assert count is not None and count.source.kind == "script" and count.visible
    read = result.get("read")
    assert read is not None and read.definition is not None
    assert read.definition["description"].startswith("Read a file (house rule")
    assert [who for who, _ in read.definition_changes] == ["policy"]
    assert not result.problems


def test_every_layer_is_computed_even_after_an_earlier_drop(forge_project: Path, write_file) -> None:
    write_file(forge_project / "forge.toml", """
        model = "anthropic/claude-sonnet-4"
        [permission]
        apply_patch = "deny"
        edit = "deny"
    """)
    result = resolve(load(forge_project), Request())
    patch = result.get("apply_patch")
    assert patch is not None
    assert patch.hidden_at == "model"
    assert not patch.layer("model").kept and not patch.layer("permission").kept
    rule = patch.layer("permission").rule
    assert rule is not None and rule.origin.line == 4  # type: ignore[union-attr]


def test_plan_keeps_edit_visible_but_limited(forge_project: Path) -> None:
    result = resolve(load(forge_project), Request(agent="plan"))
    edit = result.get("edit")
    assert edit is not None and edit.visible
    assert "plans" in edit.layer("permission").reason
    webfetch = result.get("webfetch")
    assert webfetch is not None and webfetch.hidden_at == "permission"
    assert "forge.toml:7" in (webfetch.reason or "")


def test_session_overlay_comes_after_the_agent_and_keeps_positions(forge_project: Path, write_file) -> None:
    overlay = write_file(forge_project / "session.yaml", """
        permission:
          todowrite: deny
    """)
    result = resolve(load(forge_project), Request(session_permission=overlay))
    todo = result.get("todowrite")
    assert todo is not None and todo.hidden_at == "permission"
    rule = todo.layer("permission").rule
    assert rule is not None and str(rule.origin) == f"{overlay}:2:3"  # type: ignore[union-attr]
    assert result.ruleset[-1] == rule


def test_a_broken_session_overlay_names_file_line_column(forge_project: Path, write_file) -> None:
    overlay = write_file(forge_project / "session.json", '{"permission": {"bash": "allwo"}}')
    with pytest.raises(ConfigError) as info:
        resolve(load(forge_project), Request(session_permission=overlay))
    assert str(overlay) in info.value.one_line() and "allow" in info.value.one_line()
    no_map = write_file(forge_project / "s.toml", 'model = "x/y"\n')
    with pytest.raises(ConfigError, match="permission"):
        resolve(load(forge_project), Request(session_permission=no_map))


def test_request_booleans_are_reported_as_request_drops(forge_project: Path) -> None:
    result = resolve(load(forge_project), Request(tool_overrides={"write": False, "bash": False}))
    for tool_id in ("write", "bash"):
        verdict = result.get(tool_id)
        assert verdict is not None and verdict.hidden_at == "request"
    edit = result.get("edit")
    assert edit is not None and edit.visible  # `write: false` drops the tool write, not the edit permission


@pytest.mark.parametrize("text", ['{"edit": "no"}', "[1]", "{edit: false}"])
def test_bad_tools_json_is_a_usage_error_naming_the_option(text: str) -> None:
    with pytest.raises(UsageError) as info:
        parse_tool_overrides(text)
    assert info.value.one_line().startswith("--tools:")


def test_unknown_agent_has_did_you_mean(forge_project: Path) -> None:
    with pytest.raises(UnknownNameError, match="plan"):
        resolve(load(forge_project), Request(agent="plna"))


def test_pure_drops_the_plugin_but_keeps_scripts(forge_project: Path) -> None:
    result = resolve(load(forge_project), Request(pure=True))
    read = result.get("read")
    assert read is not None and read.definition_changes == []
    assert result.get("count_lines") is not None
    assert any("--pure" in note for note in result.notes)


def test_without_load_code_nothing_is_imported(forge_project: Path, write_file) -> None:
    write_file(forge_project / ".forge" / "plugins" / "boom.py", "raise SystemExit('imported!')\n")
    write_file(forge_project / ".forge" / "tools" / "boom.py", "raise SystemExit('imported!')\n")
    result = resolve(load(forge_project), Request(), load_code=False)
    assert any("plugin tools unknown" in note for note in result.notes)
    count = result.get("count_lines")
    assert count is not None and count.tool is None and count.definition is None


def test_plugin_and_script_failures_are_problems_not_errors(forge_project: Path, write_file) -> None:
    write_file(forge_project / ".forge" / "plugins" / "broken.py", "import nope_nope\n")
    write_file(forge_project / ".forge" / "tools" / "bad.py", "import nope_nope\n")
    result = resolve(load(forge_project), Request())
    lines = [p.one_line() for p in result.problems]
    assert any("plugin broken" in line for line in lines)
    assert any("bad.py" in line for line in lines)
    assert result.get("count_lines") is not None


def test_plugin_tools_come_last_and_can_shadow(forge_project: Path, write_file) -> None:
    write_file(forge_project / ".forge" / "plugins" / "extras.py", """
        from forge_tools import hookimpl
        from forge_tools.tools.contract import Tool

        @hookimpl
        def register_tools(register):
            register(Tool("count_lines", "plugin version", {"type": "object"}, lambda a, c: ""))
            register(Tool("zz_plugin", "mine", {"type": "object"}, lambda a, c: ""))
    """)
    result = resolve(load(forge_project), Request())
    assert result.ids[-1] == "zz_plugin"
    count = result.get("count_lines")
    assert count is not None and count.source.kind == "plugin" and count.shadowed[0].kind == "script"
    assert [s.id for s in result.shadowings] == ["count_lines"]


def test_a_request_shares_no_mutable_default_and_resolve_all_keeps_its_overrides(forge_project: Path) -> None:
    """`Request` is a NamedTuple: its empty `tool_overrides` default is one read-only mapping, and
    `resolve_all` changes only the agent of the request it is given (`_replace`)."""
    import copy
    import pickle

    from forge_tools.visibility.pipeline import resolve_all

    with pytest.raises(TypeError):
        Request().tool_overrides["bash"] = False  # type: ignore[index]
    assert Request() == Request(tool_overrides={})
    # a library caller may copy or pickle a result's request (a MappingProxyType default could not)
    assert copy.deepcopy(Request()) == pickle.loads(pickle.dumps(Request())) == Request()
    assert pickle.loads(pickle.dumps(Request())).tool_overrides is Request().tool_overrides
    results = resolve_all(load(forge_project), Request(tool_overrides={"bash": False}))
    assert set(results) >= {"build", "plan"}
    for name, result in results.items():
        assert result.request.agent == name and result.request.tool_overrides == {"bash": False}
        bash = result.get("bash")
        assert bash is not None and bash.hidden_at == "request"
