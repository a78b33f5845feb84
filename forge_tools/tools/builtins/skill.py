"""`skill`: load a skill, a `SKILL.md` file of instructions, into the conversation on demand.

Where skills are and how a `SKILL.md` is read is `config/skills.py` (opencode 1.18.33's places and
order). The tool's description and its texts are opencode 1.18.33's (checked against the definition
it sends the model and its outputs, recorded in tests/compat): the description names no skill
(opencode lists them in its system prompt), a loaded skill comes back in a `<skill_content>` block
with its folder and up to ten of its other files, and an unknown name is an error naming every skill.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

from forge_tools.config.skills import BUILTIN_LOCATION, Skill, discover
from forge_tools.tools.contract import PermissionRequest, Tool, ToolContext, ToolResult

DESCRIPTION = """Load a specialized skill when the task at hand matches one of the skills listed in the system prompt.

Use this tool to inject the skill's instructions and resources into current conversation. The output may contain detailed workflow guidance as well as references to scripts, files, etc in the same directory as the skill.

The skill name must match one of the skills listed in your system prompt.
"""  # noqa: E501 (opencode's own lines)
#: how many of a skill's other files the output lists (opencode's sample)
FILES_LISTED = 10


class SkillArgs(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)

    name: Annotated[str, Field(description="The name of the skill from available_skills")]


def _sources(ctx: ToolContext) -> tuple[list[Path], list[Path], list[Path]]:
    """(config dirs, external `.claude`/`.agents` roots, `skills.paths` folders) of the call's config."""
    loaded: Any = ctx.extra.get("loaded")
    dirs = [Path(d) for d in ctx.extra.get("config_dirs", []) or []]
    return (dirs, list(getattr(loaded, "skill_roots", ()) or ()),
            list(getattr(loaded, "skill_paths", ()) or ()))


def permission_requests(args: SkillArgs, ctx: ToolContext) -> list[PermissionRequest]:
    """A skill call is checked against the skill's name (SPEC 4.4), as opencode does."""
    return [PermissionRequest("skill", (args.name,), (args.name,))]


def not_found(name: str, skills: dict[str, Skill]) -> str:
    """opencode's error for a name that is no skill (every name, sorted, or `none`)."""
    return f'Skill "{name}" not found. Available skills: {", ".join(sorted(skills)) or "none"}'


def sample_files(folder: Path) -> list[str]:
    """Up to ten files of a skill's folder besides its SKILL.md (hidden ones too, links not followed)."""
    found: list[str] = []
    for root, dirs, files in os.walk(folder):
        dirs.sort()
        found += [os.path.join(root, f) for f in sorted(files) if f != "SKILL.md"]
    return sorted(found)[:FILES_LISTED]


def content(skill: Skill) -> str:
    """The skill as opencode hands it to the model."""
    folder = skill.path.parent
    return "\n".join([f'<skill_content name="{skill.name}">', f"# Skill: {skill.name}", "",
                      skill.body.strip(), "", f"Base directory for this skill: {folder}",
                      "Relative paths in this skill (e.g., scripts/, reference/) are relative to this "
                      "base directory.", "Note: file list is sampled.", "", "<skill_files>",
                      "\n".join(f"<file>{f}</file>" for f in sample_files(folder)), "</skill_files>",
                      "</skill_content>"])


def execute(args: SkillArgs, ctx: ToolContext) -> ToolResult:
    config_dirs, external, paths = _sources(ctx)
    skills, _problems = discover(config_dirs, external, paths)
    skill = skills.get(args.name)
    if skill is None:
        return ToolResult(not_found(args.name, skills), title=f"skill {args.name}",
                          metadata={"truncated": False}, is_error=True)
    if str(skill.path) == BUILTIN_LOCATION:
        return ToolResult(f"{skill.name} is opencode 1.18.33's own built-in skill; its text is "
                          "opencode's and forge-tools does not reproduce it.", title=f"skill {skill.name}",
                          metadata={"name": skill.name}, is_error=True)
    return ToolResult(content(skill), title=f"Loaded skill: {skill.name}",
                      metadata={"name": skill.name, "dir": str(skill.path.parent)})


TOOL = Tool(id="skill", description=DESCRIPTION, parameters=SkillArgs, execute=execute,
            permission_requests=permission_requests)
