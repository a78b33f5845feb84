"""`skill`: load a skill, a `SKILL.md` file of instructions, into the conversation on demand.

Skills live in `skill/` or `skills/` folders (any depth) of the config directories. The front matter
gives `name` and `description`; the tool's description lists them so the model knows what exists, and
calling the tool with a name returns the skill's body. Later config directories override earlier ones
with the same skill name (the project's beat the global ones), as config does.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

from forge_tools.config.files import read_regular_text
from forge_tools.tools.contract import Tool, ToolContext, ToolResult

SKILL_FILE = "SKILL.md"
SKILL_FOLDERS = ("skill", "skills")

INTRO = """Load a skill: detailed instructions for a particular kind of task, written by the user or
the project. Call it with the skill's `name` when the task matches the skill's description, before
starting the work, and follow what it says."""


@dataclass(frozen=True)
class Skill:
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
    """Every skill by name (later dirs win) and a list of problems (`path: message`)."""
    skills: dict[str, Skill] = {}
    problems: list[str] = []
    for base in config_dirs:
        for folder in SKILL_FOLDERS:
            root = Path(base) / folder
            if not root.is_dir():
                continue
            for path in sorted(root.rglob(SKILL_FILE)):
                try:
                    meta, body = _split_front_matter(read_regular_text(path))
                except (OSError, UnicodeDecodeError, ValueError) as exc:
                    problems.append(f"{path}: {exc}")
                    continue
                name = str(meta.get("name") or path.parent.name).strip()
                description = str(meta.get("description") or "").strip()
                skills[name] = Skill(name, description, path, body)
    return dict(sorted(skills.items())), problems


def describe(skills: dict[str, Skill]) -> str:
    if not skills:
        return INTRO + "\n\nNo skills are available right now."
    listing = "\n".join(f"- {s.name}: {s.description or '(no description)'}" for s in skills.values())
    return f"{INTRO}\n\nAvailable skills:\n{listing}"


class SkillArgs(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)

    name: Annotated[str, Field(min_length=1, description="The name of the skill to load.")]


def _config_dirs(ctx: ToolContext) -> list[Path]:
    return [Path(d) for d in ctx.extra.get("config_dirs", []) or []]


def execute(args: SkillArgs, ctx: ToolContext) -> ToolResult:
    skills, problems = discover(_config_dirs(ctx))
    skill = skills.get(args.name)
    if skill is None:
        known = ", ".join(skills) if skills else "none"
        text = f"There is no skill named {args.name!r}. Available skills: {known}."
        if problems:
            text += "\nSkills that could not be loaded:\n" + "\n".join(problems)
        return ToolResult(text, title=f"skill {args.name}", metadata={"truncated": False}, is_error=True)
    output = f"Skill: {skill.name}\nBase directory: {skill.path.parent}\n\n{skill.body.rstrip()}\n"
    return ToolResult(output, title=f"skill {skill.name}",
                      metadata={"name": skill.name, "path": str(skill.path)})


def skill_tool(config_dirs: Iterable[Path | str]) -> Tool:
    """The skill tool with a description that lists the skills found in `config_dirs`."""
    skills, _ = discover(config_dirs)
    return Tool(id="skill", description=describe(skills), parameters=SkillArgs, execute=execute)


TOOL = Tool(id="skill", description=describe({}), parameters=SkillArgs, execute=execute)
