"""Start-up stays lean: `explain` (measured by bench/bench_explain.py) must not import the heavy
modules that only some commands or tools need. A regression here costs every command tens of ms."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

HEAVY = ("httpx", "markdownify", "tree_sitter", "tree_sitter_bash", "tree_sitter_bash._binding",
         "tree_sitter_toml", "tree_sitter_toml._binding", "importlib.resources", "regex",
         "html.parser", "asyncio", "rich", "json5", "yaml", "tomli_w", "jsonschema", "ssl",
         "typer._adapters")

PROBE = f"""
import io, json, sys
from contextlib import redirect_stdout
from forge_tools.cli.app import run
with redirect_stdout(io.StringIO()):
    code = run(sys.argv[1:])
print(json.dumps({{"code": code, "loaded": [m for m in {HEAVY!r} if m in sys.modules]}}))
"""


def probe_json(code: str, project: Path, *args: str) -> dict[str, Any]:
    """Run `code` (a probe that prints one JSON line last) in a fresh interpreter in `project`."""
    proc = subprocess.run([sys.executable, "-c", code, *args], cwd=project, capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    data: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return data


def imported_by(project: Path, *args: str) -> tuple[int, list[str]]:
    data = probe_json(PROBE, project, *args)
    return data["code"], data["loaded"]


def test_explain_imports_no_heavy_module(project: Path) -> None:
    (project / "forge.json").write_text('{"permission": {"bash": {"*": "ask", "rm *": "deny"}}}')
    code, loaded = imported_by(project, "explain", "bash")
    assert code == 0
    assert loaded == []


def test_a_toml_config_loads_the_toml_grammar_only(project: Path) -> None:
    # tomllib has no positions: the tree-sitter TOML grammar locates keys, only when a TOML file is read
    (project / "forge.toml").write_text('[permission.bash]\n"*" = "ask"\n"rm *" = "deny"\n')
    code, loaded = imported_by(project, "explain", "bash")
    assert code == 0
    # only the grammar's compiled language: its package's __init__ imports importlib.resources (~5 ms)
    assert loaded == ["tree_sitter", "tree_sitter_toml._binding"]


def test_explain_call_on_bash_loads_the_shell_parser_only_then(project: Path) -> None:
    code, loaded = imported_by(project, "explain", "bash", "--call", '{"command": "ls && rm x"}')
    assert code == 0
    assert "tree_sitter_bash._binding" in loaded


def test_layers_and_check_in_a_pipe_do_not_import_rich(project: Path) -> None:
    (project / "forge.toml").write_text('[permission.bash]\n"*" = "ask"\n"rm *" = "deny"\n')
    for args in (["layers"], ["layers", "--format", "json"], ["check"]):
        _code, loaded = imported_by(project, *args)
        assert "rich" not in loaded, args


# What the commands import and build once the config is loaded (the config's own validation is
# measured apart): on bench/ratios.py's small project, no builtin tool module, no pydantic model, no
# plugin machinery, no reader for files the project does not have.
def _bench_small_project() -> tuple[str, str]:
    """bench/bench_explain.py's config and script tool: the project the start-up figures measure."""
    import importlib.util

    path = Path(__file__).resolve().parents[2] / "bench" / "bench_explain.py"
    spec = importlib.util.spec_from_file_location("_bench_explain", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.FORGE_TOML, module.SCRIPT


SMALL_TOML, COUNT_LINES = _bench_small_project()
NOT_ON_THE_PATH = ("pydantic.main", "importlib.metadata", "email", "pluggy", "tree_sitter_typescript",
                   "tree_sitter_javascript", "forge_tools.sources.opencode_scripts",
                   "forge_tools.sources.mcp", "forge_tools.check.expect", "forge_tools.tools.wrapper",
                   "hashlib", "forge_tools.sources.plugins", "forge_tools.tools.context",
                   "forge_tools.permission.overrides", "forge_tools.check.code_problems",
                   "forge_tools.config.skills", "tempfile")

AFTER_CONFIG = f"""
import io, json, sys
from contextlib import redirect_stdout
from forge_tools.config import load_project

load_project(None)
before = set(sys.modules)

def models():
    main = sys.modules.get("pydantic.main")
    found, todo = set(), [main.BaseModel] if main else []
    while todo:
        for sub in todo.pop().__subclasses__():
            if sub not in found:
                found.add(sub)
                todo.append(sub)
    return found

built = models()
if sys.argv[1] == "library":
    import forge_tools
    verdict = forge_tools.tool_visibility(None, "bash", load_code=True)
    code = 0 if verdict.visible else 1
else:
    from forge_tools.cli.app import run
    with redirect_stdout(io.StringIO()):
        code = run(sys.argv[1:])
new = set(sys.modules) - before
print(json.dumps({{"code": code,
                  "loaded": sorted(m for m in new if m in {NOT_ON_THE_PATH!r}
                                   or m.startswith("forge_tools.tools.builtins.")
                                   and not m.rpartition(".")[2].startswith("_")),
                  "models": sorted(m.__qualname__ for m in models() - built)}}))
"""


def after_config(project: Path, *args: str) -> dict[str, object]:
    return probe_json(AFTER_CONFIG, project, *args)


def test_the_small_project_commands_build_no_model_and_import_no_tool(project: Path) -> None:
    (project / "forge.toml").write_text(SMALL_TOML)
    (project / ".forge" / "tools").mkdir(parents=True)
    (project / ".forge" / "tools" / "count_lines.py").write_text(COUNT_LINES)
    # the first listing builds the script tool's model once and keeps its schema in the data dir
    assert after_config(project, "layers")["models"] == ["CountLinesArgs"]
    for args in (["explain", "bash"], ["layers"], ["layers", "--format", "json"], ["check"], ["library"]):
        assert after_config(project, *args) == {"code": 0, "loaded": [], "models": []}, args


def test_explain_call_decides_valid_input_without_the_tools_model(project: Path) -> None:
    """A call the shipped validator accepts is decided without bash's module or any pydantic model
    (`tools/arguments.py`); input it refuses is validated by the model, which says what is wrong."""
    (project / "forge.toml").write_text(SMALL_TOML)
    data = after_config(project, "explain", "bash", "--call", '{"command": "git status"}')
    assert (data["code"], data["models"]) == (0, [])
    # only what the call's permission requests are made of (the lean table, and a context for them)
    assert data["loaded"] == ["forge_tools.tools.builtins.bash_requests",
                              "forge_tools.tools.builtins.requests", "forge_tools.tools.context"]
    data = after_config(project, "explain", "bash", "--call", '{"command": "git status", "timeout": 0}')
    assert data["models"] == ["BashArgs"]
    assert "forge_tools.tools.builtins.bash" in data["loaded"]  # type: ignore[operator]


def test_a_config_file_imports_its_own_format_module_alone(project: Path) -> None:
    probe = PROBE.replace(repr(HEAVY), repr(("pkgutil", "forge_tools.config.formats.json_format",
                                             "forge_tools.config.formats.yaml_format",
                                             "forge_tools.config.formats.toml_format")))
    (project / "forge.toml").write_text(SMALL_TOML)
    for args in (["explain", "bash"], ["layers"], ["check"]):
        proc = subprocess.run([sys.executable, "-c", probe, *args], cwd=project, capture_output=True,
                              text=True, timeout=60)
        assert proc.returncode == 0, proc.stderr
        assert json.loads(proc.stdout.strip().splitlines()[-1])["loaded"] == [
            "forge_tools.config.formats.toml_format"], args


# --- an opencode-only project imports no other agent's runtime (issue 31) ---------------------------

#: what each agent's package may load when its files are only looked for: the module naming its files
#: and the paths they live at (the package itself, whose `RUNTIME` is imported when asked)
FINDING_FILES = ("", ".files", ".paths")
#: data modules whose records a finding's code table quotes (`check`'s registry reads every code)
CODE_TABLES = {"forge_tools.runtimes.gemini.codes"}
OTHER_AGENTS = ("claude", "codex", "gemini")

RUNTIME_PROBE = """
import io, json, sys
from contextlib import redirect_stdout
from forge_tools.cli.app import run
with redirect_stdout(io.StringIO()):
    code = run(sys.argv[1:])
print(json.dumps({"code": code, "loaded": sorted(m for m in sys.modules if m.startswith("forge_tools.")
                                                 or m.split(".")[0] in ("tree_sitter", "pydantic",
                                                                         "pydantic_core"))}))
"""


def _other_agents_modules(loaded: list[str]) -> list[str]:
    allowed = {f"forge_tools.runtimes.{agent}{tail}" for agent in OTHER_AGENTS for tail in FINDING_FILES}
    return [m for m in loaded if any(m.startswith(f"forge_tools.runtimes.{a}") for a in OTHER_AGENTS)
            and m not in allowed and m not in CODE_TABLES]


def test_an_opencode_project_imports_no_other_agents_runtime(project: Path) -> None:
    """`explain bash`, `explain bash --call` and `check` in a project with only opencode's files import
    none of Claude Code's, Codex CLI's or Gemini CLI's runtime modules (rules, deciders, shell
    lowerings, tool tables), nor forge-tools' gate runtime; tree-sitter only for a bash line."""
    (project / "opencode.json").write_text('{"permission": {"bash": {"*": "allow", "rm *": "deny"}}}')
    for args, parses in ((["explain", "bash"], False), (["layers"], False),
                         (["explain", "bash", "--call", '{"command": "ls"}'], True), (["check"], True)):
        data = probe_json(RUNTIME_PROBE, project, *args)
        loaded = data["loaded"]
        assert data["code"] in (0, 1), args
        assert "forge_tools.runtimes.opencode.runtime" in loaded, args  # the answering runtime
        assert _other_agents_modules(loaded) == [], args
        assert "forge_tools.runtimes.forge.runtime" not in loaded, args
        assert ("tree_sitter" in loaded) is parses, args
        # the config's validator and bash's shipped one need pydantic_core's extension, not its package
        assert [m for m in loaded if m.startswith("pydantic")] == ["pydantic_core._pydantic_core"], args


def test_the_import_set_check_sees_another_agents_runtime(project: Path) -> None:
    """The check above fails when a runtime module of another agent is imported: the same probe in a
    project with Claude Code's files as well imports Claude's runtime, and is caught."""
    (project / "opencode.json").write_text('{"permission": {"bash": {"*": "allow"}}}')
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text('{"permissions": {"deny": ["Bash(rm:*)"]}}')
    data = probe_json(RUNTIME_PROBE, project, "check")
    assert "forge_tools.runtimes.claude.runtime" in _other_agents_modules(data["loaded"])


HELP_PROBE = """
import contextlib, io, json, sys
from forge_tools.cli.app import run
with contextlib.suppress(SystemExit), contextlib.redirect_stdout(io.StringIO()) as out:
    run(sys.argv[1:])
print(json.dumps({"printed": len(out.getvalue()), "loaded": sorted(sys.modules)}))
"""


def test_help_and_completions_import_nothing_heavy(project: Path) -> None:
    """`--help` and the completion scripts build the CLI only: no agent's runtime, no parser, no model."""
    (project / "opencode.json").write_text('{"permission": {"bash": {"*": "allow"}}}')
    for args in (["--help"], ["completions", "bash"]):
        data = probe_json(HELP_PROBE, project, *args)
        assert data["printed"] > 0, args
        heavy = [m for m in data["loaded"] if m.startswith(("tree_sitter", "pydantic.main", "httpx", "mcp"))
                 or (m.startswith("forge_tools.runtimes.")
                     # the registry, and the hook agents' table (stdlib only) for `hook --runtime`'s values
                     and m not in ("forge_tools.runtimes.base", "forge_tools.runtimes.hooks"))]
        assert heavy == [], args
