"""The committed completion scripts must match what the CLI generates now."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from forge_tools.cli.completion_scripts import FILE_NAMES, command_tree, render

REPO = Path(__file__).resolve().parents[2]
REGENERATE = "forge-tools completions --write completions"


@pytest.mark.parametrize("shell", sorted(FILE_NAMES))
def test_committed_script_is_current(shell: str) -> None:
    committed = REPO / "completions" / FILE_NAMES[shell]
    assert committed.exists(), f"missing {committed}; run `{REGENERATE}`"
    assert committed.read_text(encoding="utf-8") == render(shell), (
        f"{committed} is stale; run `{REGENERATE}` and commit the result"
    )


def test_every_command_and_option_is_offered() -> None:
    bash = render("bash")
    for command in command_tree():
        assert f"    \"{command.name}\")" in bash
        for option in command.options:
            for name in option.names:
                assert name in bash


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_script_parses_in_its_shell(shell: str, tmp_path: Path) -> None:
    exe = shutil.which(shell)
    if exe is None:
        pytest.skip(f"{shell} is not installed")
    script = tmp_path / FILE_NAMES[shell]
    script.write_text(render(shell), encoding="utf-8")
    args = [exe, "--no-execute", str(script)] if shell == "fish" else [exe, "-n", str(script)]
    proc = subprocess.run(args, capture_output=True, text=True, timeout=30)
    assert proc.returncode == 0, proc.stderr


def test_cli_writes_all_three(tmp_path: Path, cli) -> None:
    code, _, _ = cli("completions", "--write", str(tmp_path))
    assert code == 0
    for shell, name in FILE_NAMES.items():
        assert (tmp_path / name).read_text(encoding="utf-8") == render(shell)


def test_cli_rejects_unknown_shell(cli) -> None:
    code, _, err = cli("completions", "tcsh")
    assert code == 2
    assert "unknown shell 'tcsh'" in err


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("forge-tools out", {"outputs"}),
        ("forge-tools outputs ", {"clean", "list", "show"}),
        ("forge-tools outputs list --f", {"--format"}),
        ("forge-tools layers --flag ", {"lsp", "plan", "exa", "parallel", "question"}),
        ("forge-tools check --format ", {"text", "concise", "json", "github", "sarif", "auto"}),
        ("forge-tools config --format ", {"text", "json", "yaml", "toml"}),
        ("forge-tools completions ", {"bash", "zsh", "fish"}),
        ("forge-tools explain edit --agent p", {"plan"}),
        ("forge-tools explain ed", {"edit"}),
        ("forge-tools run gr", {"grep"}),
    ],
)
def test_bash_completes_commands_subcommands_and_values(
    line: str, expected: set[str], tmp_path: Path
) -> None:
    exe = shutil.which("bash")
    if exe is None:
        pytest.skip("bash is not installed")
    script = tmp_path / "c.bash"
    script.write_text(render("bash"), encoding="utf-8")
    words = line.split(" ")
    program = (
        f"source {script}\n"
        f"COMP_WORDS=({' '.join(repr(w) for w in words)})\n"
        f"COMP_CWORD={len(words) - 1}\n"
        "_forge_tools\n"
        'printf "%s\\n" "${COMPREPLY[@]}"\n'
    )
    proc = subprocess.run([exe, "-c", program], capture_output=True, text=True, timeout=30)
    assert proc.returncode == 0, proc.stderr
    assert set(proc.stdout.split()) == expected


def test_builtin_tool_ids_offered_for_explain_and_run_are_the_builtins() -> None:
    from forge_tools.cli.completion_scripts import render
    from forge_tools.tools.builtins import ALL_BUILTINS

    script = render("bash")  # read from the one builtin list: a new builtin is offered without an edit here
    assert all(tool_id in script for tool_id in ALL_BUILTINS if tool_id != "invalid")
    assert " invalid" not in script
