"""Single opencode 1.18.33 facts (issue 17 item 4) against records made from the real binary.

`facts/generate.py` made `facts/arity-1.18.33.json` (the command-prefix table, read from the binary)
and `facts/truncation/opencode-1.18.33.json` (what three real tool calls returned); the layouts used
here are recorded by `layouts/generate.py`. Nothing here runs opencode or needs the network.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from test_opencode_answers import VERSION, forge_rules, opencode_rules

FACTS = Path(__file__).parent / "facts"
LAYOUTS = Path(__file__).parent / "layouts"


def _json(path: Path) -> Any:
    return json.loads(path.read_text())


def test_the_arity_table_is_the_one_recorded_from_the_binary() -> None:
    from importlib.resources import files

    shipped = json.loads((files("forge_tools") / "data" / "opencode_arity.json").read_text())
    record = _json(FACTS / f"arity-{VERSION}.json")
    assert shipped["prefixes"] == record["prefixes"] and record["count"] == len(shipped["prefixes"]) == 136


@pytest.mark.parametrize(("command", "always"), [
    ("npm run dev --port 3", "npm run dev *"), ("docker compose up -d", "docker compose up *"),
    ("aws s3 ls s3://bucket", "aws s3 ls *"), ("consul kv get a/b", "consul kv get *"),
    ("git commit -m x", "git commit *"), ("ls -la", "ls *"), ("terraform workspace select x",
                                                              "terraform workspace select *")])
def test_always_patterns_follow_the_table(command: str, always: str, project: Path) -> None:
    from forge_tools.tools.builtins import bash
    from forge_tools.tools.contract import ToolContext

    assert bash.TOOL.permission_requests is not None
    (req,) = bash.TOOL.permission_requests(bash.BashArgs(command=command), ToolContext(project_root=project))
    assert req.always == (always,)


def _calls() -> list[dict[str, Any]]:
    calls: list[dict[str, Any]] = _json(FACTS / "truncation" / f"opencode-{VERSION}.json")["calls"]
    return calls


@pytest.mark.parametrize("call", [c for c in _calls() if c["tool"] != "bash"],
                         ids=lambda c: c["agent"])
def test_the_truncation_text_is_opencodes(call: dict[str, Any], tmp_path: Path) -> None:
    """The shared limit's preview, marker and hint, word for word; the Task advice for an agent that may
    dispatch (build), the Grep advice for one whose `task` is denied."""
    from forge_tools.tools.outputs import OutputStore
    from forge_tools.tools.truncation import truncate_output

    text = "\n".join(f"line {i}" for i in range(1, 3001))  # what facts/truncation's big.ts prints
    hint = "subagent" if call["agent"] == "build" else "search"
    result = truncate_output(text, hint=hint, store=OutputStore(tmp_path / "out"))
    assert result.truncated is call["truncated"] is True
    assert result.content == call["output"].replace("$OUTPUT", str(result.output_path))


def test_the_bash_truncation_text_is_opencodes(project: Path) -> None:
    """bash keeps the tail, after its own notice (`...output truncated...`, the saved file)."""
    from forge_tools.tools.builtins import bash
    from forge_tools.tools.contract import ToolContext

    [call] = [c for c in _calls() if c["tool"] == "bash"]
    ctx = ToolContext(project_root=project)
    out = bash.TOOL.execute(bash.BashArgs(command=call["params"]["command"]), ctx)
    assert out.metadata["truncated"] is call["truncated"] is True
    assert out.output == call["output"].replace("$OUTPUT", out.metadata["outputPath"])


def test_the_hint_kind_follows_the_agents_task_rule(project: Path) -> None:
    """build may dispatch subtasks (Task advice), an agent with `task: deny` may not (Grep advice)."""
    from forge_tools.config import load_project
    from forge_tools.permission.agents import can_dispatch, load_agents

    shutil.copy(FACTS / "truncation" / "opencode.json", project / "opencode.json")
    agents = load_agents(load_project(project))
    assert can_dispatch(agents["build"]) and not can_dispatch(agents["notask"])


def json_out(cli: Any, *args: str) -> Any:
    code, out, err = cli(*args, "--format", "json")
    assert code == 0, err
    return json.loads(out)


def test_check_of_a_subfolder_sees_the_roots_config(project: Path, cli: Any,
                                                    isolated_env: dict[str, Path]) -> None:
    """`--project services/api` (and `check services/api`) from the repo root: opencode run in
    services/api reads the root's opencode.jsonc too (layouts/subfolder)."""
    shutil.copytree(LAYOUTS / "subfolder" / "project", project, dirs_exist_ok=True)
    theirs = opencode_rules(_json(LAYOUTS / "subfolder" / f"opencode-{VERSION}.json")["debug_agent"]["build"]
                            ["permission"])
    ours = forge_rules(json_out(cli, "rules", "--agent", "build", "--project", "services/api")["rules"],
                       isolated_env["home"])
    assert ours == theirs and ("bash", "rm *", "deny") in ours


def test_python_files_in_opencode_dirs_are_not_tools(project: Path, cli: Any) -> None:
    """opencode lists only `.ts`/`.js` in `.opencode/tool/` (layouts/tool-exports): `pyt.py` is no tool
    and is not imported; the same file in `.forge/tool/` is forge's own Python tool."""
    shutil.copytree(LAYOUTS / "tool-exports" / "project", project, dirs_exist_ok=True)
    recorded = _json(LAYOUTS / "tool-exports" / f"opencode-{VERSION}.json")["debug_agent"]["build"]["tools"]
    ids = {t["id"] for t in json_out(cli, "layers")["tools"]}  # layers imports project Python tools
    assert "pyt" not in ids and "pyt" not in recorded
    assert {"db", "db_migrate"} <= ids and not {"db_VERSION", "db_settings", "db_helper", "db_Pool"} & ids
    (project / ".forge" / "tool").mkdir(parents=True)
    shutil.move(project / ".opencode" / "tool" / "pyt.py", project / ".forge" / "tool" / "pyt.py")
    assert "pyt" in {t["id"] for t in json_out(cli, "layers")["tools"]}


def test_an_invalid_opencode_permission_is_a_warning(project: Path, cli: Any,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """opencode warns and goes on (layouts/config-keys loads); forge-tools too, and check says FT117."""
    (project / "opencode.json").write_text('{"permission": {"webfetch": "ask"}}')
    monkeypatch.setenv("OPENCODE_PERMISSION", "{not json")
    rules = json_out(cli, "rules", "--agent", "build")["rules"]
    assert ("webfetch", "*", "ask") in {(r["permission"], r["pattern"], r["action"]) for r in rules}
    findings = json_out(cli, "check")["findings"]
    assert [f["code"] for f in findings if "OPENCODE_PERMISSION" in json.dumps(f)] == ["FT117"]


def test_an_explicit_deny_of_the_truncation_dir_is_kept(project: Path, cli: Any) -> None:
    """opencode appends its truncation-dir allow only when no rule denies exactly that glob."""
    from forge_tools.paths import truncation_glob

    glob = truncation_glob()
    (project / "opencode.json").write_text(json.dumps({"permission": {"external_directory": {glob: "deny"}}}))
    rules = [(r["permission"], r["pattern"], r["action"]) for r in
             json_out(cli, "rules", "--agent", "build")["rules"]]
    assert rules[-1] == ("external_directory", glob, "deny")
    story = json_out(cli, "explain", "read", "--agent", "build", "--call",
                     json.dumps({"filePath": glob[:-1] + "x.txt"}))
    assert story["call"]["action"] == "deny"


def _output_calls() -> list[dict[str, Any]]:
    calls: list[dict[str, Any]] = _json(FACTS / "outputs" / f"opencode-{VERSION}.json")["calls"]
    return calls


@pytest.mark.parametrize("call", _output_calls(), ids=lambda c: f"{c['tool']}-{json.dumps(c['params'])}")
def test_read_and_bash_say_what_opencode_says(call: dict[str, Any], project: Path) -> None:
    """facts/outputs: read's numbered `<content>`, its closing notes (`Showing lines 1-10 of 100`,
    `End of file - total 0 lines`, `Output capped at 50 KB`), `offset` counted from 1 (0 read as 1), the
    out-of-range and not-found errors, a directory's `<entries>`; bash's `(no output)` (whatever the
    exit code), its `<shell_metadata>` timeout notice; each word for word as opencode 1.18.33 printed it."""
    from forge_tools.tools.builtins import bash, read
    from forge_tools.tools.contract import ToolContext

    shutil.copytree(FACTS / "outputs", project, dirs_exist_ok=True,
                    ignore=shutil.ignore_patterns("case.json", "opencode-*.json"))
    tool = {"read": read.TOOL, "bash": bash.TOOL}[call["tool"]]
    params = json.loads(json.dumps(call["params"]).replace("$PROJECT", str(project)))
    assert not isinstance(tool.parameters, dict)
    out = tool.execute(tool.parameters.model_validate(params), ToolContext(project_root=project))
    text = out.output.replace(str(project), "$PROJECT")
    if "failed" in call:  # opencode's debug command prints `Error: ...`, then the message (last lines)
        said = [line for line in call["failed"] if not line.startswith("Error: ")]
        assert out.is_error and [line for line in text.splitlines() if line.strip()][-len(said):] == said
    else:
        assert (text, out.metadata["truncated"], out.title) == (call["output"], call["truncated"],
                                                                call["title"])


def _shape(schema: dict[str, Any], defs: dict[str, Any] | None = None) -> dict[str, Any]:
    """What a JSON Schema asks of a call: each property's type and allowed values, which are
    required, array items (descriptions, bounds and the wording of either side left out)."""
    defs = schema.get("$defs", {}) if defs is None else defs
    if "$ref" in schema:
        return _shape(defs[schema["$ref"].rsplit("/", 1)[-1]], defs)
    if "anyOf" in schema:  # pydantic's `X | None` for an optional property
        kinds = [s for s in schema["anyOf"] if s.get("type") != "null"]
        return _shape(kinds[0], defs) if len(kinds) == 1 else {"anyOf": [_shape(k, defs) for k in kinds]}
    out: dict[str, Any] = {key: schema[key] for key in ("type", "enum") if key in schema}
    if "properties" in schema:
        out["properties"] = [(name, _shape(value, defs)) for name, value in schema["properties"].items()]
        out["required"] = sorted(schema.get("required", []))
    if "items" in schema:
        out["items"] = _shape(schema["items"], defs)
    return out


_DEFINITIONS = _json(FACTS / f"definitions-{VERSION}.json")["tools"]


@pytest.mark.parametrize("tool", sorted(_DEFINITIONS))
def test_builtin_parameters_are_the_ones_opencode_sends(tool: str, project: Path, cli: Any) -> None:
    """facts/definitions: the parameters opencode 1.18.33 sends the model for each builtin (lsp's
    `query`, task's `command`, websearch's `type`, `livecrawl`, `contextMaxCharacters`, bash without
    `description`, todowrite's three required strings), in its order, as `explain --definition` shows."""
    (project / "opencode.json").write_text('{"model": "opencode/big-pickle"}')
    story = json_out(cli, "explain", tool, "--definition", "--flag", "lsp")
    assert _shape(story["definition"]["parameters"]) == _shape(_DEFINITIONS[tool]["parameters"])


def test_bash_takes_a_description_it_no_longer_offers(project: Path) -> None:
    """A call still sending bash's old `description` runs, the key dropped (zod drops unknown keys);
    the corpus's calls all send one and opencode ran them."""
    from forge_tools.tools.builtins import bash

    args = bash.BashArgs.model_validate({"command": "echo hi", "description": "says hi"})
    assert "description" not in args.model_dump()


def test_opencode_1_18_33_has_no_list_tool(project: Path, cli: Any) -> None:
    """The build agent is offered the tools 1.18.33 sent (websearch and lsp switched on), no `list`;
    `question` is the difference: `opencode run` (the recorder) denies it for its session, as the
    JavaScript in the binary says (`{permission:"question",action:"deny",pattern:"*"}`)."""
    (project / "opencode.json").write_text('{"model": "opencode/big-pickle"}')
    shown = {t["id"] for t in json_out(cli, "layers", "--flag", "lsp")["tools"] if t["visible"]}
    assert "list" not in shown and shown - {"invalid"} == set(_DEFINITIONS) | {"question"}


_SCRIPT_ARGS = _json(FACTS / "script-args" / f"opencode-{VERSION}.json")


def _script_project(project: Path) -> None:
    shutil.copytree(FACTS / "script-args", project, dirs_exist_ok=True,
                    ignore=shutil.ignore_patterns("case.json", "opencode-*.json"))


@pytest.mark.parametrize("tool", sorted(_SCRIPT_ARGS["tools"]))
def test_script_tool_args_are_the_schema_opencode_sends(tool: str, project: Path, cli: Any) -> None:
    """facts/script-args: the zod `args` of `.opencode/tool/*.ts` (tool.schema and zod imported
    directly: string, number().int().min().max(), enum().default(), boolean, array, object, literal,
    nullable, positive, string min/max, describe, optional) read from the syntax tree give the JSON
    Schema opencode 1.18.33 sent the model, key for key; `explain --definition` shows it."""
    _script_project(project)
    story = json_out(cli, "explain", tool, "--definition")
    assert story["definition"]["parameters"] == _SCRIPT_ARGS["tools"][tool]["parameters"]


@pytest.mark.parametrize("call", _SCRIPT_ARGS["calls"],
                         ids=lambda c: f"{c['tool']}-{json.dumps(c['params'])}")
def test_script_tool_input_is_taken_as_opencode_takes_it(call: dict[str, Any], project: Path,
                                                        cli: Any) -> None:
    """opencode ran every recorded call with its input as written (`{}` without the required `query`,
    `query: 3`, `limit: 0`, `format: "xml"`, an extra key; no default filled in): the tool's output is
    the input. So forge-tools refuses none of them as not fitting the schema, and passes the input on
    unchanged."""
    from forge_tools.sources.opencode_scripts import opencode_tool, scan_opencode_script
    from forge_tools.tools.wrapper import validate_args

    _script_project(project)
    stem = call["tool"].split("_")[0]
    tools, _ = scan_opencode_script(project / ".opencode" / "tool" / f"{stem}.ts")
    [found] = [t for t in tools if t.id == call["tool"]]
    if stem == "db" and call["tool"] == "db":  # db returns JSON.stringify(args): opencode's own proof
        assert json.loads(call["result"]) == call["params"]
    assert validate_args(opencode_tool(found), call["params"]) == call["params"]
    story = json_out(cli, "explain", call["tool"], "--call", json.dumps(call["params"]))
    assert story["call"]["action"] == "allow" and "do not fit" not in json.dumps(story)
