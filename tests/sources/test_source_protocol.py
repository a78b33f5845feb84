"""Every source implements one protocol (`tools.contract.Source`), and its static answer (`scan`: what
`check` reads, nothing of the project runs) and its loaded answer (`load`: what `layers --load-code`
reads) agree on the ids they list and on where each came from. Plugins and MCP servers cannot list
tools without running code: their scan names each plugin or server as unlisted, at the origin its
loaded tools carry."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from forge_tools.config import LoadOptions, load_config
from forge_tools.sources import SOURCE_MODULES, all_sources, ask
from forge_tools.tools.contract import Source, SourceQuery
from forge_tools.visibility.pipeline import Request, source_query

SERVER = Path(__file__).with_name("mcp_demo_server.py")


def query(project: Path, **request: object) -> SourceQuery:
    loaded = load_config(LoadOptions(cwd=project))
    return source_query(loaded, Request(**request))  # type: ignore[arg-type]


def source(name: str) -> Source:
    return next(s for s in all_sources() if s.name == name)


def listed(listing) -> list[tuple[str, object]]:  # type: ignore[no-untyped-def]
    return [(entry.id, entry.source) for entry in listing.tools]


def test_every_source_module_gives_one_source_in_merge_order() -> None:
    sources = all_sources()
    assert len(sources) == len(SOURCE_MODULES)
    assert [s.name for s in sources] == ["builtins", "scripts", "opencode-scripts", "plugins", "mcp"]
    for s in sources:
        assert isinstance(s, Source), s


def test_builtins_scan_and_load_agree(project: Path) -> None:
    q = query(project, flags=frozenset({"lsp"}))
    scan, load = source("builtins").scan(q), source("builtins").load(q)
    assert listed(scan) == listed(load)
    ids = [i for i, _ in listed(scan)]
    assert ids[:3] == ["invalid", "question", "bash"] and "lsp" in ids and "plan_exit" not in ids
    assert {where.kind for _, where in listed(scan)} == {"builtin"}  # type: ignore[attr-defined]


def test_python_scripts_scan_and_load_agree_and_scan_imports_nothing(project: Path, write_file) -> None:
    marker = project / "imported"
    write_file(project / ".forge" / "tools" / "deploy.py", f"""
        import pathlib
        from forge_tools import Tool, tool

        pathlib.Path({str(marker)!r}).write_text("imported")

        @tool
        def default(env: str) -> str:
            return env

        @tool(name="ignored")
        def rollback() -> str:
            return "ok"

        status = Tool(id="x", description="status", parameters={{"type": "object"}},
                      execute=lambda args, ctx: "fine")
        _private = default
    """)
    (project / "forge.json").write_text("{}")
    q = query(project)
    scan = source("scripts").scan(q)
    assert not marker.exists()
    assert not scan.problems and all(entry.tool is None for entry in scan.tools)
    load = source("scripts").load(q)
    assert marker.exists()
    assert listed(scan) == listed(load)
    assert [i for i, _ in listed(scan)] == ["deploy", "deploy_rollback", "deploy_status"]
    lines = [where.line for _, where in listed(scan)]  # type: ignore[attr-defined]
    assert lines == [7, 11, 14]  # the `def` lines, and the assignment's


def test_a_broken_script_is_a_located_problem_in_both_answers(project: Path, write_file) -> None:
    write_file(project / ".forge" / "tools" / "bad.py", "from forge_tools import tool\n\ndef oops(:\n")
    q = query(project)
    for listing in (source("scripts").scan(q), source("scripts").load(q)):
        [problem] = listing.problems
        assert problem.origin.path.endswith("bad.py") and problem.origin.line == 3, problem.one_line()


def test_opencode_scripts_scan_and_load_agree(project: Path, write_file) -> None:
    write_file(project / ".opencode" / "tool" / "db.ts", """
        import { tool } from "@opencode-ai/plugin"
        export default tool({ description: "Query the db", args: {}, async execute() { return "" } })
        export const drop = tool({ description: "Drop it", args: {}, async execute() { return "" } })
    """)
    q = query(project)
    scan, load = source("opencode-scripts").scan(q), source("opencode-scripts").load(q)
    assert listed(scan) == listed(load) and [i for i, _ in listed(scan)] == ["db", "db_drop"]
    assert {(w.kind, w.flavour) for _, w in listed(scan)} == {("script", "opencode")}  # type: ignore[attr-defined]


def test_plugins_scan_names_the_plugins_load_imports_at_their_origins(project: Path, write_file) -> None:
    marker = project / "imported"
    body = f"""
        import pathlib
        from forge_tools import hookimpl, tool

        pathlib.Path({str(marker)!r}).write_text("imported")

        @tool
        def {{name}}() -> str:
            return "ok"

        @hookimpl
        def register_tools(register):
            register({{name}})
    """
    write_file(project / ".forge" / "plugins" / "alpha.py", body.replace("{name}", "alpha_tool"))
    write_file(project / "plug" / "beta.py", body.replace("{name}", "beta_tool"))
    plugins = ["./plug/beta.py", "opencode-wakatime@1.2"]
    (project / "opencode.json").write_text(json.dumps({"plugin": plugins}))
    q = query(project)
    scan = source("plugins").scan(q)
    assert not marker.exists()
    assert not scan.tools
    load = source("plugins").load(q)
    assert marker.exists() and not load.problems
    assert sorted(i for i, _ in listed(load)) == ["alpha_tool", "beta_tool"]
    # the same plugins, at the same origins: what scan says is unlisted is what load lists
    assert sorted((u.source.plugin, u.source.path) for u in scan.unlisted) == \
        sorted((w.plugin, w.path) for _, w in listed(load))  # type: ignore[attr-defined]
    # the npm entry is opencode's: both answers say so, neither counts it as a plugin
    for listing in (scan, load):
        assert any("opencode-wakatime" in note and "JavaScript" in note for note in listing.notes)


def test_pure_finds_no_plugin_in_either_answer(project: Path, write_file) -> None:
    write_file(project / ".forge" / "plugins" / "alpha.py", "raise SystemExit('imported!')\n")
    q = query(project, pure=True)
    for listing in (source("plugins").scan(q), source("plugins").load(q)):
        assert not listing.tools and not listing.unlisted and not listing.problems


def mcp_config(project: Path, log: Path) -> None:
    (project / "opencode.json").write_text(json.dumps({"mcp": {
        "demo": {"type": "local", "command": [sys.executable, str(SERVER)],
                 "environment": {"DEMO_LOG": str(log)}},
        "off": {"type": "local", "command": [sys.executable, str(SERVER)], "enabled": False},
    }}, indent=2))


def test_mcp_scan_starts_nothing_and_names_the_servers_load_lists(project: Path, tmp_path: Path) -> None:
    log = tmp_path / "starts.log"
    mcp_config(project, log)
    q = query(project)
    scan = source("mcp").scan(q)
    assert not log.exists() and not scan.tools
    assert [u.label for u in scan.unlisted] == ["demo", "off"]
    load = source("mcp").load(q)
    assert log.exists() and not load.problems and not load.unlisted
    ids = [i for i, _ in listed(load)]
    assert "demo_echo" in ids and all(i.startswith("demo_") for i in ids)
    # the started server's tools carry the origin its scan named (the `mcp.demo` key's line)
    [demo] = [u for u in scan.unlisted if u.label == "demo"]
    assert {w for _, w in listed(load)} == {demo.source} and demo.source.line is not None
    assert all(i.startswith(demo.prefix) for i in ids)  # type: ignore[arg-type]


def test_no_mcp_starts_nothing_in_either_answer(project: Path, tmp_path: Path) -> None:
    log = tmp_path / "starts.log"
    mcp_config(project, log)
    q = query(project, no_mcp=True)
    for listing in (source("mcp").scan(q), source("mcp").load(q)):
        assert not listing.tools and [u.label for u in listing.unlisted] == ["demo", "off"]
        assert any(note.startswith("--no-mcp") for note in listing.notes)
    assert not log.exists()


@pytest.mark.parametrize("load_code", [False, True])
def test_ask_puts_every_source_in_merge_order(project: Path, write_file, load_code: bool) -> None:
    write_file(project / ".forge" / "tools" / "read.py", "from forge_tools import tool\n\n@tool\n"
               "def default() -> str:\n    return ''\n")
    answers = ask(query(project), load_code)
    assert [s.name for s, _ in answers] == [s.name for s in all_sources()]
    scripts = dict((s.name, listing) for s, listing in answers)["scripts"]
    assert [i for i, _ in listed(scripts)] == ["read"]  # shadows the builtin when merged
