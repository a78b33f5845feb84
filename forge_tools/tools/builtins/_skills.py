"""The `skill` tool's description, kept apart from the tool (no pydantic here): listing tools builds it.

Where skills are and how they are read is `config/skills.py`.
"""

from __future__ import annotations

from forge_tools.config.skills import Skill

INTRO = """Load a skill: detailed instructions for a particular kind of task, written by the user or
the project. Call it with the skill's `name` when the task matches the skill's description, before
starting the work, and follow what it says."""


def describe(skills: dict[str, Skill]) -> str:
    """The `skill` tool's description: what it does and the skills there are."""
    if not skills:
        return INTRO + "\n\nNo skills are available right now."
    listing = "\n".join(f"- {s.name}: {s.description or '(no description)'}"
                        for s in sorted(skills.values(), key=lambda s: s.name))
    return f"{INTRO}\n\nAvailable skills:\n{listing}"
