"""Start-up stays lean: `explain` (measured by bench/bench_explain.py) must not import the heavy
modules that only some commands or tools need. A regression here costs every command tens of ms."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

HEAVY = ("httpx", "markdownify", "tree_sitter", "tree_sitter_bash", "tree_sitter_toml", "regex",
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


def imported_by(project: Path, *args: str) -> tuple[int, list[str]]:
    proc = subprocess.run([sys.executable, "-c", PROBE, *args], cwd=project, capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout.strip().splitlines()[-1])
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
    assert loaded == ["tree_sitter", "tree_sitter_toml"]


def test_explain_call_on_bash_loads_the_shell_parser_only_then(project: Path) -> None:
    code, loaded = imported_by(project, "explain", "bash", "--call", '{"command": "ls && rm x"}')
    assert code == 0
    assert "tree_sitter_bash" in loaded


def test_layers_and_check_in_a_pipe_do_not_import_rich(project: Path) -> None:
    (project / "forge.toml").write_text('[permission.bash]\n"*" = "ask"\n"rm *" = "deny"\n')
    for args in (["layers"], ["layers", "--format", "json"], ["check"]):
        _code, loaded = imported_by(project, *args)
        assert "rich" not in loaded, args
