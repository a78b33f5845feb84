"""The package layering holds (issue 19): import-linter's contracts in pyproject.toml, which count every
import, those inside functions and those under TYPE_CHECKING too (docs/architecture.md "Layers")."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: the venv's own script (import-linter is a test dependency: `pip install -e '.[test]'`)
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


def lint_imports(cwd: Path) -> subprocess.CompletedProcess[str]:
    if not LINT_IMPORTS.is_file():
        pytest.fail(f"{LINT_IMPORTS} is missing: install the test extras (pip install -e '.[test]')")
    return subprocess.run([str(LINT_IMPORTS), "--no-cache", "--no-logo"], cwd=cwd, capture_output=True,
                          text=True, timeout=600)


def test_the_contracts_are_kept() -> None:
    done = lint_imports(ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 broken" in done.stdout, done.stdout


UPWARD = {
    "inside a function": "\n\ndef _probe() -> None:\n    from forge_tools.check import run\n",
    "under TYPE_CHECKING": "\nfrom typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n"
                           "    from forge_tools.check import run\n",
}


@pytest.mark.parametrize("where", list(UPWARD))
def test_an_upward_import_breaks_the_layers(tmp_path: Path, where: str) -> None:
    """The same contracts over a copy whose bottom module imports the top: the report names the import
    (a lazy or type-only import is a dependency like any other)."""
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    shutil.copytree(ROOT / "forge_tools", tmp_path / "forge_tools",
                    ignore=shutil.ignore_patterns("__pycache__"))
    origin = tmp_path / "forge_tools" / "origin.py"
    line = origin.read_text().count("\n") + UPWARD[where].count("\n")
    origin.write_text(origin.read_text() + UPWARD[where])
    done = lint_imports(tmp_path)
    assert done.returncode != 0, done.stdout
    assert "forge_tools.origin is not allowed to import forge_tools.check" in done.stdout, done.stdout
    assert f"forge_tools.origin -> forge_tools.check.run (l.{line})" in done.stdout, done.stdout
