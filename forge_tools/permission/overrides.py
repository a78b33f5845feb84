"""Where project config turns a deny of the person's own (global) config into ask or allow.

The load order lets a project override anything; this module finds the overrides of a global deny so
that `check` can report them (FT112) and `explain` can say which global rule the project overrode. A
project rule overrides a global deny when some call could match both (permission names and patterns
overlap), the project rule acts later in the agent's ruleset (or took the deny's place when a project
file set the same key), and it does not deny.

"Global" is the person's config: the global config directories and `FORGE_CONFIG`. "Project" is what
comes with the project: its config files, its `.forge/`/`.opencode/` directories and the Markdown
agents in them.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from forge_tools.named_tuple import NamedTuple
from forge_tools.permission.wildcard import literal_head, patterns_overlap
from forge_tools.rule import Rule

if TYPE_CHECKING:
    from forge_tools.config.loader import ConfigSource, LoadedConfig
    from forge_tools.origin import Node
    from forge_tools.permission.agents import Agent

PROJECT_STEPS = frozenset({"project", "config-dir"})


class Override(NamedTuple):
    """A project rule that loosens a global deny for one or more agents."""

    global_rule: Rule
    project_rule: Rule
    agents: tuple[str, ...]

    def describe(self) -> str:
        g, p = self.global_rule, self.project_rule
        return (f"project rule {p.permission} {p.pattern!r} {p.action} ({p.origin}) overrides the global "
                f"deny {g.permission} {g.pattern!r} ({g.origin})")


def is_project(source: ConfigSource, project_root: Path) -> bool:
    if source.step in PROJECT_STEPS:
        return True
    if source.step != "agent-file" or source.path is None:
        return False
    root = Path(project_root).resolve()
    real = Path(os.path.realpath(source.path))
    return real == root or root in real.parents


def _personal_tree(loaded: LoadedConfig) -> Node | None:
    """The person's own sources merged, from the trees the loader read (None when there are none)."""
    from forge_tools.config.merge import merge
    from forge_tools.origin import Node, Origin

    merged: Node | None = None
    for source, tree in zip(loaded.sources, loaded.source_trees, strict=True):
        if source.personal and source.path is not None:
            merged = merge(merged if merged is not None else Node({}, Origin("default")), tree)
    return merged


def global_denies(loaded: LoadedConfig) -> dict[str | None, list[Rule]]:
    """The person's deny rules by scope: None for the top level, else the agent's name."""
    tree = _personal_tree(loaded)
    if tree is None:
        return {}
    from forge_tools.paths import home_dir
    from forge_tools.permission.agents import agent_nodes
    from forge_tools.permission.rules import rules_from_config

    home = home_dir()
    scopes: dict[str | None, list[Rule]] = {
        None: rules_from_config(tree.get("permission"), tree.get("tools"), home)}
    for name, node in agent_nodes(tree).items():
        scopes[name] = rules_from_config(node.get("permission"), node.get("tools"), home)
    return {scope: [r for r in rules if r.action == "deny"] for scope, rules in scopes.items()}


def _overlap(deny: Rule, rule: Rule) -> bool:
    return patterns_overlap(deny.permission, rule.permission) and patterns_overlap(deny.pattern, rule.pattern)


class _DenyIndex:
    """Denies by their pattern's literal head: a rule can overlap only a deny whose head is a prefix of
    its own head, or starts with it (a text both match starts with both heads). FT112 compares project
    rules with global denies, which is pairwise by nature; this keeps it to the pairs that can meet."""

    def __init__(self, denies: list[Rule]) -> None:
        self.denies = denies
        self.by_head: dict[str, list[int]] = {}
        for i, deny in enumerate(denies):
            self.by_head.setdefault(literal_head(deny.pattern), []).append(i)
        self.heads = sorted(self.by_head)
        self.lengths = sorted({len(h) for h in self.heads})

    def candidates(self, rule: Rule) -> list[Rule]:
        """The denies whose patterns may overlap `rule`'s, in their order."""
        from bisect import bisect_left

        head = literal_head(rule.pattern)
        found: set[int] = set()
        for length in self.lengths:  # denies whose head is a prefix of the rule's
            if length > len(head):
                break
            found.update(self.by_head.get(head[:length], ()))
        for at in range(bisect_left(self.heads, head), len(self.heads)):  # ... or starts with it
            if not self.heads[at].startswith(head):
                break
            found.update(self.by_head[self.heads[at]])
        return [self.denies[i] for i in sorted(found)]


def project_overrides(loaded: LoadedConfig, agents: Mapping[str, Agent] | Iterable[Agent]) -> list[Override]:
    """Every (global deny, project rule) pair where the project rule can decide a call the deny was
    meant to decide, with the agents it applies to, in ruleset order."""
    denies = global_denies(loaded)
    if not any(denies.values()):
        return []
    project_paths = {str(s.path) for s in loaded.sources
                     if s.path is not None and is_project(s, loaded.project_root)}
    found: dict[tuple[Rule, Rule], list[str]] = {}
    indexes: dict[str | None, _DenyIndex] = {}  # per agent with own denies (None: the top level's alone)
    for agent in (agents.values() if isinstance(agents, Mapping) else agents):
        ruleset = list(agent.ruleset)
        position = {rule: i for i, rule in enumerate(ruleset)}
        scope = agent.name if denies.get(agent.name) else None
        index = indexes.get(scope)
        if index is None:
            index = indexes[scope] = _DenyIndex([*denies.get(None, []), *denies.get(agent.name, [])])
        for i, rule in enumerate(ruleset):
            if rule.action == "deny" or rule.origin.kind != "file" or rule.origin.path not in project_paths:
                continue
            for deny in index.candidates(rule):
                at = position.get(deny)
                if (at is None or at < i) and _overlap(deny, rule):
                    found.setdefault((deny, rule), []).append(agent.name)
    return [Override(deny, rule, tuple(names)) for (deny, rule), names in found.items()]
