"""Laying out one config of cases.json in scratch directories: the one code the recorder (record.py,
which runs the real binary there) and the compat test (test_claude_runtime.py, which asks forge-tools'
runtime there) share, so both see the very same files."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any


def expand(value: Any, names: Mapping[str, str]) -> Any:
    """`value` (a string, or lists and dicts of them, keys too: a state file's `projects` entry is
    keyed by the project's path) with each `$NAME` of `names` replaced."""
    if isinstance(value, str):
        for name, text in names.items():
            value = value.replace(name, text)
        return value
    if isinstance(value, list):
        return [expand(v, names) for v in value]
    if isinstance(value, dict):
        return {expand(k, names): expand(v, names) for k, v in value.items()}
    return value


def write_case_files(case: Mapping[str, Any], expand_value: Callable[[Any], Any], project: Path, home: Path,
                     check_target: Callable[[Path, str], None] | None = None) -> None:
    """The config's `files` (named with `$PROJECT`, `$HOME`, `$MANAGED`; JSON values written
    indented), `project_files`, `home_files` and `project_symlinks`. `check_target(path, name)` may
    refuse a file outside the scratch dirs."""
    for name, content in case.get("files", {}).items():
        target = Path(expand_value(name))
        if check_target is not None:
            check_target(target, name)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(expand_value(content) if isinstance(content, str)
                          else json.dumps(expand_value(content), indent=2))
    for root, key in ((project, "project_files"), (home, "home_files")):
        for rel, text in case.get(key, {}).items():
            target = root / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text)
    for rel, link_target in case.get("project_symlinks", {}).items():
        link = project / rel
        link.parent.mkdir(parents=True, exist_ok=True)
        link.symlink_to(link_target)  # relative targets only: the link stays inside the scratch dir
