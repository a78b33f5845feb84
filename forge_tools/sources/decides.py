"""The files a config reads as code or as rules (`deciding_paths`): what `run`'s sandbox keeps
read-only whatever the rules say (tools/sandbox.py), and what `explain` and `layers` show it keeps.
Found without importing or starting anything."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from forge_tools.config.loader import LoadedConfig


def deciding_paths(loaded: LoadedConfig, result: Any = None) -> list[str]:
    """The files the config reads as code or as rules, for `run`'s sandbox (read-only there whatever
    the rules say; tools/sandbox.py keeps those inside the project): every config file and config
    dir, plugin files, tool files, agent and skill folders, and the files a local MCP server's command
    names. Nothing is imported or started to find them."""
    from forge_tools.sources.plugin_refs import discover

    paths: list[str | Path] = [s.path for s in loaded.sources if s.path is not None]
    paths += [*loaded.config_dirs, *loaded.skill_roots, *loaded.skill_paths]
    refs = discover(loaded.config_dirs, loaded.plugin_specs)[0]
    paths += [ref.path for ref in refs if ref.path is not None]
    verdicts = getattr(result, "tools", None) or ()  # a bare context (tests, the library) has none
    paths += [v.source.path for v in verdicts if v.source.path is not None]
    paths += [s.path for v in verdicts for s in v.shadowed if s.path is not None]
    mcp = loaded.tree.get("mcp")
    if mcp is not None and mcp.value:
        from forge_tools.sources.mcp import servers_from_config

        for server in servers_from_config(loaded.tree, Path(loaded.cwd))[0]:
            if server.kind == "local":
                paths += [server.cwd / part for part in server.command if "/" in part or
                          (server.cwd / part).is_file()]
    return [str(p) for p in dict.fromkeys(paths)]
