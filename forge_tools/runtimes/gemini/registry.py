"""What Gemini CLI 0.61 refuses before its policy engine is asked: a tool it never registered, and an
edit whose path is outside the workspace. Recorded from the CLI's own functions (tests/compat/gemini,
`mcp-*` and `edit-outside-workspace-*`):

- an MCP tool `mcp_<server>_<tool>` exists only when `<server>` is in the merged `mcpServers` (an
  untrusted folder's workspace settings are not read, so its servers are not there) with a
  `command`, `url` or `httpUrl`, is not kept out by `mcp.allowed` (when non-empty) or `mcp.excluded`,
  and the tool passes the server's `excludeTools` (first) and `includeTools` (a name, or
  `name(...)`); a tool a rule without `argsPattern` denies is removed from the model's list
  (`Engine.excluded_tools`). Such a tool is not offered at all, never "ask";
- `write_file` and `replace` check their `file_path` (resolved against the working directory,
  symlinks followed) before anything else, in every mode: a path outside the workspace and the
  project's temporary directory is refused ("Path not in workspace"), and so is one whose path in
  the workspace has a `.git`, `.env`, `node_modules` or `gha-creds-*.json` part (any case, trailing
  dots and spaces and a `:stream` ignored, and their 8.3 short names such as `GIT~1`): those are not
  in the workspace for Gemini (recorded by the generated corpus, `corpus-0.61.0.json`).
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from forge_tools.runtimes.gemini.settings import GeminiSettings

PATH_TOOLS = ("write_file", "replace")
#: a part of a path in the workspace that puts it outside (Gemini's blocked segments, 8.3 names too)
_BLOCKED = re.compile(r"\.git|\.env|node_modules|gha-creds-.*\.json|(git|gi[0-9a-f]{4})~\d+|"
                      r"(env|en[0-9a-f]{4})~\d+|(node_m|no[0-9a-f]{4})~\d+|(gha-cr|gh[0-9a-f]{4})~\d+\.json?")


def mcp_server_of(settings: GeminiSettings, tool: str) -> str | None:
    """The configured server whose `mcp_<server>_` starts `tool` (the longest such name), else the
    part before the first `_` (a server that is not configured), else None (not an MCP name)."""
    from forge_tools.runtimes.gemini.policy import parse_mcp_name

    servers = settings.value("mcpServers")
    names = [s for s in servers if tool.startswith(f"mcp_{s}_")] if isinstance(servers, dict) else []
    if names:
        return max(names, key=len)
    parsed = parse_mcp_name(tool)
    return parsed[0] if parsed else None


def unregistered(settings: GeminiSettings, server: str, tool: str) -> str | None:
    """Why Gemini never registers MCP tool `tool` (its own name) of `server`, or None."""
    servers = settings.value("mcpServers")
    conf = servers.get(server) if isinstance(servers, dict) else None
    if not isinstance(conf, dict):
        why = f"no MCP server {server!r} in the settings Gemini reads"
        return why + ("" if settings.trusted else " (the folder is not trusted: its workspace settings are "
                      "not read)")
    if not any(conf.get(k) for k in ("command", "url", "httpUrl")):
        return f"mcpServers.{server} has no command, url or httpUrl: Gemini does not start it"
    allowed, excluded = settings.value("mcp", "allowed"), settings.value("mcp", "excluded")
    if isinstance(allowed, list) and allowed and server not in allowed:
        return f"{server!r} is not in mcp.allowed: Gemini does not start it"
    if isinstance(excluded, list) and server in excluded:
        return f"{server!r} is in mcp.excluded: Gemini does not start it"
    exclude, include = conf.get("excludeTools"), conf.get("includeTools")
    if isinstance(exclude, list) and tool in exclude:
        return f"{tool!r} is in mcpServers.{server}.excludeTools"
    if isinstance(include, list) and not any(t == tool or str(t).startswith(f"{tool}(") for t in include):
        return f"{tool!r} is not in mcpServers.{server}.includeTools"
    return None


def not_offered(settings: GeminiSettings, tool: str) -> str | None:
    """Why the model is never offered `tool` (an MCP tool Gemini does not register, or one a rule
    without argsPattern denies outright), or None."""
    from forge_tools.runtimes.gemini.engine import Engine
    from forge_tools.runtimes.gemini.policy import MCP_PREFIX

    if not tool.startswith(MCP_PREFIX):
        return None
    server = mcp_server_of(settings, tool)
    if server is None:
        return None
    why = unregistered(settings, server, tool[len(f"mcp_{server}_"):])
    if why is not None:
        return why
    if Engine(settings).excluded_tools([tool], {tool: server}):
        return "a rule denies it outright, so Gemini removes it from the model's tools"
    return None


def path_refusal(settings: GeminiSettings, tool: str, args: dict[str, Any]) -> str | None:
    """Gemini's parameter check of an edit's `file_path`: "Path not in workspace: ..." or None."""
    if tool not in PATH_TOOLS:
        return None
    path = args.get("file_path") if isinstance(args, dict) else None
    if not isinstance(path, str) or not path:
        return None
    target = Path(os.path.realpath(os.path.join(settings.cwd, path)))
    if any(_in_workspace(Path(os.path.realpath(d)), target) for d in workspace_dirs(settings)):
        return None
    if _inside(Path(os.path.realpath(settings.home / ".gemini" / "tmp")), target):
        return None  # the project's temporary directory lies below it (modelled: any project's)
    return (f"Path not in workspace: Attempted path \"{target}\" resolves outside the allowed workspace "
            f"directories: {', '.join(str(d) for d in workspace_dirs(settings))}")


def workspace_dirs(settings: GeminiSettings) -> list[Path]:
    """The workspace: the working directory and `context.includeDirectories` (modelled)."""
    extra = settings.value("context", "includeDirectories")
    dirs = [Path(settings.cwd)]
    if isinstance(extra, list):
        dirs += [Path(os.path.expanduser(str(d))) if os.path.isabs(os.path.expanduser(str(d)))
                 else Path(settings.cwd) / str(d) for d in extra]
    return dirs


def _in_workspace(folder: Path, target: Path) -> bool:
    """`target` is below `folder` and no part of its path there is a blocked one."""
    if not _inside(folder, target):
        return False
    for part in target.relative_to(folder).parts:
        clean = part.split(":")[0].rstrip(" .").lower()
        if _BLOCKED.fullmatch(clean):
            return False
    return True


def _inside(folder: Path, target: Path) -> bool:
    return target == folder or folder in target.parents
