"""Config that forge-tools accepts but opencode itself refuses, in files opencode reads.

Observed by running opencode 1.18.33 on an opencode.json with a pattern map for each permission name
(`{"<name>": {"*": "ask", "x": "allow"}}`): it refuses to start for these names, accepting only a single
action there. forge-tools accepts the map (SPEC 4.2), so without this finding a project could pass
`check` and still not start in opencode.
"""

from __future__ import annotations

from collections.abc import Iterator

from forge_tools.origin import Node
from forge_tools.report.findings import Finding

OPENCODE_FILES = ("opencode.json", "opencode.jsonc")
ACTION_ONLY = ("doom_loop", "question", "todowrite", "webfetch", "websearch")
OPENCODE_VERSION = "1.18.33"


def _permission_maps(tree: Node) -> Iterator[tuple[str, Node]]:
    top = tree.get("permission")
    if top is not None:
        yield "permission", top
    for section in ("agent", "mode"):
        agents = tree.get(section)
        for name, agent in agents.items() if agents is not None and agents.is_map else ():
            permission = agent.get("permission") if agent.is_map else None
            if permission is not None:
                yield f"{section}.{name}.permission", permission


def action_only_maps(tree: Node, file_name: str) -> list[Finding]:
    """FT111 for each action-only permission given a pattern map in an opencode file."""
    if file_name not in OPENCODE_FILES:
        return []
    findings: list[Finding] = []
    for where, permission in _permission_maps(tree):
        for name, value in permission.items() if permission.is_map else ():
            if name in ACTION_ONLY and value.is_map:
                findings.append(Finding(
                    "FT111", "warning",
                    f"`{where}.{name}` is a pattern map; opencode {OPENCODE_VERSION} accepts only one action "
                    f"for `{name}` and refuses to start with this file (forge-tools accepts it)",
                    f"give `{name}` one action (allow, ask or deny), or move the map to a forge.* file, "
                    "which opencode does not read",
                    value.key_origin or value.origin,
                ))
    return findings
