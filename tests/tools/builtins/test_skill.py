"""skill: SKILL.md discovery in skill/ and skills/, the listing, loading, unknown names."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from forge_tools.tools.builtins import skill, skill_tool
from forge_tools.tools.contract import ToolContext


def _skill(base: Path, folder: str, name: str, text: str) -> Path:
    path = base / folder / name / "SKILL.md"
    path.parent.mkdir(parents=True)
    path.write_text(text)
    return path


def test_discover_list_and_load(tmp_path: Path, project: Path) -> None:
    global_dir = tmp_path / "global"
    local_dir = project / ".forge"
    _skill(global_dir, "skills", "release", "---\nname: release\ndescription: Cut a release\n---\nStep 1\n")
    _skill(global_dir, "skill", "pdf", "---\nname: pdf\ndescription: Work with PDFs\n---\nUse pdftotext.\n")
    _skill(local_dir, "skills", "release", "---\nname: release\ndescription: Our release\n---\nLocal steps\n")
    _skill(local_dir, "skills", "broken", "---\nname: [unclosed\n---\nx\n")
    dirs = [global_dir, local_dir]
    tool = skill_tool(dirs)
    assert "- pdf: Work with PDFs" in tool.description and "- release: Our release" in tool.description
    ctx = ToolContext(project_root=project, extra={"config_dirs": dirs})
    loaded = skill.execute(skill.SkillArgs(name="release"), ctx)
    assert not loaded.is_error and "Local steps" in loaded.output and "Step 1" not in loaded.output
    unknown = skill.execute(skill.SkillArgs(name="nope"), ctx)
    assert unknown.is_error and "pdf, release" in unknown.output and "broken" in unknown.output


def test_name_defaults_to_folder(tmp_path: Path) -> None:
    _skill(tmp_path, "skills", "lint", "Just a body, no front matter.\n")
    skills, problems = skill.discover([tmp_path])
    assert list(skills) == ["lint"] and skills["lint"].body.startswith("Just a body") and not problems


def test_no_skills(call: Any) -> None:
    assert "No skills are available" in skill.TOOL.description
    result = call(skill.TOOL, name="x")
    assert result.is_error and "Available skills: none" in result.output


def test_a_skill_file_that_is_a_device_is_reported_not_read(tmp_path) -> None:
    """A cloned project's `SKILL.md -> /dev/zero` must not eat memory (check lists skills too)."""
    import os

    from forge_tools.tools.builtins.skill import discover

    folder = tmp_path / "skills" / "zero"
    folder.mkdir(parents=True)
    os.symlink("/dev/zero", folder / "SKILL.md")
    skills, problems = discover([tmp_path])
    assert skills == {}
    assert len(problems) == 1 and "SKILL.md" in problems[0] and "regular file" in problems[0]
