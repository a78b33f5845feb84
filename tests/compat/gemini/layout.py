"""Lay out one Gemini CLI config of cases.json: the home (~/.gemini: settings.json, policies/,
trustedFolders.json), the project (.gemini/settings.json, .gemini/policies/, files) and the system
directory (settings.json, system-defaults.json, policies/ with its mode). Shared by record.py and the
compat test, so the binary and forge-tools see the same files."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any


def project_dir(case: dict[str, Any], home: Path, project: Path) -> Path:
    """Where Gemini starts: the project, or the home directory itself (`project_is_home`)."""
    return home if case.get("project_is_home") else project


def write_case(case: dict[str, Any], home: Path, project: Path, system: Path) -> None:
    """Write `case`'s files below `home`, `project` and `system` (the system directory's own mode
    is `case["system_mode"]`, default 0o755). `@PROJECT@` in a settings or policy text is the
    project's path; `symlinks` are made in the project; `trust_entries` are trustedFolders.json's."""
    project = project_dir(case, home, project)
    case = json.loads(json.dumps(case).replace("@PROJECT@", str(project)))
    gemini_home = home / ".gemini"
    gemini_home.mkdir(parents=True, exist_ok=True)
    project.mkdir(parents=True, exist_ok=True)
    _json(gemini_home / "settings.json", case.get("user_settings"))
    _json(project / ".gemini" / "settings.json", case.get("workspace_settings"))
    _json(system / "settings.json", case.get("system_settings"))
    _json(system / "system-defaults.json", case.get("system_defaults"))
    _files(gemini_home / "policies", case.get("user_policies"))
    _files(project / ".gemini" / "policies", case.get("workspace_policies"))
    _files(system / "policies", case.get("admin_policies"))
    _files(project, case.get("project_files"))
    for name, target in (case.get("symlinks") or {}).items():
        (project / name).symlink_to(target)
    if case.get("trust_entries"):
        _json(gemini_home / "trustedFolders.json", case["trust_entries"])
    elif case.get("trusted", True):
        _json(gemini_home / "trustedFolders.json", {str(project): "TRUST_FOLDER"})
    if (system / "policies").is_dir():
        os.chmod(system / "policies", int(case.get("system_mode", "755"), 8))


def _json(path: Path, value: Any) -> None:
    if value is None:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(value if isinstance(value, str) else json.dumps(value, indent=2) + "\n")


def _files(folder: Path, files: dict[str, str] | None) -> None:
    for name, text in (files or {}).items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def same_attempted_path(requested: str, theirs: str, their_project: str, ours: str,
                        our_project: Path) -> bool:
    """Whether Gemini's refusal and ours name the same path. An absolute request names the same file
    on every machine; a relative one is compared relative to each run's own project folder (the
    recorder's temp folder and the test's differ in depth)."""
    import os

    if os.path.isabs(requested):
        return os.path.normpath(theirs) == os.path.normpath(ours)
    return os.path.relpath(theirs, their_project) == os.path.relpath(ours, our_project)
