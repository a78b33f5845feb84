"""Fixtures of the runtime tests."""

from __future__ import annotations

import json
from pathlib import Path

import pytest


@pytest.fixture
def gemini_home(project: Path, isolated_env: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> Path:
    """A home where Gemini CLI trusts the project, with an empty ~/.gemini/policies and no system
    directory (FORGE_TOOLS_GEMINI_SYSTEM_DIR names one that does not exist)."""
    home = isolated_env["home"]
    monkeypatch.setenv("FORGE_TOOLS_GEMINI_SYSTEM_DIR", str(home / "no-system"))
    (home / ".gemini" / "policies").mkdir(parents=True)
    (home / ".gemini" / "trustedFolders.json").write_text(json.dumps({str(project): "TRUST_FOLDER"}))
    return home
