"""The candidate tools of a turn: builtins, then config-dir scripts, then plugin tools (SPEC 2).

A later candidate whose id is already taken replaces the earlier one (a project may override a
builtin) and keeps the earlier one's place in the listing; the replacement is recorded as a
`Shadowing` so every listing and `explain` can say what was shadowed and by what.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from forge_tools.tools.contract import Tool, ToolSource


@dataclass
class Candidate:
    """One tool id's winner. `tool` is None when only the id is known (a static scan for `check`)."""

    id: str
    tool: Tool | None
    source: ToolSource
    shadowed: list[ToolSource] = field(default_factory=list)  # earlier candidates it replaced, in order


@dataclass(frozen=True)
class Shadowing:
    id: str
    shadowed: ToolSource
    by: ToolSource

    def describe(self) -> str:
        return f"{self.id}: {self.by} shadows {self.shadowed}"

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "shadowed": self.shadowed.to_json(), "by": self.by.to_json()}


@dataclass
class CandidateSet:
    candidates: list[Candidate]
    shadowings: list[Shadowing]

    def get(self, tool_id: str) -> Candidate | None:
        return next((c for c in self.candidates if c.id == tool_id), None)


Entry = tuple[str, "Tool | None", "ToolSource"]


def entries_of(tools: Iterable[Tool]) -> list[Entry]:
    return [(t.id, t, t.source) for t in tools]


def build_candidates(*sources: Iterable[Entry]) -> CandidateSet:
    """Merge the sources in order (builtins, scripts, plugins); later ids replace earlier ones."""
    by_id: dict[str, Candidate] = {}
    shadowings: list[Shadowing] = []
    for source in sources:
        for tool_id, tool, where in source:
            earlier = by_id.get(tool_id)
            if earlier is None:
                by_id[tool_id] = Candidate(tool_id, tool, where)
                continue
            shadowings.append(Shadowing(tool_id, earlier.source, where))
            earlier.shadowed.append(earlier.source)
            earlier.tool, earlier.source = tool, where
    return CandidateSet(list(by_id.values()), shadowings)


def collect_candidates(
    builtins: Iterable[Tool], scripts: Iterable[Tool], plugin_tools: Iterable[Tool]
) -> CandidateSet:
    """The three sources as loaded tools, in SPEC 2 order."""
    return build_candidates(entries_of(builtins), entries_of(scripts), entries_of(plugin_tools))
