"""typer >= 0.26 converts every parameter value through a pydantic TypeAdapter built per parameter on
each start; forge-tools gives its parameters plain conversion and leaves only the unusual values to
typer (cli/coercion.py). These tests pin that every parameter has it, that no adapter is built for
plain values, and that typer still words every refusal."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.skipif(not hasattr(__import__("typer.core").core, "_TyperParameter"),
                                reason="typer < 0.26 converts through click types (no adapters)")

PROBE = """
import io, json, sys
from contextlib import redirect_stdout, redirect_stderr
from forge_tools.cli.app import run
with redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()):
    code = run(sys.argv[1:])
print(json.dumps({"code": code, "adapters": "typer._adapters" in sys.modules}))
"""


def probe(cwd: Path, *args: str) -> dict[str, Any]:
    proc = subprocess.run([sys.executable, "-c", PROBE, *args], cwd=cwd, capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def test_every_parameter_of_every_command_is_plain_coerced() -> None:
    import typer.main

    from forge_tools.cli.app import build_app
    from forge_tools.cli.coercion import install_plain_coercion

    command = typer.main.get_command(build_app())
    installed = install_plain_coercion(command)
    params = 0
    stack = [command]
    while stack:
        cmd = stack.pop()
        stack.extend(getattr(cmd, "commands", {}).values())
        for param in [*cmd.params, cmd._help_option]:
            params += 1
            # a new annotation (int, an enum ...) needs a plain converter in cli/coercion._leaf
            assert type(param._runtime_param).__name__ == "PlainRuntimeParam", (cmd.name, param.name)
    assert installed == params > 50


def test_plain_values_build_no_adapter(project: Path) -> None:
    (project / "forge.json").write_text('{"permission": {"bash": "ask"}}')
    runs = [
        ("explain", "bash", "--format", "json", "--flag", "lsp", "--config", "forge.json", "--project", "."),
        ("layers", "--format", "json"),
        ("check", "--format", "concise", "--select", "FT1"),
        ("explain", "--help"),
        ("--help",),
    ]
    for args in runs:
        result = probe(project, *args)
        assert result["code"] in (0, 1), args
        assert result["adapters"] is False, args


def test_a_wrong_choice_is_refused_in_typers_words(cli: Any) -> None:
    code, _out, err = cli("layers", "--format", "xml")
    assert code == 2
    assert "'xml' is not one of 'text', 'json'" in err
    assert err.count("\n") == 1


def test_a_number_written_unusually_still_reaches_typer(cli: Any) -> None:
    # `1e1` is not plain digits: typer's own adapter accepts it; `soon` it refuses in its own words
    code, out, err = cli("run", "bash", "--timeout", "1e1", "--yes", "--format", "json",
                         "--args", '{"command": "echo hi"}')
    assert code == 0, err
    assert json.loads(out)["result"]["output"].strip() == "hi"
    code, _out, err = cli("run", "bash", "--timeout", "soon", "--args", '{"command": "echo hi"}')
    assert code == 2
    assert "--timeout" in err and "valid number" in err


def test_repeated_paths_are_all_converted(cli: Any, project: Path) -> None:
    (project / "a.json").write_text('{"permission": {"bash": "deny"}}')
    (project / "b.json").write_text('{"permission": {"read": "deny"}}')
    code, out, _err = cli("layers", "--format", "json", "--config", "a.json", "--config", "b.json")
    assert code in (0, 1)
    rows = {row["id"]: row for row in json.loads(out)["tools"]}
    assert rows["bash"]["visible"] is False and rows["read"]["visible"] is False
    assert rows["edit"]["visible"] is True
