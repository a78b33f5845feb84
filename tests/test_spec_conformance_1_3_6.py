"""SPEC conformance for sections 1 (wrapper), 2 (sources), 3 (layers) and 6.2 (load order).

Each test names the SPEC sentence it pins; they go through the public API or the CLI's JSON output.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from forge_tools.tools.contract import Tool, ToolContext, ToolResult
from forge_tools.tools.wrapper import call_tool

BUILTINS = ["invalid", "question", "bash", "read", "glob", "grep", "list", "edit", "write", "apply_patch",
            "task", "webfetch", "todowrite", "websearch", "skill"]


class _Args(BaseModel):
    n: int


def _layers(cli: Any, *args: str) -> dict[str, Any]:
    code, out, err = cli("layers", "--format", "json", "--pure", *args)
    assert code == 0, err
    data: dict[str, Any] = json.loads(out)
    return data


def _tools(data: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {t["id"]: t for t in data["tools"]}


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


# -- SPEC 1: validate -> execute -> truncate --------------------------------------------------------


def test_spec1_invalid_input_never_reaches_execute_and_valid_input_arrives_coerced() -> None:
    seen: list[Any] = []

    def execute(args: _Args, ctx: ToolContext) -> str:
        seen.append(args)
        return "ok"

    tool = Tool(id="t", description="d", parameters=_Args, execute=execute)
    bad = call_tool(tool, {"n": "not a number"})
    assert bad.is_error and seen == []
    assert "n" in bad.output and "schema" in bad.output.lower()
    good = call_tool(tool, {"n": "7"})
    assert not good.is_error
    assert isinstance(seen[0], _Args) and seen[0].n == 7


def test_spec1_json_schema_tool_is_validated_by_the_same_machinery() -> None:
    seen: list[Any] = []
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}

    def execute(args: Any, ctx: ToolContext) -> str:
        seen.append(args)
        return "ok"

    tool = Tool(id="js", description="d", parameters=schema, execute=execute)
    bad = call_tool(tool, {})
    assert bad.is_error and seen == [] and "n" in bad.output


def test_spec1_own_format_validation_error_replaces_the_default_text() -> None:
    tool = Tool(id="t", description="d", parameters=_Args, execute=lambda a, c: "ok",
                format_validation_error=lambda err: f"custom: {err.error_count()} problem(s)")
    result = call_tool(tool, {"n": "x"})
    assert result.is_error and result.output == "custom: 1 problem(s)"


def test_spec1_output_is_truncated_after_execute_and_metadata_records_it() -> None:
    long = "\n".join(f"line {i}" for i in range(20000))
    tool = Tool(id="t", description="d", parameters=_Args, execute=lambda a, c: long)
    result = call_tool(tool, {"n": 1})
    assert result.metadata["truncated"] is True
    full = Path(result.metadata["outputPath"])
    assert full.read_text() == long and len(result.output) < len(long)


def test_spec1_short_output_gets_truncated_false_and_no_output_path() -> None:
    tool = Tool(id="t", description="d", parameters=_Args, execute=lambda a, c: "short")
    result = call_tool(tool, {"n": 1})
    assert result.metadata["truncated"] is False and "outputPath" not in result.metadata
    assert result.output == "short"


@pytest.mark.parametrize("value", [False, None, 0, "no"])
def test_spec1_a_truncated_key_with_any_value_skips_the_shared_truncation(value: Any) -> None:
    long = "\n".join(f"line {i}" for i in range(20000))
    tool = Tool(id="t", description="d", parameters=_Args,
                execute=lambda a, c: ToolResult(output=long, metadata={"truncated": value}))
    result = call_tool(tool, {"n": 1})
    assert result.output == long
    assert result.metadata["truncated"] == value and "outputPath" not in result.metadata


# -- SPEC 2: registration sources ---------------------------------------------------------------------


def test_spec2_builtins_are_the_explicit_list_in_order(cli: Any) -> None:
    assert [t["id"] for t in _layers(cli)["tools"]] == BUILTINS


@pytest.mark.parametrize(("args", "extra"), [
    (("--flag", "lsp"), ["lsp"]),
    (("--flag", "plan"), []),  # default client is cli
    (("--flag", "plan", "--client", "app"), []),
    (("--client", "cli"), []),
    (("--flag", "plan", "--flag", "lsp"), ["lsp"]),
])
def test_spec2_lsp_and_plan_exit_are_flag_gated(cli: Any, args: tuple[str, ...], extra: list[str]) -> None:
    ids = [t["id"] for t in _layers(cli, *args)["tools"]]
    wanted = [*BUILTINS, *extra]
    if "plan" in args and "app" not in args:
        wanted.append("plan_exit")
    assert ids == wanted


def test_spec2_plan_exit_needs_flag_plan_and_client_cli(cli: Any) -> None:
    ids = [t["id"] for t in _layers(cli, "--flag", "plan", "--client", "cli")["tools"]]
    assert ids[-1] == "plan_exit"
    desktop = _layers(cli, "--flag", "plan", "--client", "desktop")
    assert "plan_exit" not in [t["id"] for t in desktop["tools"]]


_SCRIPT = """\
from pydantic import BaseModel
from forge_tools.tools.contract import Tool


class A(BaseModel):
    x: int = 0


def _ex(a, c):
    return "{label}"


{bindings}
"""


def _script(path: Path, *bindings: str, label: str = "x") -> Path:
    lines = "\n".join(f'{b} = Tool(id="ignored", description="{label}", parameters=A, execute=_ex)'
                      for b in bindings)
    return _write(path, _SCRIPT.format(label=label, bindings=lines))


def test_spec2_script_discovery_and_id_rule(cli: Any, project: Path) -> None:
    forge = project / ".forge"
    _script(forge / "tool" / "alpha.py", "default")
    _script(forge / "tools" / "beta.py", "beta", "extra")
    _script(forge / "tools" / ".hidden.py", "default")
    _script(forge / "tools" / "nested" / "deep.py", "default")  # not recursive
    _write(forge / "tools" / "notes.txt", "not python")
    ids = [t["id"] for t in _layers(cli)["tools"]]
    assert ids[:len(BUILTINS)] == BUILTINS
    scripts = ids[len(BUILTINS):]
    assert sorted(scripts) == sorted(["alpha", "beta", "beta_extra", ".hidden"])
    assert "deep" not in ids and "nested_deep" not in ids


def test_spec2_failing_script_is_reported_with_path_and_error_and_others_load(cli: Any,
                                                                             project: Path) -> None:
    bad = _write(project / ".forge" / "tools" / "bad.py", "raise RuntimeError('kaboom')\n")
    _script(project / ".forge" / "tools" / "good.py", "default")
    data = _layers(cli)
    assert "good" in _tools(data)
    [problem] = data["problems"]
    assert problem["origin"]["path"] == str(bad) and "kaboom" in problem["message"]


def test_spec2_later_candidate_replaces_earlier_and_listing_shows_it(cli: Any, project: Path) -> None:
    script = _script(project / ".forge" / "tools" / "read.py", "default", label="my read")
    data = _layers(cli)
    ids = [t["id"] for t in data["tools"]]
    assert ids.count("read") == 1
    read = _tools(data)["read"]
    assert read["source"]["kind"] == "script" and read["source"]["path"] == str(script)
    assert [s["kind"] for s in read["shadowed"]] == ["builtin"]
    code, out, _ = cli("explain", "read", "--format", "json", "--pure")
    assert code == 0 and json.loads(out)["shadowed"]


# -- SPEC 3.1: model, provider, flags ------------------------------------------------------------------


@pytest.mark.parametrize(("model", "patch"), [
    ("openai/gpt-5", True),
    ("openai/gpt-5-codex", True),
    ("openrouter/openai/gpt-5", True),  # the model id is everything after the first `provider/`
    ("x/chatgpt-5", True),
    ("openai/gpt-4o", False),
    ("openai/gpt-4.1", False),
    ("openai/gpt-oss-120b", False),
    ("openai/GPT-5", False),  # case-sensitive
    ("openai/gpt5", False),
    ("anthropic/claude-sonnet-4", False),
    ("gpt-5/claude", False),  # `gpt-` in the provider does not count
])
def test_spec3_1_patch_mode(cli: Any, model: str, patch: bool) -> None:
    tools = _tools(_layers(cli, "--model", model))
    assert tools["apply_patch"]["visible"] is patch
    assert tools["edit"]["visible"] is (not patch) and tools["write"]["visible"] is (not patch)
    dropped = ["edit", "write"] if patch else ["apply_patch"]
    assert all(tools[t]["hidden_at"] == "model" for t in dropped)


@pytest.mark.parametrize(("args", "kept"), [
    (("--model", "opencode/big"), True),
    (("--model", "opencode-go/big"), True),
    (("--model", "opencode-zen/big"), False),
    (("--model", "anthropic/claude"), False),
    (("--model", "anthropic/claude", "--flag", "exa"), True),
    (("--model", "anthropic/claude", "--flag", "parallel"), True),
    # no config at all is opencode's defaults (issue 30): its default model, opencode/big-pickle
    ((), True),
])
def test_spec3_1_websearch(cli: Any, args: tuple[str, ...], kept: bool) -> None:
    assert _tools(_layers(cli, *args))["websearch"]["visible"] is kept


@pytest.mark.parametrize(("args", "kept"), [
    (("--client", "app"), True),
    (("--client", "cli"), True),
    (("--client", "desktop"), True),
    (("--client", "web"), False),
    (("--client", "web", "--flag", "question"), True),
])
def test_spec3_1_question(cli: Any, args: tuple[str, ...], kept: bool) -> None:
    assert _tools(_layers(cli, *args))["question"]["visible"] is kept


# -- SPEC 3.2: the task tool's subagent list ----------------------------------------------------------


def test_spec3_2_task_lists_dispatchable_subagents_sorted(cli: Any, project: Path) -> None:
    config = {
        "agent": {
            "zeta": {"mode": "subagent", "description": "z"},
            "alpha": {"mode": "subagent", "description": "a"},
            "both": {"mode": "all", "description": "b"},
            "boss": {"mode": "primary", "description": "p"},
            "secret": {"mode": "subagent", "description": "s"},
            "dz": {"mode": "subagent", "description": "w"},
            "build": {"permission": {"task": {"secret": "deny", "d*": "deny", "zeta": "ask"}}},
        },
    }
    _write(project / "forge.json", json.dumps(config))
    code, out, err = cli("explain", "task", "--format", "json", "--pure")
    assert code == 0, err
    description = json.loads(out)["definition"]["description"]
    listed = [line[2:].split(":")[0] for line in description.splitlines() if line.startswith("- ")
              and line[2:].split(":")[0] in {"zeta", "alpha", "both", "boss", "secret", "dz", "general",
                                               "explore", "build", "plan"}]
    assert listed == ["alpha", "both", "explore", "general", "zeta"]


# -- SPEC 3.3: resolve + permission -------------------------------------------------------------------


@pytest.mark.parametrize(("bash_rules", "hidden"), [
    ({"*": "deny"}, True),
    ({"*": "deny", "git *": "allow"}, False),  # the last rule decides, whatever its pattern
    ({"git *": "allow", "*": "deny"}, True),
    ({"rm *": "deny"}, False),  # a specific deny rejects calls, does not hide
    ({"*": "ask"}, False),
    ("deny", True),
])
def test_spec3_3_only_a_last_star_deny_hides(cli: Any, project: Path, bash_rules: Any, hidden: bool) -> None:
    _write(project / "forge.json", json.dumps({"permission": {"bash": bash_rules}}))
    bash = _tools(_layers(cli))["bash"]
    assert bash["visible"] is (not hidden)
    assert bash["hidden_at"] == ("permission" if hidden else None)


def test_spec3_3_wildcard_permission_names_count_and_order_matters(cli: Any, project: Path) -> None:
    _write(project / "forge.json", json.dumps({"permission": {"*": "deny", "bash": "allow"}}))
    tools = _tools(_layers(cli))
    assert tools["bash"]["visible"] and not tools["read"]["visible"] and not tools["invalid"]["visible"]


def test_spec3_3_request_false_drops_exactly_that_tool(cli: Any) -> None:
    before = {i for i, t in _tools(_layers(cli)).items() if t["visible"]}
    after_data = _tools(_layers(cli, "--tools", '{"read": false}'))
    after = {i for i, t in after_data.items() if t["visible"]}
    assert before - after == {"read"} and after <= before
    assert after_data["read"]["hidden_at"] == "request"
    # `write` folds into `edit`, but the request rule names `write`: edit stays
    data = _tools(_layers(cli, "--tools", '{"write": false}'))
    assert not data["write"]["visible"] and data["edit"]["visible"]


def test_spec3_3_request_true_becomes_allow(cli: Any, project: Path) -> None:
    _write(project / "forge.json", json.dumps({"permission": {"read": "deny"}}))
    assert not _tools(_layers(cli))["read"]["visible"]
    assert _tools(_layers(cli, "--tools", '{"read": true}'))["read"]["visible"]


def test_spec3_3_edit_family_folds_into_edit(cli: Any, project: Path) -> None:
    from forge_tools.names import permission_name

    for name in ("edit", "write", "apply_patch", "multiedit", "patch"):
        assert permission_name(name) == "edit"
    assert permission_name("bash") == "bash" and permission_name("editor") == "editor"
    _write(project / "forge.json", json.dumps({"permission": {"edit": "deny"}}))
    tools = _tools(_layers(cli, "--model", "openai/gpt-5"))
    assert tools["apply_patch"]["hidden_at"] == "permission"
    assert {tools[t]["permission"] for t in ("edit", "write", "apply_patch")} == {"edit"}
    assert _tools(_layers(cli))["write"]["hidden_at"] == "permission"


# -- SPEC 6: load order, merge, substitution, project root ----------------------------------------------


def _load(project: Path, env: dict[str, str], overlays: tuple[Path, ...] = ()) -> Any:
    from forge_tools.config.loader import LoadOptions, load_config

    return load_config(LoadOptions(cwd=project, env=env, overlays=overlays))


def _at(loaded: Any, key: str) -> Any:
    node = loaded.node_at(key)
    assert node is not None, key
    return node.plain()


def test_spec6_2_load_order(project: Path, isolated_env: dict[str, Path], tmp_path: Path) -> None:
    home = isolated_env["home"]
    base = {"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config")}
    steps: list[tuple[str, Any]] = []

    def file_step(path: Path, name: str) -> tuple[str, Any]:
        _write(path, json.dumps({"model": f"p/{name}"}))
        return name, path

    steps.append(file_step(home / ".config" / "forge" / "forge.json", "global"))
    steps.append(file_step(tmp_path / "fc.json", "FORGE_CONFIG"))
    steps.append(file_step(project / "forge.json", "project"))
    steps.append(file_step(project / ".forge" / "forge.json", "dotforge"))
    steps.append(file_step(tmp_path / "cdir" / "forge.json", "FORGE_CONFIG_DIR"))
    steps.append(("FORGE_CONFIG_CONTENT", json.dumps({"model": "p/FORGE_CONFIG_CONTENT"})))
    steps.append(file_step(tmp_path / "overlay.json", "--config"))
    for upto in range(len(steps)):
        env = dict(base)
        overlays: tuple[Path, ...] = ()
        for name, value in steps[upto + 1:]:
            if isinstance(value, Path) and name in ("global", "project", "dotforge"):
                value.rename(value.with_suffix(".off"))
        for name, value in steps[:upto + 1]:
            if name == "FORGE_CONFIG":
                env[name] = str(value)
            elif name == "FORGE_CONFIG_DIR":
                env[name] = str(value.parent)
            elif name == "FORGE_CONFIG_CONTENT":
                env[name] = value
            elif name == "--config":
                overlays = (value,)
        try:
            assert _load(project, env, overlays).data.model == f"p/{steps[upto][0]}", steps[upto][0]
        finally:
            for name, value in steps[upto + 1:]:
                if isinstance(value, Path) and name in ("global", "project", "dotforge"):
                    value.with_suffix(".off").rename(value)
    overlay = _write(tmp_path / "perm.json", json.dumps({"permission": {"bash": "allow", "read": "ask"}}))
    loaded = _load(project, {**base, "FORGE_PERMISSION": json.dumps({"bash": "deny"})}, (overlay,))
    assert _at(loaded, "permission") == {"bash": "deny", "read": "ask"}


def test_spec6_2_nearest_project_file_wins(project: Path, isolated_env: dict[str, Path]) -> None:
    sub = project / "a" / "b"
    sub.mkdir(parents=True)
    _write(project / "forge.json", json.dumps({"model": "p/root", "small_model": "p/root-small"}))
    _write(project / "a" / "forge.json", json.dumps({"model": "p/a"}))
    from forge_tools.config.loader import LoadOptions, load_config

    loaded = load_config(LoadOptions(cwd=sub, env={"HOME": str(isolated_env["home"])}))
    assert loaded.data.model == "p/a" and loaded.project_root == project.resolve()
    assert _at(loaded, "small_model") == "p/root-small"


def test_spec6_2_merge_semantics(project: Path, isolated_env: dict[str, Path]) -> None:
    home = isolated_env["home"]
    _write(home / ".config" / "forge" / "forge.json", json.dumps({
        "agent": {"build": {"description": "g", "permission": {"read": "deny"}}},
        "plugin": ["a.py", "b.py"],
        "instructions": ["one.md", "two.md"],
    }))
    _write(project / "forge.json", json.dumps({
        "agent": {"build": {"permission": {"bash": "ask"}}},
        "plugin": ["b.py", "c.py"],
        "instructions": ["three.md"],
    }))
    loaded = _load(project, {"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config")})

    def tree_get(key: str) -> Any:
        node = loaded.node_at(key)
        assert node is not None
        return node.plain()

    assert tree_get("agent") == {
        "build": {"description": "g", "permission": {"read": "deny", "bash": "ask"}}}
    assert tree_get("plugin") == ["a.py", "b.py", "c.py"]
    # joined like `plugin`, as opencode 1.18.33 joins them (issue 30 overrides SPEC 6.2 here)
    assert tree_get("instructions") == ["one.md", "two.md", "three.md"]


def test_spec6_1_env_and_file_substitution(project: Path, isolated_env: dict[str, Path]) -> None:
    _write(project / "conf" / "model.txt", "p/from-file")
    _write(project / "conf" / "forge.json", json.dumps({"model": "{file:model.txt}",
                                                       "small_model": "{env:SMALL}"}))
    loaded = _load(project, {"HOME": str(isolated_env["home"]), "SMALL": "p/from-env"},
                   (project / "conf" / "forge.json",))
    assert loaded.data.model == "p/from-file"
    assert _at(loaded, "small_model") == "p/from-env"


def test_spec6_1_project_root_rule(tmp_path: Path) -> None:
    from forge_tools.config.loader import find_project_root

    top = tmp_path / "repo"
    inner = top / "x" / "y"
    inner.mkdir(parents=True)
    (top / ".git").write_text("gitdir: elsewhere\n")  # a worktree's `.git` is a file
    assert find_project_root(inner) == top
    other = tmp_path / "given"
    other.mkdir()
    assert find_project_root(inner, other) == other.resolve()
    loose = tmp_path / "loose"
    loose.mkdir()
    # tmp_path's parents hold no `.git` in the test setup, so the cwd itself is the root
    if not any((p / ".git").exists() for p in loose.parents):
        assert find_project_root(loose) == loose


def test_spec2_a_later_config_dir_script_replaces_an_earlier_one(cli: Any, project: Path,
                                                                 isolated_env: dict[str, Path]) -> None:
    home = isolated_env["home"]
    first = _script(home / ".config" / "forge" / "tools" / "deploy.py", "default", label="global")
    second = _script(project / ".forge" / "tools" / "deploy.py", "default", label="project")
    deploy = _tools(_layers(cli))["deploy"]
    assert deploy["source"]["path"] == str(second)
    assert [s["path"] for s in deploy["shadowed"]] == [str(first)]


def test_spec3_3_session_overlay_comes_after_the_agent_rules(cli: Any, project: Path, tmp_path: Path) -> None:
    _write(project / "forge.json", json.dumps({"permission": {"bash": "deny"}}))
    session = _write(tmp_path / "session.json", json.dumps({"permission": {"bash": {"git *": "allow"}}}))
    assert not _tools(_layers(cli))["bash"]["visible"]
    assert _tools(_layers(cli, "--session-permission", str(session)))["bash"]["visible"]
    # ... and the request booleans come after the session overlay
    data = _tools(_layers(cli, "--session-permission", str(session), "--tools", '{"bash": false}'))
    assert data["bash"]["hidden_at"] == "request"
