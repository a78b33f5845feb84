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
        ("forge-tools check --format ",
         {"text", "concise", "json", "github", "sarif", "junit", "gitlab", "auto"}),
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


# ------------------------------------------------------------ issue 18: MCP ids, --project, codes


def _complete_in_bash(line: str, tmp_path: Path, cwd: Path) -> set[str]:
    """What the bash script offers for `line`, asking the real `forge-tools __complete`."""
    import os
    import sys

    exe = shutil.which("bash")
    if exe is None:
        pytest.skip("bash is not installed")
    script = tmp_path / "c.bash"
    script.write_text(render("bash"), encoding="utf-8")
    words = line.split(" ")
    program = (f"source {script}\nCOMP_WORDS=({' '.join(repr(w) for w in words)})\n"
               f"COMP_CWORD={len(words) - 1}\n_forge_tools\nprintf '%s\\n' \"${{COMPREPLY[@]}}\"\n")
    bindir = Path(sys.executable).parent
    env = {**os.environ, "PATH": f"{bindir}{os.pathsep}{os.environ.get('PATH', '')}"}
    proc = subprocess.run([exe, "-c", program], capture_output=True, text=True, timeout=120, cwd=cwd,
                          env=env)
    assert proc.returncode == 0, proc.stderr
    return set(proc.stdout.split())


def _project_with_a_cached_mcp_server(root: Path, cwds: list[Path]) -> None:
    """A project with one MCP server whose listing is cached as a command run from each of `cwds`
    would have cached it (the server's working directory is part of its cache key)."""
    import json

    from forge_tools.config import load_project
    from forge_tools.sources.mcp import ListingCache, McpToolDef, servers_from_config

    root.mkdir()
    (root / ".git").mkdir()
    (root / "opencode.json").write_text(json.dumps({
        "mcp": {"docs": {"type": "local", "command": ["never-started-server"]}},
        "agent": {"reviewer": {"mode": "subagent", "prompt": "review"}}}))
    for cwd in cwds:
        loaded = load_project(root, cwd=cwd)
        servers, problems = servers_from_config(loaded.tree, loaded.cwd)
        assert not problems
        ListingCache.from_env().put(servers[0], [McpToolDef("search", "Search the docs", {"type": "object"})])


def test_completion_offers_cached_mcp_ids_for_a_project_already_typed(tmp_path: Path, project: Path) -> None:
    other = tmp_path / "other"
    _project_with_a_cached_mcp_server(other, [project, other])
    assert "docs_search" not in _complete_in_bash("forge-tools explain docs", tmp_path, project)
    assert _complete_in_bash(f"forge-tools explain --project {other} docs", tmp_path, project) == \
        {"docs_search"}
    assert _complete_in_bash(f"forge-tools --project {other} run docs_", tmp_path, project) == {"docs_search"}
    assert _complete_in_bash(f"forge-tools --project {other} layers --agent rev", tmp_path, project) == \
        {"reviewer"}
    # run in the project itself, the id comes from the cache too (no server was ever started)
    assert _complete_in_bash("forge-tools explain docs_", tmp_path, other) == {"docs_search"}


def test_completion_offers_finding_codes(tmp_path: Path, project: Path) -> None:
    from forge_tools.check.codes import CODES

    ft10 = {c for c in CODES if c.startswith("FT10")}
    assert ft10 and _complete_in_bash("forge-tools check --select FT10", tmp_path, project) == ft10
    assert _complete_in_bash("forge-tools check --ignore FT10", tmp_path, project) == ft10
    assert _complete_in_bash("forge-tools rule FT10", tmp_path, project) == ft10


def test_completion_offers_the_ids_the_script_sources_scan(tmp_path: Path, project: Path) -> None:
    """Tool ids come from the same static scan `check` asks the sources for: forge's Python scripts
    and opencode's script tools, neither run (a script that would write a marker is not imported)."""
    marker = tmp_path / "imported"
    (project / ".forge" / "tools").mkdir(parents=True)
    (project / ".forge" / "tools" / "deploy.py").write_text(
        f"import pathlib\npathlib.Path({str(marker)!r}).write_text('x')\nfrom forge_tools import tool\n\n"
        "@tool\ndef default() -> str:\n    return ''\n")
    (project / ".opencode" / "tool").mkdir(parents=True)
    (project / ".opencode" / "tool" / "db.ts").write_text(
        'export const drop = { description: "Drop", args: {}, async execute() { return "" } }\n')
    assert _complete_in_bash("forge-tools explain de", tmp_path, project) == {"deploy"}
    assert _complete_in_bash("forge-tools run db_", tmp_path, project) == {"db_drop"}
    assert not marker.exists()
