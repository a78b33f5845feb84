"""Where skills are: `SKILL.md` files under `skill/` or `skills/` of the config directories.

Read here, below the tool (no pydantic here): agents' rulesets need the skill directories too, and the
`skill` tool (`tools/builtins/skill.py`, its description in `tools/builtins/_skills.py`) lists them.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any, NamedTuple

from forge_tools.config.files import read_regular_text
from forge_tools.paths import skill_folders

SKILL_FILE = "SKILL.md"

class Skill(NamedTuple):
    """One skill folder's SKILL.md: its name, description, file and body."""

    name: str
    description: str
    path: Path
    body: str


def _split_front_matter(text: str) -> tuple[dict[str, Any], str]:
    """YAML front matter between `---` lines, and the rest; ValueError when it is malformed."""
    if not text.startswith("---"):
        return {}, text
    lines = text.split("\n")
    for end in range(1, len(lines)):
        if lines[end].strip() == "---":
            import yaml

            try:
                data = yaml.safe_load("\n".join(lines[1:end])) or {}
            except yaml.YAMLError as exc:
                raise ValueError(f"bad front matter: {exc}".splitlines()[0]) from exc
            if not isinstance(data, dict):
                raise ValueError("front matter must be a mapping with name and description")
            return data, "\n".join(lines[end + 1:]).lstrip("\n")
    raise ValueError("front matter starts with '---' but never ends")


def discover(config_dirs: Iterable[Path | str]) -> tuple[dict[str, Skill], list[str]]:
    """Every skill by name, in discovery order (a later dir's skill of the same name wins), and a
    list of problems (`path: message`)."""
    skills: dict[str, Skill] = {}
    problems: list[str] = []
    for root in skill_folders(config_dirs):
        for path in sorted(root.rglob(SKILL_FILE)):
            try:
                meta, body = _split_front_matter(read_regular_text(path))
            except (OSError, UnicodeDecodeError, ValueError) as exc:
                problems.append(f"{path}: {exc}")
                continue
            name = str(meta.get("name") or path.parent.name).strip()
            description = str(meta.get("description") or "").strip()
            skills[name] = Skill(name, description, path, body)
    return skills, problems


def skill_dir_globs(config_dirs: Iterable[Path | str]) -> list[str]:
    """`<skill dir>/*` for each discovered skill, in discovery order: opencode 1.18.33 gives every
    agent an `external_directory` allow for each, so a skill's own files stay readable (SPEC 4.4)."""
    skills, _ = discover(config_dirs)
    globs = [str(s.path.parent.absolute()).replace("\\", "/") + "/*" for s in skills.values()]
    return list(dict.fromkeys(globs))
