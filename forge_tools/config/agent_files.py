"""opencode's Markdown agents: `agent/*.md` / `agents/*.md` in a config directory (SPEC 6.2).

A file is YAML frontmatter (the agent's settings) plus a body (its prompt); the agent's name is the
file's path under `agent/` without `.md`. Each file becomes a small config tree `{"agent": {name: ...}}`
whose origins point into the file, so it merges, validates and reports errors like any config file.
Nothing in the file is run: the frontmatter goes through the same safe YAML reader as forge.yaml.
"""

from __future__ import annotations

import os
from pathlib import Path

from forge_tools.errors import ConfigError
from forge_tools.origin import Node, Origin

#: the sub-directories of a config directory that hold Markdown agents, in load order
AGENT_SUBDIRS: tuple[str, ...] = ("agent", "agents")
#: more agent files than this in one directory is not a config; stop rather than read a whole tree
MAX_AGENT_FILES = 1000


def find_agent_files(config_dir: Path) -> list[tuple[str, Path]]:
    """(agent name, file) for every `*.md` under the directory's `agent/` and `agents/`, sorted by
    name within each; sub-directories give names like `team/review` (see `agent_name_of`).
    Symlinked sub-directories are not followed (a link loop must not hang the load)."""
    found: list[tuple[str, Path]] = []
    for sub in AGENT_SUBDIRS:
        top = config_dir / sub
        if not top.is_dir():
            continue
        here: list[tuple[str, Path]] = []
        for folder, dirs, files in os.walk(top, followlinks=False):
            dirs.sort()
            for file in sorted(files):
                if file.endswith(".md"):
                    path = Path(folder) / file
                    here.append((agent_name_of(path), path))
            if len(here) > MAX_AGENT_FILES:
                raise ConfigError(f"more than {MAX_AGENT_FILES} agent files; is this the right directory?",
                                  Origin("file", path=str(top)))
        found += sorted(here)
    return found


def agent_name_of(path: Path) -> str:
    """An agent file's name: its path under the nearest enclosing `agent/` or `agents/` folder,
    without `.md` (`agent/review.md` is `review`, `agent/team/review.md` is `team/review`)."""
    parts = path.with_suffix("").parts
    for i in range(len(parts) - 2, -1, -1):
        if parts[i] in AGENT_SUBDIRS:
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
                      "holding only ---", where)


def parse_agent_file(text: str, path: Path, name: str) -> Node:
    """The config tree one agent file stands for: `{"agent": {name: frontmatter + prompt}}`."""
    from forge_tools.config.formats.yaml_format import parse_yaml

    file_origin = Origin("file", str(path), 1, 1, ("agent", name))
    front, body, body_line = _frontmatter(text, Origin("file", str(path), 1, 1))
    settings = parse_yaml(front, Origin("file", path=str(path), key_path=("agent", name)))
    if not settings.is_map:
        raise ConfigError("the frontmatter must be a mapping of agent settings (description: ..., "
                          "mode: ...)", settings.origin)
    values = dict(settings.value)
    prompt = body.strip()
    if prompt:
        lead = len(body) - len(body.lstrip())
        line = body_line + body.count("\n", 0, lead)
        at = Origin("file", str(path), line, 1, ("agent", name, "prompt"))
        values["prompt"] = Node(prompt, at, at)
    agent = Node(values, file_origin, file_origin)
    top = Origin("file", str(path), 1, 1)
    return Node({"agent": Node({name: agent}, top, top)}, top)
