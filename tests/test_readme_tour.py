"""The README's commands work as pasted: the tour block runs in real bash in an empty directory, and
the recipes' commands give the answers the README describes."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
BIN = Path(sys.executable).parent


def sh_blocks(after: str) -> list[str]:
    section = README[README.index(after):]
    section = section[:section.index("\n## ", 1)] if "\n## " in section[1:] else section
    return re.findall(r"```sh\n(.*?)```", section, re.S)


@pytest.fixture
def shell(tmp_path: Path, isolated_env: dict[str, Path]):
    if not (BIN / "forge-tools").exists():
        pytest.fail(f"no forge-tools script beside {sys.executable}: install the package (README)")
    work = tmp_path / "tour"
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("FORGE_", "OPENCODE_"))}
    env.update(PATH=f"{BIN}{os.pathsep}{env.get('PATH', '')}", HOME=str(isolated_env["home"]),
               FORGE_DATA_DIR=str(isolated_env["data"]), NO_COLOR="1", COLUMNS="200")

    def run(script: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["bash", "-e", "-c", script], cwd=work, env=env, capture_output=True,
                              text=True, timeout=300, check=False)

    run.cwd = work  # type: ignore[attr-defined]
    return run


def test_tour_runs_as_pasted(shell) -> None:
    [tour] = sh_blocks("## A tour")
    done = shell(tour)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert (shell.cwd / "a.txt").read_text() == "y\n"
    assert "edit: HIDDEN" in done.stdout and "4 expectation" in done.stdout
    assert "full output:" in done.stderr


def test_ci_recipe_writes_sarif_and_fails_on_a_broken_expectation(shell) -> None:
    [tour] = sh_blocks("## A tour")
    recipes = sh_blocks("## Three questions")
    ci = next(block for block in recipes if "--output-file" in block)
    assert shell(tour).returncode == 0
    done = shell(ci)
    assert done.returncode == 0, done.stdout + done.stderr
    sarif = json.loads((shell.cwd / "forge-tools.sarif").read_text())
    assert sarif["version"] == "2.1.0"
    (shell.cwd / ".forge" / "expect.yaml").write_text(
        '- {agent: build, call: {tool: bash, args: {command: "rm -rf build"}}, expect: allow}\n')
    assert shell(ci).returncode == 1


def test_really_denied_recipe_gives_opencodes_answer_and_the_gates(shell) -> None:
    recipes = sh_blocks("## Three questions")
    ask = next(block for block in recipes if "/bin/rm" in block)
    (shell.cwd / "opencode.json").write_text('{"permission": {"bash": {"*": "allow", "rm *": "deny"}}}\n')
    done = shell("git init -q .\n" + ask)
    assert done.returncode == 0, done.stderr
    answering, first, second = done.stdout.splitlines()[:3]
    assert answering == "Answering: opencode 1.18.33 (config: opencode's files only)"
    assert first == "Call: ALLOW (opencode 1.18.33's answer)"
    assert 'its rule "rm *" does not match "/bin/rm -rf build"' in second
    assert "forge-tools run would deny it" in second
    check = shell("forge-tools check")
    assert "FT116" in check.stdout and "/bin/rm x" in check.stdout
