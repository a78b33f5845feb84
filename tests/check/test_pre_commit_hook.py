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
                 "pyproject.toml", "services/api/pyproject.toml",
                 # every agent's files and the expectation files (issue 33)
                 ".claude/settings.json", ".claude/settings.local.json", ".codex/config.toml",
                 ".codex/rules/default.rules", ".gemini/settings.json", ".gemini/policies/p.toml",
                 ".mcp.json", "sub/.mcp.json", "expect.yaml", "ci/agent-expectations.toml",
                 "tests/expect.json", ".forge/expect.yaml"):
        assert pattern.search(path), path
    for path in ("src/main.py", "README.md", "src/expected_output.txt", "docs/claude.md", "mcp.json"):
        assert not pattern.search(path), path
