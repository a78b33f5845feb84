"""`skill`: load a skill, a `SKILL.md` file of instructions, into the conversation on demand.

Skills live in `skill/` or `skills/` folders (any depth) of the config directories. The front matter
gives `name` and `description`; the tool's description lists them so the model knows what exists, and
calling the tool with a name returns the skill's body. Later config directories override earlier ones
with the same skill name (the project's beat the global ones), as config does.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from forge_tools.config.skills import discover
from forge_tools.tools.builtins._skills import describe
from forge_tools.tools.contract import PermissionRequest, Tool, ToolContext, ToolResult


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


TOOL = Tool(id="skill", description=describe({}), parameters=SkillArgs, execute=execute,
            permission_requests=permission_requests)
