"""`skill`: load a skill, a `SKILL.md` file of instructions, into the conversation on demand.

Skills live in `skill/` or `skills/` folders (any depth) of the config directories. The front matter
gives `name` and `description`; the tool's description lists them so the model knows what exists, and
calling the tool with a name returns the skill's body. Later config directories override earlier ones
with the same skill name (the project's beat the global ones), as config does.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from forge_tools.tools.builtins._skills import Skill, discover
from forge_tools.tools.contract import PermissionRequest, Tool, ToolContext, ToolResult

INTRO = """Load a skill: detailed instructions for a particular kind of task, written by the user or
the project. Call it with the skill's `name` when the task matches the skill's description, before
starting the work, and follow what it says."""


def describe(skills: dict[str, Skill]) -> str:
    if not skills:
        return INTRO + "\n\nNo skills are available right now."
    listing = "\n".join(f"- {s.name}: {s.description or '(no description)'}"
                        for s in sorted(skills.values(), key=lambda s: s.name))
    return f"{INTRO}\n\nAvailable skills:\n{listing}"


class SkillArgs(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)

    name: Annotated[str, Field(min_length=1, description="The name of the skill to load.")]


def _config_dirs(ctx: ToolContext) -> list[Path]:
    return [Path(d) for d in ctx.extra.get("config_dirs", []) or []]


def permission_requests(args: SkillArgs, ctx: ToolContext) -> list[PermissionRequest]:
    """A skill call is checked against the skill's name (SPEC 4.4), as opencode does."""
    return [PermissionRequest("skill", (args.name,), (args.name,))]


def execute(args: SkillArgs, ctx: ToolContext) -> ToolResult:
    skills, problems = discover(_config_dirs(ctx))
    skill = skills.get(args.name)
    if skill is None:
        known = ", ".join(sorted(skills)) if skills else "none"
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
    return Tool(id="skill", description=describe(skills), parameters=SkillArgs, execute=execute,
                permission_requests=permission_requests)


TOOL = Tool(id="skill", description=describe({}), parameters=SkillArgs, execute=execute,
            permission_requests=permission_requests)
