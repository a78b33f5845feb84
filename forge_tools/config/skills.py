"""Where skills are, as opencode 1.18.33 finds them, and how a `SKILL.md` is read.

opencode looks, in this order (a later skill of the same name wins): `skills/**/SKILL.md` under
`~/.claude` and `~/.agents`, then under each `.claude`/`.agents` folder from where it was started up
to the project root (`paths.external_skill_roots`: none with `OPENCODE_DISABLE_EXTERNAL_SKILLS`, no `.claude`
with `OPENCODE_DISABLE_CLAUDE_CODE` or `OPENCODE_DISABLE_CLAUDE_CODE_SKILLS`); then
`{skill,skills}/**/SKILL.md` in each config directory; then `**/SKILL.md` under each `skills.paths`
entry (relative to where it was started, `~/` expanded). A file is a skill only when its front matter
is a mapping with a string `name` (and a string `description`, or none): a `SKILL.md` without front
matter is skipped, and the folder's name is never the skill's. Before all of them comes opencode's
built-in skill, `customize-opencode`.

Read here, below the tool (no pydantic here): agents' rulesets need the skill directories too, and the
`skill` tool (`tools/builtins/skill.py`) loads them.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from forge_tools.config.files import read_regular_text
from forge_tools.named_tuple import NamedTuple
from forge_tools.paths import skill_folders

SKILL_FILE = "SKILL.md"
#: opencode 1.18.33's built-in skill, always there (its text is opencode's: not reproduced here)
BUILTIN_SKILL = "customize-opencode"
BUILTIN_LOCATION = "<built-in>"
BUILTIN_DESCRIPTION = (
    "Use ONLY when the user is editing or creating opencode's own configuration: opencode.json, "
    "opencode.jsonc, files under .opencode/, or files under ~/.config/opencode/. Also use when creating "
    "or fixing opencode agents, subagents, skills, plugins, MCP servers, or permission rules. Do not use "
    "for the user's own application code, or for any project that is not configuring opencode itself.")

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


def skill_files(config_dirs: Iterable[Path | str], external: Iterable[Path] = (),
                paths: Iterable[Path] = ()) -> list[Path]:
    """Every `SKILL.md` opencode's scans match, in its order: the external roots' `skills/`, the
    config directories' `skill/` and `skills/`, then the `skills.paths` folders (any depth)."""
    found: dict[Path, None] = {}
    for root in external:
        if (root / "skills").is_dir():
            found.update(dict.fromkeys(sorted((root / "skills").rglob(SKILL_FILE))))
    for root in skill_folders(config_dirs):
        found.update(dict.fromkeys(sorted(root.rglob(SKILL_FILE))))
    for root in paths:
        if root.is_dir():
            found.update(dict.fromkeys(sorted(root.rglob(SKILL_FILE))))
    return [path for path in found if not path.is_dir()]


def read_skill(path: Path) -> Skill | None:
    """One `SKILL.md` as opencode reads it: None when its front matter has no string `name` (or a
    `description` that is not a string); ValueError when the front matter is malformed."""
    meta, body = _split_front_matter(read_regular_text(path))
    name, description = meta.get("name"), meta.get("description")
    if not isinstance(name, str) or not (description is None or isinstance(description, str)):
        return None
    return Skill(name, description if description is not None else "", path, body)


def builtin_skill() -> Skill:
    return Skill(BUILTIN_SKILL, BUILTIN_DESCRIPTION, Path(BUILTIN_LOCATION), "")


def discover(config_dirs: Iterable[Path | str], external: Iterable[Path] = (),
             paths: Iterable[Path] = (), builtin: bool = True) -> tuple[dict[str, Skill], list[str]]:
    """Every skill by name in opencode's order (the built-in one first; a later file's skill of the
    same name wins), and a list of problems (`path: message`)."""
    skills: dict[str, Skill] = {BUILTIN_SKILL: builtin_skill()} if builtin else {}
    problems: list[str] = []
    for path in skill_files(config_dirs, external, paths):
        try:
            skill = read_skill(path)
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            problems.append(f"{path}: {exc}")
            continue
        if skill is None:
            problems.append(f"{path}: no `name` in its front matter: not a skill")
            continue
        skills[skill.name] = skill
    return skills, problems


def skill_dir_globs(config_dirs: Iterable[Path | str], external: Iterable[Path] = (),
                    paths: Iterable[Path] = ()) -> list[str]:
    """`<skill dir>/*` for the folder of each `SKILL.md` found, in discovery order: opencode 1.18.33
    gives every agent an `external_directory` allow for each, so a skill's own files stay readable
    (SPEC 4.4)."""
    files = skill_files(config_dirs, external, paths)
    globs = [str(path.parent.absolute()).replace("\\", "/") + "/*" for path in files]
    return list(dict.fromkeys(globs))
