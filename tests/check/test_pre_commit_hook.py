"""The pre-commit hook runs when a file that holds check settings or config changes."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

HOOKS = Path(__file__).resolve().parents[2] / ".pre-commit-hooks.yaml"


def test_files_pattern_covers_every_settings_file() -> None:
    (hook,) = yaml.safe_load(HOOKS.read_text())
    pattern = re.compile(hook["files"])  # pre-commit uses Python's re.search on the relative path
    for path in ("forge.json", "sub/opencode.jsonc", "forge.toml", "forge.yaml", ".opencode/agent/a.md",
                 "pyproject.toml", "services/api/pyproject.toml"):
        assert pattern.search(path), path
    assert not pattern.search("src/main.py")
