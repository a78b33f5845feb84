"""Where Codex CLI looks for its files (no parsing: cheap enough for every command's start-up)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path


def codex_home(env: Mapping[str, str]) -> Path:
    """`$CODEX_HOME`, else `~/.codex`."""
    if env.get("CODEX_HOME"):
        return Path(env["CODEX_HOME"])
    return Path(env.get("HOME") or os.path.expanduser("~")) / ".codex"


def project_root(cwd: Path) -> Path:
    """The nearest folder at or above `cwd` holding `.git` (Codex's project root marker), else `cwd`."""
    for folder in (cwd, *cwd.parents):
        if (folder / ".git").exists():
            return folder
    return cwd


def project_folders(cwd: Path, root: Path) -> list[Path]:
    """The folders whose `.codex/` Codex reads: the root down to `cwd`."""
    between = [p for p in reversed(cwd.parents) if root in p.parents]
    return [root, *between, *([cwd] if cwd != root else [])]


def rules_in(folder: Path) -> list[Path]:
    """`folder/rules/*.rules` in name order (other files there are not read)."""
    rules = folder / "rules"
    return sorted(p for p in rules.glob("*.rules") if p.is_file()) if rules.is_dir() else []


def any_codex_file(cwd: Path, env: Mapping[str, str]) -> bool:
    """Whether Codex started in `cwd` has any file to read (user's or project's)."""
    home = codex_home(env)
    if (home / "config.toml").is_file() or rules_in(home):
        return True
    cwd = cwd.resolve()
    return any((f / ".codex" / "config.toml").is_file() or rules_in(f / ".codex")
               for f in project_folders(cwd, project_root(cwd)))
