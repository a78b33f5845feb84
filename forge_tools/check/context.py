"""What the semantic checks look at: agents, their rulesets, each config level's own rules, and the
tools each agent's pipeline sees (found without importing project code unless asked).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from forge_tools.errors import ForgeToolsError
from forge_tools.named_tuple import NamedTuple
from forge_tools.names import known_names
from forge_tools.origin import Node
from forge_tools.rule import Rule

if TYPE_CHECKING:
    from forge_tools.config import LoadedConfig
    from forge_tools.permission.agents import Agent
    from forge_tools.runtimes import Chosen

USER_KINDS = frozenset({"file", "env", "cli"})
TOP = ""  # the scope name of the top-level config rules


def is_user_rule(rule: Rule) -> bool:
    """Written by the person (a config file or env/CLI source), as opposed to defaults and builtins."""
    return rule.origin.kind in USER_KINDS


class ToolView(NamedTuple):
    """A tool as one agent's pipeline sees it: id, permission name, visible or not, and the tool if loaded."""

    id: str
    permission: str
    visible: bool
    tool: Any = None  # the Tool when loaded (builtins always; scripts/plugins with --load-code)


@dataclass(eq=False)
class CheckContext:
    """What every check reads, gathered once per run (agents, scopes, pipeline results), with its caches."""

    loaded: LoadedConfig
    home: Path
    agents: dict[str, Agent]
    scopes: dict[str, list[Rule]]  # TOP and each configured agent name -> that level's own rules
    results: dict[str, Any] = field(default_factory=dict)  # agent name -> PipelineResult
    tool_ids: list[str] = field(default_factory=list)
    plugin_tools_known: bool = False
    # the plugins whose tools were not listed (no --load-code), as the plugin source names them
    plugins_unlisted: list[str] = field(default_factory=list)
    listed_mcp_servers: set[str] = field(default_factory=set)  # servers whose tools were listed
    problems: list[ForgeToolsError] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    # each config file's own tree by path (set by `run_check`): whether a key is repeated in one file's
    # map cannot be read from the merged tree, where a later file may have replaced the key
    source_trees: dict[str, Node] = field(default_factory=dict)
    runtime_name: str | None = None  # --runtime; None: the config's files choose (`runtimes.runtime_for`)
    _rule_sets: dict[str, frozenset[Rule]] = field(default_factory=dict, repr=False)
    _scope_by_rule: dict[Rule, str] | None = field(default=None, repr=False)
    _unique_user_rules: list[tuple[str, Rule]] | None = field(default=None, repr=False)

    @property
    def tools(self) -> dict[str, list[ToolView]]:
        """Agent name -> its candidates as `ToolView`s, made from the results when asked (a large
        project's results already hold every (agent, tool) pair once)."""
        return {name: [ToolView(v.id, v.permission, v.visible, v.tool) for v in result.tools]
                for name, result in self.results.items()}

    @property
    def runtime(self) -> Chosen:
        """Whose answers the checks about calls use: the chosen runtime (see `runtimes.runtime_for`)."""
        from forge_tools.runtimes import runtime_for

        return runtime_for(self.loaded, self.runtime_name)

    def rule_set(self, agent: str) -> frozenset[Rule]:
        """The agent's rules as a set: membership tests stay cheap on large configs."""
        if agent not in self._rule_sets:
            self._rule_sets[agent] = frozenset(self.agents[agent].ruleset)
        return self._rule_sets[agent]

    @property
    def enabled_agents(self) -> list[Agent]:
        agents = [a for a in self.agents.values() if not a.disabled]
        return agents or list(self.agents.values())

    @property
    def known_names(self) -> set[str]:
        return known_names(self.tool_ids)

    @property
    def mcp_prefixes(self) -> list[str]:
        """`<server>_` for each configured `mcp` server whose tools are not listed (no --load-code,
        disabled, or failed): opencode names its tools `<server>_<tool>`, so such a name may be right.
        A listed server's tools are known ids, so a misspelt one is reported like any unknown name."""
        from forge_tools.visibility.pipeline import mcp_configured

        if not mcp_configured(self.loaded):
            return []
        from forge_tools.sources.mcp_source import configured_server_names, sanitize

        return [sanitize(name) + "_" for name in configured_server_names(self.loaded.tree)
                if name not in self.listed_mcp_servers]

    def scope_of(self, rule: Rule) -> str | None:
        if self._scope_by_rule is None:
            self._scope_by_rule = {}
            for scope, rules in self.scopes.items():
                for r in rules:
                    self._scope_by_rule.setdefault(r, scope)
        return self._scope_by_rule.get(rule)

    def user_rules(self) -> list[tuple[str, Rule]]:
        return [(scope, r) for scope, rules in self.scopes.items() for r in rules if is_user_rule(r)]

    def unique_user_rules(self) -> list[tuple[str, Rule]]:
        """`user_rules` with each rule once (its first scope), computed once: most checks walk it."""
        if self._unique_user_rules is None:
            seen: set[Rule] = set()
            self._unique_user_rules = []
            for scope, rule in self.user_rules():
                if rule not in seen:
                    seen.add(rule)
                    self._unique_user_rules.append((scope, rule))
        return self._unique_user_rules


def build_context(loaded: LoadedConfig, load_code: bool = False,
                  progress: Callable[[str], None] | None = None) -> CheckContext:
    """Agents and per-level rules from the merged config, and each agent's tools from the pipeline."""
    from forge_tools.paths import home_dir
    from forge_tools.permission.agents import agent_nodes, load_agents
    from forge_tools.permission.rules import rules_from_config

    home = home_dir()
    tree = loaded.tree
    top = rules_from_config(tree.get("permission"), tree.get("tools"), home)
    own = {name: rules_from_config(node.get("permission"), node.get("tools"), home)
           for name, node in agent_nodes(tree).items()}
    scopes: dict[str, list[Rule]] = {TOP: top, **own}
    # the agents' rulesets hold these very records (not a second copy of every rule)
    ctx = CheckContext(loaded, home, load_agents(loaded, top_rules=top, agent_rules=own), scopes)
    _add_tools(ctx, load_code, progress)
    return ctx


def _add_tools(ctx: CheckContext, load_code: bool, progress: Callable[[str], None] | None = None) -> None:
    from forge_tools.visibility.pipeline import McpScope, Request, resolve_all
    from forge_tools.visibility.switches import turn_switches

    ids: dict[str, None] = {}
    client, flags = turn_switches()  # opencode's environment, as layers and explain read it
    results = resolve_all(ctx.loaded, Request(client=client, flags=flags), load_code=load_code,
                          agents=ctx.agents, problems=ctx.problems, mcp=McpScope(progress=progress))
    said = {p.one_line() for p in ctx.problems}
    notes = set(ctx.notes)
    for name, result in results.items():
        ctx.results[name] = result
        for v in result.tools:
            ids.setdefault(v.id, None)
        ctx.listed_mcp_servers.update(v.source.server for v in result.tools
                                      if v.source.kind == "mcp" and v.source.server)
        for problem in result.problems:  # each agent's result repeats the shared sources' problems
            line = problem.one_line()
            if line not in said:
                said.add(line)
                ctx.problems.append(problem)
        for note in result.notes:
            if note not in notes:
                notes.add(note)
                ctx.notes.append(note)
    ctx.tool_ids = list(ids)
    # every agent's result shares the sources' answers: the first says which plugins were not imported
    first = next(iter(results.values()), None)
    ctx.plugins_unlisted = [u.label for u in (first.parts_unlisted if first is not None else ())
                            if u.source.kind == "plugin"]
    ctx.plugin_tools_known = not ctx.plugins_unlisted
