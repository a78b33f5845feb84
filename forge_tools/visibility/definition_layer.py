"""Layer two (SPEC 3.2): the definition each tool is sent with.

Every plugin's `tool_definition` hook runs in plugin load order on a copy (the last writer wins; a
failing hook leaves the definition from before it), then the `task` tool's description gets the sorted
list of subagents this agent may dispatch. The layer never drops a tool: hooks cannot add, remove or
rename tools. Each accepted change is kept (`DefinitionChange`) so `explain` can show who changed
what as a unified diff, which is written only when it is read: `check` and `layers` make the `task`
change for every agent and never read its diff.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Iterator

    from forge_tools.errors import PluginError
    from forge_tools.permission.agents import Agent
    from forge_tools.sources.plugins import PluginHooks
    from forge_tools.tools.contract import Tool

SUBAGENT_LIST_AUTHOR = "forge-tools (task subagent list)"
AGENTS_PLACEHOLDER = "{agents}"


class DefinitionChange:
    """One accepted change of a definition: who made it (`by`) and, read as `diff`, the unified diff
    of the definition before and after it. Unpacks as `(by, diff)`."""

    __slots__ = ("_after", "_before", "_diff", "_tool_id", "by")

    def __init__(self, tool_id: str, by: str, before: dict[str, Any], after: dict[str, Any]) -> None:
        self.by, self._tool_id, self._before, self._after = by, tool_id, before, after
        self._diff: str | None = None

    @property
    def diff(self) -> str:
        if self._diff is None:
            self._diff = definition_diff(self._tool_id, self.by, self._before, self._after)
        return self._diff

    def __iter__(self) -> Iterator[str]:
        yield self.by
        yield self.diff

    def __getitem__(self, index: int) -> str:
        return (self.by, self.diff)[index]

    def __repr__(self) -> str:
        return f"DefinitionChange({self._tool_id!r}, by={self.by!r})"


@dataclass(eq=False, slots=True)
class DefinitionOutcome:
    """The final definition, the changes that produced it (author, diff), and hook failures.

    When nothing can change a tool's definition it is built only if someone reads it: generating
    every builtin's JSON Schema would cost `explain` start-up time for tools it never shows. Slotted:
    a large project has one per tool.
    """

    _definition: dict[str, Any] | None  # {"description", "parameters"}; None: the tool is not loaded
    changes: list[DefinitionChange] = field(default_factory=list)
    problems: list[PluginError] = field(default_factory=list)
    _lazy_tool: Tool | None = None
    not_computed: bool = False  # resolve(focus=...) computed layer two for another tool only

    @property
    def definition(self) -> dict[str, Any] | None:
        if self._definition is None and self._lazy_tool is not None:
            self._definition = base_definition(self._lazy_tool)
        return self._definition

    @definition.setter
    def definition(self, value: dict[str, Any] | None) -> None:
        self._definition = value

    @property
    def reason(self) -> str:
        if self.not_computed:
            return "definition not computed (only the explained tool's was asked for)"
        if self._definition is None and self._lazy_tool is None:
            return "definition unknown (the tool's code was not loaded)"
        authors = [change.by for change in self.changes]
        changed = ("definition changed by " + ", ".join(dict.fromkeys(authors))) if authors else ""
        if self.problems:  # SPEC 3.2: the failing hook's change is dropped, not the tool
            failed = ", ".join(dict.fromkeys(f"plugin {p.plugin}" for p in self.problems))
            kept = "the definition is the one from before that hook"
            return (f"the tool_definition hook of {failed} failed: {kept}"
                    + (f" ({changed})" if changed else " (as the tool declares it)"))
        return changed or "definition as the tool declares it"


def render_definition(definition: dict[str, Any]) -> list[str]:
    """The text a person reads (and diffs): the description, then the schema as indented JSON."""
    lines = ["description:"]
    lines += [f"  {line}" for line in str(definition.get("description", "")).splitlines() or [""]]
    lines.append("parameters:")
    schema = json.dumps(definition.get("parameters", {}), indent=2, sort_keys=False, default=str)
    lines += [f"  {line}" for line in schema.splitlines()]
    return lines


def estimated_tokens(definition: dict[str, Any]) -> int:
    """A definition's size in tokens, estimated as opencode does (characters / 4) over its compact
    JSON: what the tool costs in every request's context."""
    text = json.dumps(definition, separators=(",", ":"), ensure_ascii=False, default=str)
    return round(len(text) / 4)


def definition_diff(tool_id: str, who: str, before: dict[str, Any], after: dict[str, Any]) -> str:
    import difflib

    return "\n".join(difflib.unified_diff(
        render_definition(before), render_definition(after),
        fromfile=f"{tool_id} (before {who})", tofile=f"{tool_id} (after {who})", lineterm="",
    ))


def subagent_lines(subagents: Sequence[Agent]) -> list[str]:
    return [f"- {a.name}: {a.description}" if a.description else f"- {a.name}" for a in subagents]


def task_description(description: str, subagents: Sequence[Agent]) -> str:
    """The `task` description with the dispatchable subagents, sorted by name (SPEC 3.2)."""
    listing = "\n".join(subagent_lines(subagents)) or "(none: this agent may dispatch no subagent)"
    if AGENTS_PLACEHOLDER in description:
        return description.replace(AGENTS_PLACEHOLDER, listing)
    return f"{description.rstrip()}\n\nSubagents this agent may dispatch:\n{listing}"


def base_definition(tool: Tool) -> dict[str, Any]:
    return {"description": tool.description, "parameters": tool.json_schema()}


#: the outcomes of tools nothing rewrites, by tool id (`definition_layer`'s `plain`)
PlainOutcomes = dict[str, DefinitionOutcome]


def _plain_outcome(tool_id: str, tool: Tool, plain: PlainOutcomes | None) -> DefinitionOutcome:
    """The outcome of a tool nothing rewrites: the same for every agent, so agents' turns over the
    same sources share one record per tool through `plain`."""
    found = plain.get(tool_id) if plain is not None else None
    if found is None or found._lazy_tool is not tool:
        found = DefinitionOutcome(None, _lazy_tool=tool)
        if plain is not None:
            plain[tool_id] = found
    return found


def definition_for(tool_id: str, tool: Tool | None, hooks: PluginHooks | None,
                   subagents: Sequence[Agent], plain: PlainOutcomes | None = None) -> DefinitionOutcome:
    """Layer two for one tool: hooks in load order, then the subagent list for `task`. `plain`: the
    outcomes already made for tools nothing rewrites (see `_plain_outcome`)."""
    if tool is None:
        return DefinitionOutcome(None)
    if hooks is not None and not hooks.implements("tool_definition"):
        hooks = None
    if tool_id != "task" and hooks is None:
        return _plain_outcome(tool_id, tool, plain)
    current = base_definition(tool)
    outcome = DefinitionOutcome(current)
    if hooks:
        final, steps, problems = hooks.rewrite_definition(
            tool_id, current["description"], current["parameters"])
        outcome.problems.extend(problems)
        outcome.changes += [DefinitionChange(tool_id, step.plugin, step.before, step.after) for step in steps]
        current = final
    if tool_id == "task":
        after = {**current, "description": task_description(str(current["description"]), subagents)}
        outcome.changes.append(DefinitionChange(tool_id, SUBAGENT_LIST_AUTHOR, current, after))
        current = after
    outcome.definition = current
    return outcome


def definition_layer(tools: Iterable[tuple[str, Tool | None]], hooks: PluginHooks | None,
                     subagents: Sequence[Agent], focus: str | None = None,
                     plain: PlainOutcomes | None = None) -> dict[str, DefinitionOutcome]:
    """Layer two for every candidate (computed even for tools layer one dropped).

    Layer two never drops a tool, so a caller that shows one tool (`explain`) may ask for that tool's
    definition only (`focus`): the others are marked not computed instead of running every hook.
    `plain`: shared by the agents' turns over the same sources (see `_plain_outcome`).
    """
    if hooks is not None and not hooks.implements("tool_definition"):
        hooks = None
    return {
        tool_id: definition_for(tool_id, tool, hooks, subagents, plain)
        if focus is None or tool_id == focus else DefinitionOutcome(None, not_computed=True)
        for tool_id, tool in tools
    }
