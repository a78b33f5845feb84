"""FT111: config that forge-tools accepts but opencode itself refuses, in files opencode reads. What
opencode refuses is the opencode runtime's (`runtimes.opencode.refusals`); this turns it into findings."""

from __future__ import annotations

from forge_tools.origin import Node
from forge_tools.report.findings import Finding
from forge_tools.runtimes.opencode.refusals import OPENCODE_FILES, VERSION, refusals


def action_only_maps(tree: Node, file_name: str) -> list[Finding]:
    """FT111 for each action-only permission given a pattern map in an opencode file."""
    if file_name not in OPENCODE_FILES:
        return []
    return [Finding(
        "FT111", "warning",
        f"`{found.where}` is a pattern map; opencode {VERSION} accepts only one action "
        f"for `{found.name}` and refuses to start with this file (forge-tools accepts it)",
        f"give `{found.name}` one action (allow, ask or deny), or move the map to a forge.* file, "
        "which opencode does not read",
        found.origin) for found in refusals(tree)]
