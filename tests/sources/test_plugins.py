"""Plugin discovery, loading and hook calls: failures are reported by name and origin, the rest works."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from forge_tools.origin import Origin
from forge_tools.sources.plugins import discover, load_plugins

FORGE = ".forge"


def write_plugin(project: Path, name: str, body: str, folder: str = "plugins") -> Path:
    path = project / FORGE / folder / f"{name}.py"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(body))
    return path


def hooks_for(project: Path, specs: list = (), pure: bool = False):  # type: ignore[assignment]
    return load_plugins([project / FORGE], specs, pure=pure)


REWRITE = """
    from forge_tools import hookimpl

    @hookimpl
    def tool_definition(tool_id, definition):
        if tool_id == "read":
            definition.description = "Read (rewritten by policy)."
"""


def test_a_plugin_file_rewrites_a_description(project: Path) -> None:
    write_plugin(project, "policy", REWRITE)
    hooks = hooks_for(project)
    assert hooks.names == ["policy"] and not hooks.problems
    final, steps, problems = hooks.rewrite_definition("read", "Read a file.", {"type": "object"})
    assert final["description"] == "Read (rewritten by policy)."
    assert [s.plugin for s in steps] == ["policy"] and not problems
    untouched, steps, _ = hooks.rewrite_definition("bash", "Run.", {"type": "object"})
    assert untouched["description"] == "Run." and steps == []


def test_hooks_run_in_load_order_and_the_last_writer_wins(project: Path) -> None:
    for name, text in (("a_first", "A"), ("b_second", "B")):
        write_plugin(project, name, f"""
            from forge_tools import hookimpl

            @hookimpl
            def tool_definition(definition):
                definition.description = "{text}"
        """)
    hooks = hooks_for(project)
    assert hooks.names == ["a_first", "b_second"]
    final, steps, _ = hooks.rewrite_definition("read", "orig", {})
    assert final["description"] == "B"
    assert [(s.plugin, s.after["description"]) for s in steps] == [("a_first", "A"), ("b_second", "B")]


def test_a_plugin_that_fails_to_import_is_reported_and_others_load(project: Path) -> None:
    write_plugin(project, "broken", "import does_not_exist_anywhere\n")
    write_plugin(project, "policy", REWRITE)
    hooks = hooks_for(project)
    assert hooks.names == ["policy"]
    [problem] = hooks.problems
    assert problem.plugin == "broken"
    assert "does_not_exist_anywhere" in problem.one_line()
    assert "broken.py" in problem.one_line()


def test_an_unknown_hook_is_reported_by_name_with_a_suggestion(project: Path) -> None:
    write_plugin(project, "typo", """
        from forge_tools import hookimpl

        @hookimpl
        def tool_defintion(tool_id, definition):
            definition.description = "never"
    """)
    hooks = hooks_for(project)
    assert hooks.names == []
    [problem] = hooks.problems
    assert problem.plugin == "typo"
    assert "'tool_defintion'" in problem.message and "tool_definition" in problem.message


def test_a_hook_that_raises_keeps_the_definition_from_before_it(project: Path) -> None:
    write_plugin(project, "a_good", """
        from forge_tools import hookimpl

        @hookimpl
        def tool_definition(definition):
            definition.description = "from good"
    """)
    write_plugin(project, "b_bad", """
        from forge_tools import hookimpl

        @hookimpl
        def tool_definition(definition):
            definition.description = "half-done"
            raise RuntimeError("boom")
    """)
    hooks = hooks_for(project)
    final, steps, problems = hooks.rewrite_definition("read", "orig", {"type": "object"})
    assert final["description"] == "from good"
    assert [s.plugin for s in steps] == ["a_good"]
    [problem] = problems
    assert problem.plugin == "b_bad" and "boom" in problem.message and "'read'" in problem.message


@pytest.mark.parametrize(
    ("body", "complaint"),
    [
        ("definition.id = 'renamed'", "rename"),
        ("definition.name = 'other'", "only change description and parameters"),
        ("return [definition, definition]", "returned a value"),
        ("definition.parameters = 'nope'", "JSON Schema"),
    ],
)
def test_a_hook_may_not_rename_or_add_tools(project: Path, body: str, complaint: str) -> None:
    write_plugin(project, "sneaky", f"""
        from forge_tools import hookimpl

        @hookimpl
        def tool_definition(tool_id, definition):
            definition.description = "changed"
            {body}
    """)
    hooks = hooks_for(project)
    final, steps, problems = hooks.rewrite_definition("read", "orig", {"type": "object"})
    assert final == {"description": "orig", "parameters": {"type": "object"}}
    assert steps == []
    [problem] = problems
    assert problem.plugin == "sneaky" and complaint in problem.message


def test_parameters_are_a_copy_for_each_hook(project: Path) -> None:
    write_plugin(project, "mutate", """
        from forge_tools import hookimpl

        @hookimpl
        def tool_definition(definition):
            definition.parameters["properties"]["extra"] = {"type": "string"}
    """)
    original = {"type": "object", "properties": {}}
    final, _, _ = hooks_for(project).rewrite_definition("read", "d", original)
    assert original == {"type": "object", "properties": {}}
    assert "extra" in final["parameters"]["properties"]


def test_register_tools_stamps_each_tool_with_its_plugin(project: Path) -> None:
    path = write_plugin(project, "extras", """
        from forge_tools import hookimpl, tool
        from forge_tools.tools.contract import Tool

        @tool(description="Say hi")
        def hello(name: str) -> str:
            return "hi " + name

        @hookimpl
        def register_tools(register):
            register(hello)
            register(Tool("schema_tool", "JSON Schema params", {"type": "object"}, lambda a, c: "ok"))
            register("not a tool")
    """)
    hooks = hooks_for(project)
    tools = hooks.register_tools()
    assert [t.id for t in tools] == ["hello", "schema_tool"]
    assert all(t.source.kind == "plugin" and t.source.plugin == "extras" for t in tools)
    assert tools[0].source.path == str(path)
    [problem] = hooks.problems
    assert "register() takes a forge_tools.Tool" in problem.message


def test_register_tools_that_raises_adds_none_of_its_tools(project: Path) -> None:
    write_plugin(project, "flaky", """
        from forge_tools import hookimpl
        from forge_tools.tools.contract import Tool

        @hookimpl
        def register_tools(register):
            register(Tool("first", "d", {"type": "object"}, lambda a, c: ""))
            raise ValueError("no network")
    """)
    hooks = hooks_for(project)
    assert hooks.register_tools() == []
    assert "no network" in hooks.problems[0].message


def test_undecorated_hook_functions_are_pointed_out(project: Path) -> None:
    write_plugin(project, "plain", "def tool_definition(tool_id, definition):\n    pass\n")
    hooks = hooks_for(project)
    assert hooks.names == []
    assert "decorate tool_definition with @forge_tools.hookimpl" in hooks.problems[0].message


def test_pure_loads_nothing(project: Path) -> None:
    write_plugin(project, "policy", REWRITE)
    hooks = hooks_for(project, pure=True)
    assert hooks.names == [] and not hooks.problems and not hooks


class Spec:
    def __init__(self, spec: str, origin: Origin, base_dir: Path) -> None:
        self.spec, self.origin, self.base_dir = spec, origin, base_dir


def test_config_plugin_list_paths_are_relative_to_the_config_file(project: Path) -> None:
    (project / "plugs").mkdir()
    (project / "plugs" / "mine.py").write_text(textwrap.dedent(REWRITE))
    origin = Origin("file", path=str(project / "forge.json"), line=2, column=14)
    specs = [Spec("./plugs/mine.py", origin, project), Spec("opencode-helicone@1.2", origin, project),
             Spec("./plugs/missing.py", origin, project)]
    hooks = load_plugins([], specs)
    assert hooks.names == ["mine"]
    lines = [p.one_line() for p in hooks.problems]
    assert any("missing" in line and "forge.json:2:14" in line for line in lines)
    # an npm package is opencode's: noted (where it was listed), not reported as a problem
    assert not any("opencode-helicone" in line for line in lines)
    assert any("opencode-helicone@1.2" in note and "forge.json:2:14" in note and "npm" in note
               for note in hooks.notes)


def install_entry_point(site: Path, dist: str, line: str) -> None:
    """A real installed distribution declaring one `forge_tools` entry point, on `sys.path`."""
    info = site / f"{dist.replace('-', '_')}-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[forge_tools]\n{line}\n")


def test_load_order_is_entry_points_then_config_list_then_plugin_dirs(project: Path, monkeypatch) -> None:
    install_entry_point(project / "site", "some-dist", "from_dist = json")
    monkeypatch.syspath_prepend(str(project / "site"))
    write_plugin(project, "in_dir", REWRITE)
    (project / "listed.py").write_text(textwrap.dedent(REWRITE))
    spec = Spec("listed.py", Origin("file", path="forge.json"), project)
    refs, problems = discover([project / FORGE], [spec])
    assert [(r.name, r.kind) for r in refs] == [("from_dist", "entry-point"), ("listed", "config"),
                                                ("in_dir", "dir")]
    assert not problems


def test_the_same_file_listed_twice_loads_once(project: Path) -> None:
    path = write_plugin(project, "policy", REWRITE)
    spec = Spec(str(path), Origin("file", path="forge.json"), project)
    refs, _ = discover([project / FORGE], [spec])
    assert [r.name for r in refs] == ["policy"]


def test_execute_hooks_are_called_with_keywords_and_a_raise_blocks(project: Path) -> None:
    write_plugin(project, "guard", """
        from forge_tools import hookimpl

        seen = []

        @hookimpl
        def tool_execute_before(tool_id, args):
            if ".env" in str(args.get("filePath", "")):
                raise PermissionError("secrets are off limits")
            args["seen"] = True
    """)
    hooks = hooks_for(project)
    args = {"filePath": "a.txt"}
    hooks.tool_execute_before(tool_id="read", args=args, ctx=None)
    assert args["seen"] is True
    with pytest.raises(Exception, match="secrets are off limits") as info:
        hooks.tool_execute_before(tool_id="read", args={"filePath": ".env"}, ctx=None)
    assert "plugin guard, hook tool_execute_before" in str(info.value)


def test_entry_point_plugins_load_by_module_or_attribute(project: Path, monkeypatch) -> None:
    pkg = project / "site"
    pkg.mkdir()
    (pkg / "forge_ep_plugin.py").write_text(textwrap.dedent("""
        from forge_tools import hookimpl

        class Hooks:
            @hookimpl
            def tool_definition(self, definition):
                definition.description = "from the entry point"

        hooks = Hooks()
    """))
    install_entry_point(pkg, "forge-ep", "ep = forge_ep_plugin:hooks")
    monkeypatch.syspath_prepend(str(pkg))
    hooks = load_plugins([], [])
    assert hooks.names == ["ep"] and not hooks.problems
    final, _, _ = hooks.rewrite_definition("read", "orig", {})
    assert final["description"] == "from the entry point"
    assert "entry point ep = forge_ep_plugin:hooks in forge-ep" in str(hooks.plugins[0].ref.origin)


NOOP_DEFINITION = """
    from forge_tools import hookimpl

    @hookimpl
    def tool_definition(tool_id, definition):
        pass
"""


def test_a_hook_is_blamed_only_for_what_it_changed(project: Path) -> None:
    write_plugin(project, "p", NOOP_DEFINITION)
    hooks = hooks_for(project)
    # a bad value the tool itself brought in, left alone by the hook: not the plugin's mistake
    _, steps, problems = hooks.rewrite_definition("x", 5, {"type": "object"})  # type: ignore[arg-type]
    assert steps == [] and problems == []
    _, _, problems = hooks.rewrite_definition("x", "ok", "nope")  # type: ignore[arg-type]
    assert problems == []
    write_plugin(project, "q", """
        from forge_tools import hookimpl

        @hookimpl
        def tool_definition(tool_id, definition):
            definition.description = 7
    """)
    hooks = hooks_for(project)
    final, _, problems = hooks.rewrite_definition("x", "ok", {"type": "object"})
    [problem] = problems
    assert problem.plugin == "q" and "description to an int" in problem.message
    assert final["description"] == "ok"


def test_a_script_tools_bad_description_names_the_script_not_the_plugin(cli, project: Path) -> None:
    write_plugin(project, "p", NOOP_DEFINITION)
    script = project / FORGE / "tools" / "bad.py"
    script.parent.mkdir(parents=True, exist_ok=True)
    script.write_text("from forge_tools import tool\n\n\n@tool(description=5)\ndef bad(x: int) -> str:\n"
                      "    return 'x'\n")
    code, out, err = cli("layers", "--format", "json")
    assert code == 0
    problems = json.loads(out)["problems"]
    lines = [p["text"] for p in problems]
    assert not any("plugin p" in line or "tool_definition" in line for line in [*lines, err])
    [problem] = [p for p in problems if p["origin"]["path"] == str(script)]
    assert problem["kind"] == "script" and problem["name"] == "bad.py" and problem["origin"]["line"] == 4
    assert "description" in problem["message"] and "string" in problem["message"]
    assert f"{script}:4" in problem["text"]


def test_a_plugin_registered_tool_with_a_bad_description_is_the_plugins_own(project: Path) -> None:
    from forge_tools.sources.candidates import collect_candidates

    write_plugin(project, "reg", """
        from forge_tools import hookimpl
        from forge_tools.tools.contract import Tool

        @hookimpl
        def register_tools(register):
            register(Tool("ptool", None, {"type": "object"}, lambda a, c: ""))
            register(Tool("good", "fine", {"type": "object"}, lambda a, c: ""))
    """)
    hooks = hooks_for(project)
    result = collect_candidates([], [], hooks.register_tools())
    assert [c.id for c in result.candidates] == ["good"]
    [problem] = result.problems
    assert getattr(problem, "plugin", None) == "reg" and "'ptool'" in problem.message
    assert "NoneType, not a string" in problem.message


@pytest.mark.parametrize("spec", ["opencode-wakatime", "./plugins/x.ts", "plugins/y.js", "file://./z.mjs",
                                  "@scope/pkg@1.2", "opencode-helicone@1.2"])
def test_javascript_and_npm_plugins_are_noted_as_opencodes_not_blamed(project: Path, spec: str) -> None:
    origin = Origin("file", path=str(project / "opencode.json"), line=3, column=5)
    hooks = load_plugins([], [Spec(spec, origin, project)])
    assert hooks.problems == [] and hooks.names == []
    [note] = hooks.notes
    assert repr(spec) in note and "opencode.json:3:5" in note and "JavaScript/npm" in note
    assert "remove" not in note and "ImportError" not in note


def test_a_missing_python_module_name_mentions_that_npm_plugins_are_opencodes(project: Path) -> None:
    hooks = load_plugins([], [Spec("no_such_forge_plugin_xyz", Origin("file", path="forge.json"), project)])
    [problem] = hooks.problems
    assert "no Python module named 'no_such_forge_plugin_xyz'" in problem.message
    assert "npm" in problem.message and "remove" not in problem.message


def test_an_opencode_projects_npm_plugins_are_a_note_in_layers(cli, project: Path) -> None:
    (project / "opencode.json").write_text('{"plugin": ["opencode-wakatime", "./plugins/x.ts"]}')
    code, out, err = cli("layers")
    assert code == 0
    assert "remove it" not in err and "ImportError" not in err and "cannot import" not in err
    notes = [line for line in out.splitlines() if line.startswith("note:") and "JavaScript/npm" in line]
    assert len(notes) == 2 and "opencode-wakatime" in notes[0] and "x.ts" in notes[1]


def test_no_installed_entry_point_skips_the_metadata_lookup(project: Path, monkeypatch) -> None:
    """Without a `[forge_tools]` section in any installed distribution, `importlib.metadata` is not
    asked (nor imported, in a fresh process); one on `sys.path` is found."""
    import subprocess
    import sys

    from forge_tools.sources import plugin_refs as plugins

    code = ("import sys; from forge_tools.sources.plugin_refs import discover; discover([], []); "
            "print('importlib.metadata' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"
    assert not plugins.may_declare_entry_points()
    install_entry_point(project / "site", "late-dist", "late = json")
    monkeypatch.syspath_prepend(str(project / "site"))
    assert plugins.may_declare_entry_points()
    assert [r.name for r in plugins.entry_point_refs()] == ["late"]
