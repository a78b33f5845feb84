"""opencode's TypeScript/JavaScript script tools: found from the syntax tree, never run."""

from __future__ import annotations

import json
from pathlib import Path

from forge_tools.sources.opencode_scripts import scan_opencode_script

DB_TS = '''import { tool } from "@opencode-ai/plugin"
export default tool({
  description: "Query the project database",
  args: { query: tool.schema.string().describe("SQL") },
  async execute(args) { return "x" },
})
export const add = tool({
  description: `Add two numbers`,
  args: {},
  execute: async () => "3",
})
const hidden = tool({ description: 'Kept \\u0041', args: {}, execute() { return "" } })
export const multiply = tool({ description: "Multiply " + name, args: {}, async execute() { return "" } })
export { hidden as renamed }
export type Row = { id: number }
export interface Shape { x: number }
'''


def write(project: Path, name: str, text: str, folder: str = "tool") -> Path:
    path = project / ".opencode" / folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_ids_follow_opencode_default_and_named_exports(project: Path) -> None:
    path = write(project, "db.ts", DB_TS)
    tools, problems = scan_opencode_script(path)
    assert problems == []
    # a module namespace lists exports by name; type-only exports do not exist at run time
    assert [(t.id, t.export) for t in tools] == [
        ("db_add", "add"), ("db", "default"), ("db_multiply", "multiply"), ("db_renamed", "renamed")]
    described = {t.id: t.description for t in tools}
    assert described == {"db_add": "Add two numbers", "db": "Query the project database",
                         "db_multiply": None, "db_renamed": "Kept A"}
    assert [(t.line, t.column) for t in tools][1] == (2, 1)


def test_javascript_and_the_tools_folder(project: Path) -> None:
    path = write(project, "fmt.js", 'export function pretty() {}\n'
                 'export default { description: "Format", args: {}, execute() {} }\n', folder="tools")
    tools, problems = scan_opencode_script(path)
    # a function export is no tool: opencode 1.18.33 makes tools only of exports with args,
    # description and execute (tests/compat/layouts/tool-exports)
    assert problems == [] and [(t.id, t.description) for t in tools] == [("fmt", "Format")]


def test_exports_that_are_not_tools_are_not_tools(project: Path) -> None:
    path = write(project, "db.ts", 'export const VERSION = "1"\n'
                 'export const settings = { description: "x" }\n'
                 'export class Pool {}\nexport const tools = tool({ description: "no execute", args: {} })\n'
                 'export const ok = tool({ description: "y", args: {}, async execute() { return "" } })\n'
                 'export const later = makeTool()\n')
    tools, problems = scan_opencode_script(path)
    # only `ok`, and `later`, which the syntax cannot rule out (opencode may find a tool there)
    assert problems == [] and [t.id for t in tools] == ["db_later", "db_ok"]


def test_a_syntax_error_or_a_star_reexport_is_located(project: Path) -> None:
    broken = write(project, "bad.ts", "export const x = tool({ description: 'a' \n")
    tools, [problem] = scan_opencode_script(broken)
    assert tools == [] and problem.line is not None and "syntax error" in problem.message
    star = write(project, "star.ts", 'export * from "./other"\n'
                 'export const ok = tool({ args: {}, description: "", execute() {} })\n')
    tools, [problem] = scan_opencode_script(star)
    assert [t.id for t in tools] == ["star_ok"] and problem.line == 1 and "re-exports" in problem.message


def test_layers_explain_run_and_check(project: Path, cli) -> None:
    write(project, "db.ts", DB_TS)
    (project / "opencode.json").write_text(json.dumps({"permission": {"db_add": "deny", "db": "ask"}}))
    code, out, err = cli("layers", "--format", "json")
    assert code == 0, err
    tools = {t["id"]: t for t in json.loads(out)["tools"]}
    assert tools["db"]["source"]["flavour"] == "opencode" and tools["db"]["visible"]
    assert tools["db_add"]["hidden_at"] == "permission"
    code, out, _ = cli("layers")
    assert "script (opencode) .opencode/tool/db.ts" in out
    code, out, _ = cli("explain", "db")
    assert code == 0 and "Query the project database" in out
    code, out, err = cli("run", "db", "--args", "{}", "--yes")
    assert code == 1 and "cannot run tool 'db'" in out + err and "opencode" in out + err
    assert "allowed" not in err  # refused before anyone is asked
    for extra in ((), ("--load-code",)):
        code, out, err = cli("check", *extra)
        assert "FT101" not in out, out
    (project / "opencode.json").write_text(json.dumps({"permission": {"db_ad": "deny"}}))
    code, out, _ = cli("check")
    assert "FT101" in out and "db_add" in out


def test_the_global_opencode_tool_dir(project: Path, cli, isolated_env: dict[str, Path]) -> None:
    folder = isolated_env["home"] / ".config" / "opencode" / "tool"
    folder.mkdir(parents=True)
    (folder / "deploy.ts").write_text(
        'export default tool({ description: "Deploy it", args: {}, execute() {} })\n')
    code, out, err = cli("layers", "--format", "json")
    assert code == 0, err
    tools = {t["id"]: t for t in json.loads(out)["tools"]}
    assert tools["deploy"]["source"]["path"] == str((folder / "deploy.ts").resolve())


def test_check_reports_a_broken_opencode_tool_file(project: Path, cli) -> None:
    write(project, "bad.ts", "export const x = tool({ description: 'a' \n")
    for extra in ((), ("--load-code",)):
        _, out, _ = cli("check", "--format", "json", *extra)
        [finding] = [f for f in json.loads(out)["findings"] if f["code"] == "FT009"]
        assert finding["location"]["path"].endswith("bad.ts") and finding["level"] == "warning"


def _params(project: Path, text: str, name: str = "t.ts") -> tuple[object, object]:
    [found], problems = scan_opencode_script(write(project, name, text))
    assert problems == []
    return found.parameters, found.parameters_problem


def test_zod_args_under_aliases_and_shared_objects(project: Path) -> None:
    """`tool` imported under another name, `* as z` from zod, and `args` naming a module-level object."""
    text = '''import { tool as t } from "@opencode-ai/plugin"
import * as zz from "zod"
const shared = { path: t.schema.string(), depth: zz.number().nonnegative().optional(),
                 tags: zz.record(zz.string(), zz.boolean()).optional() }
export default t({ description: "d", args: shared, async execute() { return "" } })
'''
    schema, why = _params(project, text)
    assert why is None
    assert schema == {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object",
                      "properties": {"path": {"type": "string"}, "depth": {"type": "number", "minimum": 0},
                                     "tags": {"type": "object", "propertyNames": {"type": "string"},
                                              "additionalProperties": {"type": "boolean"}}},
                      "required": ["path"]}


def test_unreadable_args_say_where(project: Path) -> None:
    """A value that is not a zod chain (a variable, a method the reader does not know) leaves the
    schema unread, with file:line:col; `explain` then says so instead of `parameters: none`."""
    text = '''import { tool } from "@opencode-ai/plugin"
const kind = tool.schema.string()
export default tool({ description: "d", args: {
  a: tool.schema.string(),
  b: kind,
}, async execute() { return "" } })
'''
    path = write(project, "u.ts", text)
    schema, why = _params(project, text, "u.ts")
    assert schema is None and why == f"{path}:5:6: `kind` is not a zod call"
    from forge_tools.sources.opencode_scripts import opencode_tool, scan_opencode_script

    [found], _ = scan_opencode_script(path)
    assert "parameters not read (TypeScript): " + str(why) == opencode_tool(found).parameters["description"]
    transform = text.replace("b: kind,", "b: tool.schema.string().transform((s) => s.length),")
    assert "`.transform(...)` is not a zod string method" in str(_params(project, transform, "u.ts")[1])
