"""The candidate tools of a turn, merged from the sources' listings in `forge_tools.sources` order
(builtins, config-dir scripts, opencode's script tools, plugin tools, MCP tools; SPEC 2).

A later candidate whose id is already taken replaces the earlier one (a project may override a
builtin) and keeps the earlier one's place in the listing; the replacement is recorded as a
`Shadowing` so every listing and `explain` can say what was shadowed and by what.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from forge_tools.errors import ConfigError
from forge_tools.named_tuple import NamedTuple
from forge_tools.origin import Origin

if TYPE_CHECKING:
    from forge_tools.errors import ForgeToolsError
    from forge_tools.tools.contract import Tool, ToolSource


class Candidate(NamedTuple):
    """One tool id's winner. `tool` is None when only the id is known (a static scan for `check`)."""

    id: str
    tool: Tool | None
    source: ToolSource
    shadowed: list[ToolSource]  # earlier candidates it replaced, in order


class Shadowing(NamedTuple):
    """A candidate replaced by a later one of the same id: which id, the earlier source, the later."""

    id: str
    shadowed: ToolSource
    by: ToolSource

    def describe(self) -> str:
        return f"{self.id}: {self.by} shadows {self.shadowed}"

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "shadowed": self.shadowed.to_json(), "by": self.by.to_json()}


class CandidateSet(NamedTuple):
    """The turn's candidates in listing order, what each replaced, and the tools left out as malformed."""

    candidates: list[Candidate]
    shadowings: list[Shadowing]
    problems: list[ForgeToolsError]  # tools left out as malformed

    def get(self, tool_id: str) -> Candidate | None:
        return next((c for c in self.candidates if c.id == tool_id), None)


Entry = tuple[str, "Tool | None", "ToolSource"]  # a `tools.contract.Listed` is one


def entries_of(tools: Iterable[Tool]) -> list[Entry]:
    return [(t.id, t, t.source) for t in tools]


def tool_problem(tool: Tool) -> str | None:
    """What makes a tool unusable as the model's definition (a non-string description, parameters that
    are no schema), or None. Checked where tools are collected, so the tool's own source is named."""
    from forge_tools.tools.contract import LazyTool

    if not isinstance(tool.description, str):
        return f"its description is {_a(type(tool.description).__name__)}, not a string"
    if isinstance(tool, LazyTool):  # its model is built by our own code (@tool, a builtin), when used
        return None
    params = tool.parameters
    if not (isinstance(params, dict) or (isinstance(params, type) and _is_model(params))):
        return (f"its parameters are {_a(type(params).__name__)}, not a JSON Schema object (dict) or a "
                "pydantic model class")
    return None


def _is_model(cls: type) -> bool:
    from pydantic import BaseModel

    return issubclass(cls, BaseModel)


def _a(word: str) -> str:
    return f"{'an' if word[:1] in 'aeiouAEIOU' else 'a'} {word}"


class ScriptProblem(ConfigError):
    """A config-dir script that failed (import, or a malformed tool): a located config error that
    reports say came from a script, named by the script's file name."""

    def __init__(self, message: str, path: str | None, line: int | None = None,
                 name: str | None = None, column: int | None = None) -> None:
        super().__init__(message, Origin("file", path=path, line=line, column=column) if path else None)
        self.name = name or (Path(path).name if path else "?")


def script_problem(message: str, path: str | None, line: int | None = None,
                   name: str | None = None, column: int | None = None) -> ScriptProblem:
    return ScriptProblem(message, path, line, name, column)


def problem_to_json(problem: ForgeToolsError) -> dict[str, Any]:
    """One reported problem as data: which kind of thing failed, its name, where, and the message
    (`text` is the one-line form the CLI prints)."""
    from forge_tools.errors import PluginError

    origin = getattr(problem, "origin", None)
    name: str | None
    if isinstance(problem, PluginError):
        kind, name = "plugin", problem.plugin
    elif isinstance(problem, ScriptProblem):
        kind, name = "script", problem.name
    else:
        kind, name = "config", Path(origin.path).name if origin is not None and origin.path else None
    return {
        "kind": kind,
        "name": name,
        "origin": origin.to_json() if origin is not None else None,
        "message": problem.message,
        "text": problem.one_line(),
    }


def _problem_for(tool_id: str, where: ToolSource, why: str) -> ForgeToolsError:
    from forge_tools.errors import PluginError

    message = f"tool {tool_id!r}: {why}; the tool was not loaded"
    if where.kind == "plugin":
        origin = Origin("file", path=where.path) if where.path else None
        return PluginError(message + " (fix the tool the plugin registers)", where.plugin or "?", origin)
    return script_problem(message, where.path, where.line)


def build_candidates(*sources: Iterable[Entry]) -> CandidateSet:
    """Merge the sources in order (builtins, scripts, plugins); later ids replace earlier ones.

    A malformed tool (see `tool_problem`) is left out and reported against its own source.
    """
    winners: dict[str, tuple[Tool | None, ToolSource]] = {}  # a replacement keeps the first one's place
    replaced: dict[str, list[ToolSource]] = {}
    shadowings: list[Shadowing] = []
    problems: list[ForgeToolsError] = []
    for source in sources:
        for tool_id, tool, where in source:
            why = tool_problem(tool) if tool is not None else None
            if why is not None:
                problems.append(_problem_for(tool_id, where, why))
                continue
            earlier = winners.get(tool_id)
            if earlier is not None:
                shadowings.append(Shadowing(tool_id, earlier[1], where))
                replaced.setdefault(tool_id, []).append(earlier[1])
            winners[tool_id] = (tool, where)
    candidates = [Candidate(tool_id, tool, where, replaced.get(tool_id, []))
                  for tool_id, (tool, where) in winners.items()]
    return CandidateSet(candidates, shadowings, problems)


def collect_candidates(
    builtins: Iterable[Tool], scripts: Iterable[Tool], plugin_tools: Iterable[Tool]
) -> CandidateSet:
    """The three sources as loaded tools, in SPEC 2 order."""
    return build_candidates(entries_of(builtins), entries_of(scripts), entries_of(plugin_tools))
