"""skill: SKILL.md discovery in opencode 1.18.33's places and order, loading, unknown names (the
wording is checked against opencode's own records in tests/compat/test_opencode_layouts.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from forge_tools.config.skills import BUILTIN_SKILL, discover
from forge_tools.paths import external_skill_roots
from forge_tools.tools.builtins import skill
from forge_tools.tools.contract import ToolContext


def _skill(base: Path, folder: str, name: str, text: str) -> Path:
    path = base / folder / name / "SKILL.md"
    path.parent.mkdir(parents=True)
    path.write_text(text)
    return path


def test_discover_and_load(tmp_path: Path, project: Path) -> None:
    global_dir = tmp_path / "global"
    local_dir = project / ".opencode"
    _skill(global_dir, "skills", "release", "---\nname: release\ndescription: Cut a release\n---\nStep 1\n")
    _skill(global_dir, "skill", "pdf", "---\nname: pdf\ndescription: Work with PDFs\n---\nUse pdftotext.\n")
    path = _skill(local_dir, "skills", "release",
                  "---\nname: release\ndescription: Our release\n---\n\n  Local steps  \n")
    (path.parent / "scripts").mkdir()
    (path.parent / "scripts" / "go.sh").write_text("echo\n")
    _skill(local_dir, "skills", "broken", "---\nname: [unclosed\n---\nx\n")
    dirs = [global_dir, local_dir]
    ctx = ToolContext(project_root=project, extra={"config_dirs": dirs})
    loaded = skill.execute(skill.SkillArgs(name="release"), ctx)
    assert not loaded.is_error and loaded.title == "Loaded skill: release"
    assert loaded.output.splitlines()[:4] == ['<skill_content name="release">', "# Skill: release", "",
                                              "Local steps"]
    assert f"Base directory for this skill: {path.parent}" in loaded.output
    assert f"<file>{path.parent / 'scripts' / 'go.sh'}</file>" in loaded.output
    assert "Step 1" not in loaded.output and loaded.output.endswith("</skill_files>\n</skill_content>")
    unknown = skill.execute(skill.SkillArgs(name="nope"), ctx)
    assert unknown.is_error
    assert unknown.output == ('Skill "nope" not found. Available skills: '
                              f"{BUILTIN_SKILL}, pdf, release")


def test_a_skill_md_without_front_matter_is_no_skill(tmp_path: Path) -> None:
    _skill(tmp_path, "skills", "lint", "Just a body, no front matter.\n")
    _skill(tmp_path, "skills", "named", "---\ndescription: no name\n---\nbody\n")
    skills, problems = discover([tmp_path])
    assert list(skills) == [BUILTIN_SKILL] and len(problems) == 2


def test_claude_and_agents_folders_in_home_and_project(tmp_path: Path) -> None:
    home, worktree = tmp_path / "home", tmp_path / "repo"
    start = worktree / "sub"
    for base in (home / ".claude", home / ".agents", worktree / ".claude", start / ".agents"):
        _skill(base, "skills", base.parent.name + base.name,
               f"---\nname: {base.parent.name}{base.name}\ndescription: d\n---\nb\n")
    roots = external_skill_roots(home, start, worktree, {})
    assert roots == [home / ".claude", home / ".agents", start / ".agents", worktree / ".claude"]
    skills, _ = discover([], roots)
    assert list(skills) == [BUILTIN_SKILL, "home.claude", "home.agents", "sub.agents", "repo.claude"]
    assert external_skill_roots(home, start, worktree, {"OPENCODE_DISABLE_CLAUDE_CODE_SKILLS": "1"}) == [
        home / ".agents", start / ".agents"]
    assert external_skill_roots(home, start, worktree, {"OPENCODE_DISABLE_CLAUDE_CODE": "true"}) == [
        home / ".agents", start / ".agents"]
    assert external_skill_roots(home, start, worktree, {"OPENCODE_DISABLE_EXTERNAL_SKILLS": "1"}) == []


def test_no_skills_but_the_builtin_one(call: Any) -> None:
    assert "skills listed in the system prompt" in skill.TOOL.description
    result = call(skill.TOOL, name="x")
    assert result.is_error and result.output == f'Skill "x" not found. Available skills: {BUILTIN_SKILL}'
    builtin = call(skill.TOOL, name=BUILTIN_SKILL)
    assert builtin.is_error and "does not reproduce" in builtin.output


def test_a_skill_file_that_is_a_device_is_reported_not_read(tmp_path) -> None:
    """A cloned project's `SKILL.md -> /dev/zero` must not eat memory (check lists skills too)."""
    import os

    folder = tmp_path / "skills" / "zero"
    folder.mkdir(parents=True)
    os.symlink("/dev/zero", folder / "SKILL.md")
    skills, problems = discover([tmp_path], builtin=False)
    assert skills == {}
    assert len(problems) == 1 and "SKILL.md" in problems[0] and "regular file" in problems[0]
