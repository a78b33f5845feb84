"""Which files Claude Code 2.1.328 reads for permissions here (`settings.settings_paths`: the user's
`~/.claude/settings.json`, the project's `.claude/settings.json` and `.claude/settings.local.json`, the
managed settings and their drop-ins), those that exist, for `forge-tools agents` and the commands that
answer for every agent (runtimes/found.py)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from forge_tools.runtimes.found import ConfigFile

if TYPE_CHECKING:
    from forge_tools.config.loader import LoadedConfig

DISPLAY = "Claude Code"
AGENT = True


def config_files(loaded: LoadedConfig, env: Mapping[str, str] | None = None) -> list[ConfigFile]:
    import os

    from forge_tools.runtimes.claude.settings import settings_paths
    from forge_tools.runtimes.found import agent_cwd

    paths = settings_paths(agent_cwd(loaded), os.environ if env is None else env)
    return [ConfigFile(str(path), scope, "settings file") for scope, path in paths if path.is_file()]


def rule_text(permission: str, pattern: str) -> str:
    """A rule as Claude Code's settings write it: `Bash(git *)`, or the bare tool."""
    return permission if pattern == "*" else f"{permission}({pattern})"
