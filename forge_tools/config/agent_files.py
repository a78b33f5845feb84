"""opencode's Markdown agents: `agent/*.md` / `agents/*.md` in a config directory (SPEC 6.2).

A file is YAML frontmatter (the agent's settings) plus a body (its prompt); the agent's name is the
file's path under `agent/` without `.md`. Each file becomes a small config tree `{"agent": {name: ...}}`
whose origins point into the file, so it merges, validates and reports errors like any config file.
Nothing in the file is run: the frontmatter goes through the same safe YAML reader as forge.yaml.
"""

from __future__ import annotations

import os
from pathlib import Path

from forge_tools.errors import ConfigError, ConfigProblem
from forge_tools.lazy_re import lazy
from forge_tools.origin import Node, Origin

#: the sub-directories of a config directory that hold Markdown agents, in load order: of two files
#: with one name in one directory the later folder's wins whole (opencode 1.18.33: `agents/`)
AGENT_SUBDIRS: tuple[str, ...] = ("agent", "agents")
#: the sub-directories whose `*.md` (not recursive) are primary agents, read after the agents
MODE_SUBDIRS: tuple[str, ...] = ("mode", "modes")
#: more agent files than this in one directory is not a config; stop rather than read a whole tree
MAX_AGENT_FILES = 1000


def _md_files(top: Path, recursive: bool) -> list[tuple[str, Path]]:
    here: list[tuple[str, Path]] = []
    for folder, dirs, files in os.walk(top, followlinks=False):
        dirs.sort()
        if not recursive:
            dirs.clear()
        for file in sorted(files):
            if file.endswith(".md"):
                path = Path(folder) / file
                here.append((agent_name_of(path), path))
        if len(here) > MAX_AGENT_FILES:
            raise ConfigError(f"more than {MAX_AGENT_FILES} agent files; is this the right directory?",
                              Origin("file", path=str(top)))
    return sorted(here)


def find_agent_files(config_dir: Path) -> list[tuple[str, Path, bool]]:
    """(agent name, file, primary) for every agent file of a config directory, in load order.

    `agent/**/*.md` then `agents/**/*.md` (sub-directories give names like `team/review`, see
    `agent_name_of`), then the primary agents `mode/*.md` and `modes/*.md`. When one name is in both
    folders of a pair, only the later folder's file is read: it replaces the other whole, as in
    opencode. Symlinked sub-directories are not followed (a link loop must not hang the load).
    """
    found: list[tuple[str, Path, bool]] = []
    for subdirs, recursive, primary in ((AGENT_SUBDIRS, True, False), (MODE_SUBDIRS, False, True)):
        by_name: dict[str, Path] = {}
        for sub in subdirs:
            top = config_dir / sub
            if top.is_dir():
                for name, path in _md_files(top, recursive):
                    by_name.pop(name, None)
                    by_name[name] = path
        found += [(name, path, primary) for name, path in by_name.items()]
    return found


def agent_name_of(path: Path) -> str:
    """An agent file's name: its path under the nearest enclosing `agent/` or `agents/` folder (or
    `mode/`, `modes/`), without `.md` (`agent/review.md` is `review`, `agent/team/review.md` is
    `team/review`). A frontmatter `name:` overrides it (see `parse_agent_file`)."""
    parts = path.with_suffix("").parts
    for i in range(len(parts) - 2, -1, -1):
        if parts[i] in AGENT_SUBDIRS or parts[i] in MODE_SUBDIRS:
            return "/".join(parts[i + 1:])
    return path.stem


def _frontmatter(text: str, where: Origin) -> tuple[str, str, int]:
    """(frontmatter with its opening line blanked, body, the body's first line number)."""
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].rstrip() != "---":
        return "", text, 1
    for i in range(1, len(lines)):
        if lines[i].rstrip() == "---":
            return "\n" + "".join(lines[1:i]), "".join(lines[i + 1:]), i + 2
    raise ConfigError("the frontmatter opened by --- on line 1 is never closed; end it with a line "
                      "holding only ---", where, code=ConfigProblem.SYNTAX)


def _tools_as_permission(values: dict[str, Node], name: str) -> None:
    """The file's legacy `tools: {name: bool}` becomes `permission` rules placed before its own
    `permission` keys, inside this file, before it is merged with other sources (as opencode does):
    so `tools: {bash: false}` here hides bash even when an opencode.json allows it for this agent."""
    from forge_tools.config.merge import merge
    from forge_tools.names import permission_name

    tools = values.get("tools")
    if tools is None or not tools.is_map or not all(isinstance(v.value, bool) for _, v in tools.items()):
        return  # left as written, for the schema to report
    converted: dict[str, Node] = {}
    for tool, node in tools.items():
        action = "allow" if node.value else "deny"
        where = node.key_origin or node.origin
        converted.pop(permission_name(tool), None)
        converted[permission_name(tool)] = Node(action, node.origin, where)
    permission = Node(converted, tools.origin, tools.key_origin)
    explicit = values.get("permission")
    if explicit is not None and explicit.value is not None:
        permission = merge(permission, explicit, ("agent", name, "permission"))
    del values["tools"]
    values["permission"] = permission


_TOP_LEVEL_VALUE = lazy(r"^([a-zA-Z_][a-zA-Z0-9_]*)\s*:\s*(.*)$")


def sanitized_frontmatter(front: str) -> str:
    """The frontmatter with each top-level `key: value` whose plain value holds a `:` quoted as one
    string (line for line, so positions stay), as opencode's fallback reads it."""
    out = []
    for line in front.split("\n"):
        found = _TOP_LEVEL_VALUE().match(line)
        if found is None or line.lstrip().startswith("#") or line[:1].isspace():
            out.append(line)
            continue
        value = found.group(2).strip()
        if not value or value in (">", "|") or value.startswith(("'", '"')) or ":" not in value:
            out.append(line)
            continue
        out.append(f"{found.group(1)}: '" + value.replace("'", "''") + "'")
    return "\n".join(out)


def parse_agent_file(text: str, path: Path, name: str, primary: bool = False) -> Node:
    """The config tree one agent file stands for: `{"agent": {name: frontmatter + prompt}}`.

    A frontmatter `name:` (a string) names the agent instead of the file; a file from `mode/` or
    `modes/` (`primary`) is a primary agent whatever its frontmatter says.
    """
    from forge_tools.config.formats.yaml_format import parse_yaml

    front, body, body_line = _frontmatter(text, Origin("file", str(path), 1, 1))
    where = Origin("file", path=str(path), key_path=("agent", name))
    try:
        settings = parse_yaml(front, where)
    except ConfigError:
        # opencode 1.18.33 retries a frontmatter YAML refuses with each plain top-level value that
        # holds a colon (`description: Reviews code: carefully`) taken as text; so does forge-tools
        fixed = sanitized_frontmatter(front)
        if fixed == front:
            raise
        settings = parse_yaml(fixed, where)
    if not settings.is_map:
        raise ConfigError("the frontmatter must be a mapping of agent settings (description: ..., "
                          "mode: ...)", settings.origin, code=ConfigProblem.TYPE)
    values = dict(settings.value)
    named = values.pop("name", None)
    if named is not None and isinstance(named.value, str) and named.value.strip():
        name = named.value
    elif named is not None:
        raise ConfigError("name must be the agent's name (a string)", named.origin, code=ConfigProblem.TYPE)
    file_origin = Origin("file", str(path), 1, 1, ("agent", name))
    prompt = body.strip()
    if prompt:
        lead = len(body) - len(body.lstrip())
        line = body_line + body.count("\n", 0, lead)
        at = Origin("file", str(path), line, 1, ("agent", name, "prompt"))
        values["prompt"] = Node(prompt, at, at)
    if primary:
        mode_at = values["mode"].origin if "mode" in values else file_origin
        values["mode"] = Node("primary", mode_at, mode_at)
    _tools_as_permission(values, name)
    agent = Node(values, file_origin, file_origin)
    top = Origin("file", str(path), 1, 1)
    return Node({"agent": Node({name: agent}, top, top)}, top)
