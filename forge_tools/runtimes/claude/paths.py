"""Where Claude Code 2.1.332 looks for its settings: the user's file (`$CLAUDE_CONFIG_DIR`, else
`~/.claude`), the project's `.claude/settings.json` and `.claude/settings.local.json`, the managed file and
its drop-ins (`/etc/claude-code`, or `FORGE_TOOLS_CLAUDE_MANAGED_DIR` for tests). Light on purpose: every
command that asks which agents a project configures reads it (`files.config_files`); the reader is
`settings.read_settings`."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Literal

Scope = Literal["user", "project", "local", "cli", "managed"]
MANAGED_DIR = Path("/etc/claude-code")
MANAGED_DIR_ENV = "FORGE_TOOLS_CLAUDE_MANAGED_DIR"


def managed_dir(env: Mapping[str, str]) -> Path:
    value = env.get(MANAGED_DIR_ENV)
    return Path(value) if value else MANAGED_DIR


def config_dir(env: Mapping[str, str], home: Path) -> Path:
    value = env.get("CLAUDE_CONFIG_DIR")
    return Path(value) if value else home / ".claude"


def settings_paths(cwd: Path, env: Mapping[str, str], home: Path | None = None
                   ) -> list[tuple[Scope, Path]]:
    """Every file Claude would read here, lowest first (managed drop-ins in name order)."""
    home = home if home is not None else Path(env.get("HOME") or os.path.expanduser("~"))
    managed = managed_dir(env)
    found: list[tuple[Scope, Path]] = [
        ("user", config_dir(env, home) / "settings.json"),
        ("project", cwd / ".claude" / "settings.json"),
        ("local", cwd / ".claude" / "settings.local.json"),
        ("managed", managed / "managed-settings.json"),
    ]
    dropins = managed / "managed-settings.d"
    if dropins.is_dir():
        found.extend(("managed", p) for p in sorted(dropins.glob("*.json"))
                     if p.is_file() and not p.name.startswith("."))
    return found
