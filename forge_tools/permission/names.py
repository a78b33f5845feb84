"""Which permission a tool's calls are checked under (SPEC 3.3): the edit family shares one."""

from __future__ import annotations

EDIT_FAMILY = frozenset({"edit", "write", "apply_patch", "multiedit", "patch"})


def permission_name(tool_id: str) -> str:
    """`edit` for every file-changing tool, so one `edit` rule governs them all; else the id."""
    return "edit" if tool_id in EDIT_FAMILY else tool_id
