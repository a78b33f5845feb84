"""The semantic checks of `check`: each is a function `CheckContext -> list[Finding]`.

They read the agents' final rulesets exactly as the permission engine concatenates them (defaults,
builtin agent rules, top-level config, agent config, tail), but report only rules a person wrote.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from forge_tools.check.context import TOP, CheckContext, is_user_rule
from forge_tools.config.formats import ConfigFormat
from forge_tools.names import EDIT_FAMILY, PERMISSION_ONLY_NAMES, builtin_ids, permission_name
from forge_tools.origin import Node, Origin, format_key_path
from forge_tools.permission.wildcard import (
    WildcardIndex,
    any_matching_text,
    has_wildcard,
    literal_head,
    literal_tail,
    normalize,
    pattern_subsumes,
    wildcard_match,
)
from forge_tools.report.findings import Finding, Related
from forge_tools.rule import Rule

if TYPE_CHECKING:
    from array import array

    from forge_tools.permission.agents import Agent


def _syntax(origin: Origin | None) -> ConfigFormat:
    """The config language fix advice for `origin` is written in: its file's (JSON for the rest)."""
    from forge_tools.config.formats import by_name, for_path

    if origin is not None and origin.kind == "file" and origin.path:
        return for_path(origin.path)
    return by_name("json")


def rule_text(rule: Rule) -> str:
    return f"{rule.permission} {json.dumps(rule.pattern)} {rule.action}"


def _scope_words(scope: str | None) -> str:
    if scope is None or scope == TOP:
        return "top-level `permission`"
    return f"agent {scope}'s `permission`"


def _suggest(name: str, names: Iterable[str]) -> list[str]:
    return difflib.get_close_matches(name, sorted(set(names)), n=3, cutoff=0.6)


#: up to this many tool ids, did-you-mean compares an unknown name with each of them
SUGGEST_SCAN_LIMIT = 200


class NameSuggester:
    """did-you-mean for unknown permission names, built once per `check`.

    The known permission names and builtin tools are always compared (difflib, as everywhere). Tool ids
    are compared one by one while there are at most `SUGGEST_SCAN_LIMIT` of them; beyond that only the
    ids one edit away (a letter wrong, missing, added, or two swapped) are candidates, found through an
    index of one-letter deletions, so a large project does not compare every unknown name with every
    tool id."""

    def __init__(self, permission_names: Iterable[str], tool_ids: Iterable[str]) -> None:
        self.fixed = sorted(set(permission_names))
        self.tools = sorted(set(tool_ids) - set(self.fixed))
        self._deletions: list[array[int]] | None = None

    @staticmethod
    def _variants(name: str) -> set[str]:
        return {name, *(name[:i] + name[i + 1:] for i in range(len(name)))}

    #: the one-letter deletions are kept as 64-bit keys (40 bits of the variant's hash, 23 of the tool's
    #: position) in 256 sorted arrays: 8 bytes a variant, where a dict of strings took ~150 (100,000
    #: tool ids have 1.9 million variants)
    _BUCKETS, _HASH_BITS, _INDEX_BITS = 256, 40, 23

    def _index(self) -> list[array[int]]:
        from array import array

        buckets = [array("q") for _ in range(self._BUCKETS)]
        keep = (1 << self._HASH_BITS) - 1
        for i, tool_id in enumerate(self.tools):
            for variant in self._variants(tool_id):
                h = hash(variant)
                buckets[h % self._BUCKETS].append((((h >> 8) & keep) << self._INDEX_BITS) | i)
        for n, bucket in enumerate(buckets):
            buckets[n] = array("q", sorted(bucket))  # one bucket's ints at a time
        return buckets

    def _near(self, name: str) -> list[str]:
        if len(self.tools) <= SUGGEST_SCAN_LIMIT or len(self.tools) >= 1 << self._INDEX_BITS:
            return self.tools
        from bisect import bisect_left

        if self._deletions is None:
            self._deletions = self._index()
        keep, low = (1 << self._HASH_BITS) - 1, (1 << self._INDEX_BITS) - 1
        mine = self._variants(name)
        near: set[str] = set()
        for variant in mine:
            h = hash(variant)
            bucket, head = self._deletions[h % self._BUCKETS], (h >> 8) & keep
            at = bisect_left(bucket, head << self._INDEX_BITS)
            while at < len(bucket) and bucket[at] >> self._INDEX_BITS == head:
                tool_id = self.tools[bucket[at] & low]
                if tool_id not in near and not mine.isdisjoint(self._variants(tool_id)):
                    near.add(tool_id)  # a shared variant, not only a shared hash: one edit away
                at += 1
        return sorted(near)

    def suggest(self, name: str) -> list[str]:
        return difflib.get_close_matches(name, [*self.fixed, *self._near(name)], n=3, cutoff=0.6)


def _did_you_mean(suggestions: list[str]) -> str:
    return f" (did you mean {', '.join(repr(s) for s in suggestions)}?)" if suggestions else ""


def _unique_rules(ctx: CheckContext) -> list[tuple[str, Rule]]:
    return ctx.unique_user_rules()


# ------------------------------------------------------------------------------- permission names


def unknown_permissions(ctx: CheckContext) -> list[Finding]:
    """FT101/FT102/FT110: names that match no tool and no known permission."""
    known = ctx.known_names
    findings: list[Finding] = []
    reported: set[tuple[str, object]] = set()
    level_if_unsure = "error" if ctx.plugin_tools_known else "warning"
    unsure = "" if ctx.plugin_tools_known else " (plugin tools are unknown without --load-code)"
    mcp = ctx.mcp_prefixes
    sorted_known = sorted({normalize(k) for k in known})
    suggester = NameSuggester([*PERMISSION_ONLY_NAMES, *builtin_ids()], ctx.tool_ids)
    for _scope, rule in _unique_rules(ctx):
        name = rule.permission
        key = (name, rule.origin)
        if key in reported:
            continue
        reported.add(key)
        lead = literal_head(name)
        if any(lead.startswith(m) or (has_wildcard(name) and m.startswith(lead)) for m in mcp):
            continue  # may name a tool of a configured MCP server
        if has_wildcard(name):
            if not any_matching_text(name, sorted_known):
                findings.append(Finding(
                    "FT102", "warning", f"permission name {name!r} matches no tool and no known permission"
                    f"{unsure}", "fix the wildcard or remove the rule; it never applies", rule.origin))
            continue
        if name in EDIT_FAMILY and name != "edit":
            hint, related = _rename_hint(ctx, rule, "edit", f"rename the key {name!r} to 'edit'")
            findings.append(Finding(
                "FT110", "warning",
                f"permission {name!r} never matches a call: {name} is checked under the `edit` permission",
                hint, rule.origin, related))
            continue
        if name in known:
            continue
        suggestions = suggester.suggest(name)
        hint, related = "fix the name or remove the rule", ()
        if suggestions:
            hint, related = _rename_hint(ctx, rule, suggestions[0], f"rename it to {suggestions[0]!r}")
        findings.append(Finding(
            "FT101", level_if_unsure,  # type: ignore[arg-type]
            f"unknown permission name {name!r}{_did_you_mean(suggestions)}: it matches no tool and no "
            f"known permission{unsure}",
            hint, rule.origin, related, data={"name": name, "suggestions": suggestions}))
    return findings


def _rename_hint(ctx: CheckContext, rule: Rule, new: str, rename: str) -> tuple[str, tuple[Related, ...]]:
    """`rename`, unless the map holding the rule's key already has the key `new` in the same file:
    renaming would then repeat a key (FT007), so the hint says to merge into that key, naming where."""
    existing = _sibling_key(ctx, rule, new)
    if existing is None:
        return rename, ()
    where = f"line {existing.line}" if existing.line is not None else format_key_path(existing.key_path)
    hint = (f"merge its rules into the existing {new!r} key ({where}) and delete this key: renaming it "
            f"would write {new!r} twice in the same map")
    return hint, (Related(f"existing {new!r} key at", existing),)


def _sibling_key(ctx: CheckContext, rule: Rule, key: str) -> Origin | None:
    """Where `key` is written in the map that holds the rule's permission name, in the same source."""
    keys, name = rule.origin.key_path, rule.permission
    if keys and keys[-1] == name and rule.pattern == "*":
        parent = keys[:-1]  # `name: action`
    elif len(keys) >= 2 and keys[-2] == name:
        parent = keys[:-2]  # `name: {pattern: action}`
    else:
        return None
    own = ctx.source_trees.get(rule.origin.path or "") if rule.origin.kind == "file" else None
    node: Node | None = own if own is not None else ctx.loaded.tree
    for part in parent:
        node = node.get(part) if node is not None else None
    if node is None or node.get(name) is None or node.get(key) is None:
        return None
    found = node.value[key]
    where: Origin = found.key_origin or found.origin
    if own is None and (where.kind, where.path, where.name) != (rule.origin.kind, rule.origin.path,
                                                               rule.origin.name):
        return None  # another source's key (in the merged tree): renaming does not repeat it
    return where


# ------------------------------------------------------------------------------- unreachable rules


def covers(later: Rule, earlier: Rule) -> bool:
    """Whether `later` matches every (permission, pattern) that `earlier` matches (exact for * and ?)."""
    return (pattern_subsumes(later.permission, earlier.permission)
            and pattern_subsumes(later.pattern, earlier.pattern))


class CoverIndex:
    """The rules of a ruleset indexed by the literal prefixes of their permission and pattern, then by
    their pattern's literal tail, so finding a later rule that covers a given one costs about one
    dictionary look-up per prefix length (and per tail length of a bucket found) instead of a scan of
    every later rule. A rule covers another only when its pattern's head starts and its tail ends the
    other's (`permission.wildcard.may_subsume`): patterns with the same head (`**/*.a`, `**/*.b`, ...)
    are not all tried for each rule."""

    def __init__(self, ruleset: tuple[Rule, ...]) -> None:
        self.ruleset = ruleset
        # permission head -> pattern head -> pattern tail -> positions (ascending)
        self.index: dict[str, dict[str, dict[str, list[int]]]] = {}
        for i, r in enumerate(ruleset):
            heads = self.index.setdefault(literal_head(r.permission), {})
            heads.setdefault(literal_head(r.pattern), {}).setdefault(literal_tail(r.pattern), []).append(i)
        # the lengths worth slicing at: of the permission heads, of each one's pattern heads, and of
        # each bucket's tails (a look-up tries only the lengths some rule has under what it matched)
        self.perm_lengths = sorted({len(k) for k in self.index})
        self.pattern_lengths = {perm: sorted({len(k) for k in heads}) for perm, heads in self.index.items()}
        self.tail_lengths = {(perm, head): sorted({len(t) for t in tails})
                             for perm, heads in self.index.items() for head, tails in heads.items()}

    def first_coverer(self, rule: Rule, after: int = -1) -> Rule | None:
        """The first rule at a position past `after` that covers `rule`, or None."""
        from bisect import bisect_right

        perm, pattern = literal_head(rule.permission), literal_head(rule.pattern)
        tail = literal_tail(rule.pattern)
        candidates: list[int] = []
        index, tail_lengths = self.index, self.tail_lengths
        size, end = len(pattern), len(tail)
        for a in self.perm_lengths:
            if a > len(perm):
                break
            name = perm[:a]
            heads = index.get(name)
            if heads is None:
                continue
            for b in self.pattern_lengths[name]:
                if b > size:
                    break
                tails = heads.get(pattern[:b])
                if not tails:
                    continue
                for c in tail_lengths[(name, pattern[:b])]:
                    if c > end:
                        break
                    later = tails.get(tail[end - c:])
                    if later and later[-1] > after:
                        candidates.extend(later[bisect_right(later, after):])
        for j in sorted(candidates):
            if covers(self.ruleset[j], rule):
                return self.ruleset[j]
        return None


def dead_rules(ruleset: tuple[Rule, ...]) -> dict[Rule, Rule]:
    """Each user rule that a later rule covers -> the nearest such later rule."""
    index = CoverIndex(ruleset)
    dead: dict[Rule, Rule] = {}
    for i, rule in enumerate(ruleset):
        if is_user_rule(rule):
            later = index.first_coverer(rule, i)
            if later is not None:
                dead[rule] = later
    return dead


class AgentDeadRules:
    """`dead_rules` of every enabled agent's ruleset, answered per (agent, rule) on demand.

    An agent's ruleset is builtin rules, the top-level rules, its own rules and a common tail, so a
    top-level rule is dead when a later top-level rule covers it (the same for all agents, analysed
    once) or, failing that, a rule of the agent's own remainder does. The remainders are analysed once
    per distinct remainder; a top-level rule is looked up in a remainder's index only when asked, so
    200 agents over 20,000 top-level rules cost what the questions cost, not 4 million look-ups made
    ahead (most top-level rules are alive in the first agent asked)."""

    def __init__(self, ctx: CheckContext) -> None:
        self.top = tuple(ctx.scopes.get(TOP, ()))
        self.top_set = frozenset(self.top)
        self.within_top = dead_rules(self.top) if self.top else {}
        self.agents = ctx.enabled_agents
        # agent name -> its rules outside the top-level block: their dead rules, the index of them and
        # the memo of top-level rules asked of it (shared by agents with the same remainder)
        self._split: dict[str, tuple[dict[Rule, Rule], CoverIndex, dict[Rule, Rule | None]]] = {}
        self._whole: dict[str, dict[Rule, Rule]] = {}  # an agent without the block: all of its rules
        by_rest: dict[tuple[Rule, ...], tuple[dict[Rule, Rule], CoverIndex, dict[Rule, Rule | None]]] = {}
        own: dict[Rule, list[int]] = {}  # rule -> positions of the agents holding it outside the block
        self._with_top: list[Agent] = []
        for position, agent in enumerate(self.agents):
            ruleset = tuple(agent.ruleset)
            start = _block_start(ruleset, self.top)
            if start is None:
                self._whole[agent.name] = dead_rules(ruleset)
                outside = ruleset
            else:
                rest = ruleset[start + len(self.top):]
                if rest not in by_rest:
                    by_rest[rest] = (dead_rules(rest), CoverIndex(rest), {})
                self._split[agent.name] = by_rest[rest]
                self._with_top.append(agent)
                outside = ruleset[:start] + rest
            for rule in dict.fromkeys(outside):
                own.setdefault(rule, []).append(position)
        self._own = own
        self._position = {agent.name: i for i, agent in enumerate(self.agents)}

    def holders(self, rule: Rule) -> list[Agent]:
        """The enabled agents whose ruleset holds `rule`, in agent order (do not change the list)."""
        positions = self._own.get(rule, [])
        if rule not in self.top_set:
            return [self.agents[i] for i in positions]
        if not positions:
            return self._with_top
        with_top = {id(a) for a in self._with_top}
        extra = set(positions)
        return [a for i, a in enumerate(self.agents) if id(a) in with_top or i in extra]

    def holds(self, agent: str, rule: Rule) -> bool:
        """Whether the enabled agent's ruleset holds `rule`."""
        if rule in self.top_set and agent in self._split:
            return True
        return self._position[agent] in self._own.get(rule, ())

    def coverer(self, agent: str, rule: Rule) -> Rule | None:
        """The nearest later rule of the agent's ruleset that covers `rule` (a user rule), or None:
        exactly `dead_rules(tuple(agent.ruleset)).get(rule)`."""
        split = self._split.get(agent)
        if split is None:
            return self._whole[agent].get(rule)
        rest_dead, rest_index, asked = split
        if rule in self.top_set:
            if not is_user_rule(rule):
                return None
            if rule not in asked:
                asked[rule] = self.within_top.get(rule) or rest_index.first_coverer(rule)
            return asked[rule]
        return rest_dead.get(rule)


def dead_rules_by_agent(ctx: CheckContext) -> dict[str, dict[Rule, Rule]]:
    """`dead_rules` of every enabled agent, as `AgentDeadRules` answers it (every rule asked)."""
    dead = AgentDeadRules(ctx)
    result: dict[str, dict[Rule, Rule]] = {}
    for agent in dead.agents:
        answers = ((rule, dead.coverer(agent.name, rule)) for rule in agent.ruleset)
        result[agent.name] = {rule: later for rule, later in answers if later is not None}
    return result


def _block_start(ruleset: tuple[Rule, ...], block: tuple[Rule, ...]) -> int | None:
    """Where `block` sits, contiguous, in `ruleset` (None if it does not, or is empty)."""
    if not block:
        return None
    try:
        start = ruleset.index(block[0])
    except ValueError:
        return None
    return start if ruleset[start:start + len(block)] == block else None


def _merge_order_words(rule: Origin | None, later: Origin | None) -> str:
    """Why a rule written above, or in another file, still comes later: said when the file does not
    show it (merge order is the files in load order, then in each the top-level `permission` before
    the agents' and a legacy `tools` map before `permission`)."""
    if rule is None or later is None or rule.kind != "file" or later.kind != "file":
        return ""
    if rule.path != later.path:
        from pathlib import Path

        first, then = Path(rule.path or ""), Path(later.path or "")
        names = (then.name, first.name) if then.name != first.name else (str(then), str(first))
        return f" ({names[0]} loads after {names[1]})"
    if (later.line or 0) < (rule.line or 0):
        return (" though it is written above it (a file's top-level `permission` comes before each "
                "agent's, and a legacy `tools` map before `permission`)")
    return ""


def unreachable_rules(ctx: CheckContext) -> list[Finding]:
    """FT103: a rule that can never decide in any agent whose ruleset holds it."""
    dead = AgentDeadRules(ctx)
    witness: list[str] = []  # the last agent in which a rule was alive: most rules are alive there too
    findings: list[Finding] = []
    for _scope, rule in _unique_rules(ctx):
        holders = dead.holders(rule)
        if not holders:
            continue
        if witness and dead.holds(witness[0], rule) and dead.coverer(witness[0], rule) is None:
            continue
        alive = next((a.name for a in holders if dead.coverer(a.name, rule) is None), None)
        if alive is not None:
            witness[:] = [alive]
            continue
        names = [a.name for a in holders]
        coverers: dict[Rule, list[str]] = {}
        for name in names:
            coverers.setdefault(dead.coverer(name, rule), []).append(name)  # type: ignore[arg-type]
        related = []
        for later, agent_names in coverers.items():
            where = "" if len(coverers) == 1 else f" (agents {', '.join(agent_names)})"
            label = f"covered by {rule_text(later)}, which comes after it in merge order{where}"
            related.append(Related(label, later.origin))
        first = next(iter(coverers))
        same_action = all(c.action == rule.action for c in coverers)
        effect = "it is redundant" if same_action else f"its {rule.action!r} never applies"
        findings.append(Finding(
            "FT103", "warning",
            f"rule {rule_text(rule)} can never decide: rule {rule_text(first)} comes after it in merge order"
            f"{_merge_order_words(rule.origin, first.origin)} and matches every permission name and pattern "
            f"it matches, and the last matching rule wins; {effect}",
            "remove this rule, or move it after the broader rule if it was meant to win",
            rule.origin, tuple(related)))
    return findings


# ------------------------------------------------------------------------------- hiding order


def _more_specific(rule: Rule, than: Rule) -> bool:
    # patterns first: an allow's pattern rarely covers the hiding rule's `*`, and that answer is cheap
    return not (pattern_subsumes(rule.pattern, than.pattern)
                and pattern_subsumes(rule.permission, than.permission))


class _LevelAllows:
    """One config level's allow rules indexed by permission name (exact names in a dict, wildcard
    names in a `WildcardIndex`), and each rule's first position in the level."""

    def __init__(self, level: list[Rule]) -> None:
        self.level = level
        self.position: dict[Rule, int] = {}
        for i, rule in enumerate(level):
            self.position.setdefault(rule, i)
        self.exact: dict[str, list[int]] = {}
        self.wild: list[int] = []
        for i, rule in enumerate(level):
            if rule.action != "allow":
                continue
            if has_wildcard(rule.permission):
                self.wild.append(i)
            else:
                self.exact.setdefault(normalize(rule.permission), []).append(i)
        self.wild_index = WildcardIndex(level[i].permission for i in self.wild)

    def before(self, permission: str, end: int) -> list[Rule]:
        """The allow rules before position `end` whose permission name matches, in level order."""
        found = [i for i in self.exact.get(normalize(permission), ()) if i < end]
        found += [self.wild[j] for j in self.wild_index.matching(permission) if self.wild[j] < end]
        return [self.level[i] for i in sorted(found)]


def trailing_deny(ctx: CheckContext) -> list[Finding]:
    """FT104: a last `"*": "deny"` that hides a tool right after allows of the same config level."""
    hits: dict[Rule, dict[str, dict[Rule, None]]] = {}  # hiding rule -> tool id -> overridden allows
    agents_of: dict[Rule, list[str]] = {}
    levels: dict[str, _LevelAllows] = {}
    # the overridden allows depend on the hiding rule and the tool's permission name only: agents that
    # share a level (every agent shares the top level) ask for the same pairs
    overridden: dict[tuple[Rule, str], list[Rule]] = {}
    for agent in ctx.enabled_agents:
        for tool_id, hiding in _hiding_rules(ctx, agent):
            if not is_user_rule(hiding):
                continue
            key = (hiding, permission_name(tool_id))
            allows = overridden.get(key)
            if allows is None:
                allows = overridden[key] = _overridden_allows(ctx, levels, hiding, key[1])
            if not allows:
                continue
            hits.setdefault(hiding, {}).setdefault(tool_id, {}).update(dict.fromkeys(allows))
            if agent.name not in agents_of.setdefault(hiding, []):
                agents_of[hiding].append(agent.name)
    findings: list[Finding] = []
    for hiding, tools in hits.items():
        allows = list(dict.fromkeys(r for rs in tools.values() for r in rs))
        names = _some_names(list(tools))
        agent_names = agents_of[hiding]
        for_agents = (f"agent {agent_names[0]}" if len(agent_names) == 1
                      else f"agents {', '.join(agent_names)}")
        findings.append(Finding(
            "FT104", "warning",
            f"the last rule {rule_text(hiding)} hides {names} for {for_agents}, although earlier rules allow "
            f"some calls ({_some_names([rule_text(r) for r in allows], '; ', 'allow')}): a tool whose last "
            "rule is `* deny` is removed from the model's tool list, so those allows never apply",
            f"put {_syntax(hiding.origin).entry(hiding.pattern, 'deny')} first and the allows after it (the "
            "last matching "
            "rule wins), so the tool stays visible and only the other calls are denied",
            hiding.origin, tuple(Related(f"overridden allow {rule_text(r)}", r.origin) for r in allows),
            data={"tools": list(tools), "agents": agent_names}))
    return findings


#: how many tool names a finding's message lists (its `data["tools"]` has them all)
NAMES_SHOWN = 10


def _some_names(names: list[str], sep: str = ", ", what: str = "tool") -> str:
    """`a, b, c`, or the first NAMES_SHOWN and how many more: a wildcard deny can hide thousands of
    tools, and one message line naming them all helps nobody (the finding's related locations and its
    JSON data list every one)."""
    if len(names) <= NAMES_SHOWN:
        return sep.join(names)
    more = len(names) - NAMES_SHOWN
    return f"{sep.join(names[:NAMES_SHOWN])} and {more:,} more {what}{'s' if more > 1 else ''}"


def _hiding_rules(ctx: CheckContext, agent: Agent) -> list[tuple[str, Rule]]:
    """Each tool of the agent that a configured `* deny` hides, with that rule. The agent's pipeline
    result already decided it (layer three's `permission` verdict holds the tool's last rule); an agent
    whose turn could not be resolved is judged over the project's tool ids."""
    from forge_tools.visibility.permission_layer import PermissionLayer, hides

    result = ctx.results.get(agent.name)
    if result is not None and result.tools:
        found: list[tuple[str, Rule]] = []
        for v in result.tools:
            rule = v.layer("permission").rule
            if isinstance(rule, Rule) and hides(rule):
                found.append((v.id, rule))
        return found
    layer = PermissionLayer(agent.ruleset, (), {})
    return [(t, rule) for t in ctx.tool_ids if (rule := layer.hiding_rule(t)) is not None]


def _overridden_allows(ctx: CheckContext, levels: dict[str, _LevelAllows], hiding: Rule,
                       permission: str) -> list[Rule]:
    """The allows of `hiding`'s own config level, before it, for `permission`, that it overrides."""
    scope = ctx.scope_of(hiding)
    if scope is None or scope not in ctx.scopes:
        return []
    if scope not in levels:
        levels[scope] = _LevelAllows(ctx.scopes[scope])
    level = levels[scope]
    if hiding not in level.position:
        return []
    return [r for r in level.before(permission, level.position[hiding]) if _more_specific(r, hiding)]


def specific_denies(ctx: CheckContext) -> list[Finding]:
    """FT105: a deny with a pattern other than `*` rejects calls but keeps the tool visible."""
    findings: list[Finding] = []
    for _scope, rule in _unique_rules(ctx):
        if rule.action != "deny" or rule.pattern == "*":
            continue
        findings.append(Finding(
            "FT105", "info",
            f"rule {rule_text(rule)} rejects matching calls but does not hide {rule.permission}: only a "
            "last rule with pattern exactly `*` removes a tool from the model's list",
            "nothing to do if intended; to hide the tool, make `\"*\": \"deny\"` its last rule",
            rule.origin))
    return findings


# ------------------------------------------------------------------------------- agent references


def unknown_agents(ctx: CheckContext) -> list[Finding]:
    """FT106: `default_agent` and `task` patterns that name no agent, and an `agent.<name>` section that
    looks like a misspelt builtin agent (it silently creates a new agent instead)."""
    findings: list[Finding] = []
    names = list(ctx.agents)
    builtin = [a.name for a in ctx.agents.values() if a.builtin]
    agents_node = ctx.loaded.tree.get("agent")
    if agents_node is not None and agents_node.is_map:
        for name, section in agents_node.items():
            agent = ctx.agents.get(name)
            if agent is None or agent.builtin or not section.is_map:
                continue
            if any(section.get(k) is not None for k in ("description", "prompt", "mode")):
                continue  # a deliberately defined agent
            close = difflib.get_close_matches(name, builtin, n=1, cutoff=0.75)
            if close:
                findings.append(Finding(
                    "FT106", "warning",
                    f"agent {name!r} is not a builtin agent, so this section defines a new agent (mode "
                    f"all) instead of changing {close[0]!r} (did you mean {close[0]!r}?)",
                    f"rename the section to {close[0]!r}, or give the new agent a description",
                    section.key_origin or section.origin))
    node = ctx.loaded.tree.get("default_agent")
    if node is not None and isinstance(node.value, str):
        agent = ctx.agents.get(node.value)
        if agent is None:
            s = _suggest(node.value, names)
            findings.append(Finding("FT106", "error",
                                    f"default_agent {node.value!r} is not an agent{_did_you_mean(s)}",
                                    f"use {s[0]!r}" if s else "name a primary agent", node.origin))
        elif agent.disabled or agent.mode == "subagent":
            why = "is disabled" if agent.disabled else "is a subagent"
            findings.append(Finding("FT106", "error", f"default_agent {node.value!r} {why}",
                                    "name an enabled primary agent", node.origin))
    for _scope, rule in _unique_rules(ctx):
        if (rule.pattern == "*" or not wildcard_match("task", rule.permission)
                or has_wildcard(rule.permission)):
            continue
        if any(wildcard_match(n, rule.pattern) for n in names):
            continue
        s = [] if has_wildcard(rule.pattern) else _suggest(rule.pattern, names)
        what = "matches no agent" if has_wildcard(rule.pattern) else "is not an agent"
        findings.append(Finding("FT106", "warning",
                                f"task pattern {rule.pattern!r} {what}{_did_you_mean(s)}",
                                f"use {s[0]!r}" if s else "fix the agent name or define the agent",
                                rule.origin))
    return findings


def agent_setting_typos(ctx: CheckContext) -> list[Finding]:
    """FT115: a key under `agent.<name>` that is no agent setting but is close to one. opencode passes
    keys it does not know to the model as options, so the config is valid and the setting silently does
    nothing; keys close to no setting (`reasoningEffort`) are model options and are not reported."""
    from forge_tools.config.validation import agent_option_keys

    return [Finding("FT115", "warning",
                    f"agent {agent!r}: {key!r} is not an agent setting, so opencode passes it to the model "
                    f"as an option (did you mean {close!r}?)",
                    f"rename it to {close!r}, or leave it if it is meant as a model option",
                    origin)
            for agent, key, origin, close in agent_option_keys(ctx.loaded.tree) if close is not None]


# ------------------------------------------------------------------------------- legacy tools maps


def _tools_nodes(ctx: CheckContext) -> list[tuple[str, Node, Node | None]]:
    tree = ctx.loaded.tree
    out: list[tuple[str, Node, Node | None]] = []
    top = tree.get("tools")
    if top is not None and top.is_map and top.value:
        out.append(("", top, tree.get("permission")))
    from forge_tools.permission.agents import agent_nodes

    for name, node in agent_nodes(tree).items():
        tools = node.get("tools")
        if tools is not None and tools.is_map and tools.value:
            where = tools.key_origin.key_path[:-1] if tools.key_origin is not None else ()
            prefix = ".".join(where) + "." if where else f"agent.{name}."
            out.append((prefix, tools, node.get("permission")))
    return out


def legacy_tools(ctx: CheckContext) -> list[Finding]:
    """FT107: `tools: {name: bool}` maps, with the exact `permission` replacement.

    The engine merges the two maps of a level as an object spread (see `rules_from_config`): a name
    both set keeps the `tools` entry's place but the `permission` value, so the exact replacement is
    then the whole merged map; otherwise the converted entries go first in the `permission` map."""
    findings: list[Finding] = []
    for prefix, tools, permission in _tools_nodes(ctx):
        converted: dict[str, object] = {}
        for name, node in tools.items():
            if isinstance(node.value, bool):
                converted[permission_name(name)] = "allow" if node.value else "deny"
        written: dict[str, object] = {}
        if permission is not None and permission.is_map:
            written = {k: v.plain() for k, v in permission.items()}
        elif permission is not None and isinstance(permission.value, str):
            written = {"*": permission.value}
        overlap = [k for k in converted if k in written]
        replacement = {**converted, **written} if overlap else converted
        fmt = _syntax(tools.key_origin or tools.origin)
        as_permission = fmt.pair("permission", fmt.inline(replacement))
        keys = [*(k for k in prefix.split(".") if k), "permission"]
        text = fmt.set_at(keys, fmt.inline(replacement))
        if set(converted) <= set(written):
            message = (f"legacy `{prefix}tools` map has no effect on decisions: `{prefix}permission` sets "
                       "every name it sets (but the merged order follows `tools`): "
                       f"{text}")
            hint = f"replace `{prefix}tools` and `{prefix}permission` with {as_permission}"
        elif overlap:
            message = (f"legacy `{prefix}tools` map; {', '.join(repr(k) for k in overlap)} also in "
                       f"`{prefix}permission`, whose value takes the `tools` entry's place; the same "
                       f"rules in one map: {text}")
            hint = f"replace `{prefix}tools` and `{prefix}permission` with {as_permission}"
        else:
            where = "at the start of the existing `permission` map (the `tools` rules come before it)" \
                if written else ""
            message = (f"legacy `{prefix}tools` map; the same rules in the `permission` form: "
                       f"{text}")
            hint = f"replace `{prefix}tools` with {as_permission}" + (f", {where}" if where else "")
        findings.append(Finding("FT107", "info", message, hint, tools.key_origin or tools.origin,
                                data={"replacement": replacement, "replaces_permission": bool(overlap),
                                      "merges_with_permission": bool(written)}))
    return findings


# ------------------------------------------------------------------------------- code not loaded


def code_notes(ctx: CheckContext) -> list[Finding]:
    """FT109: say plainly that plugin tools were not looked at."""
    if ctx.plugin_tools_known:
        return []
    origin = ctx.loaded.plugin_specs[0].origin if ctx.loaded.plugin_specs else None
    names = ", ".join(ctx.plugins_unlisted)
    return [Finding("FT109", "info",
                    f"plugin tools are unknown without --load-code (plugins: {names}); permission names are "
                    "checked against builtin and script tools only",
                    "run `forge-tools check --load-code` on trusted code to include plugin tools",
                    origin)]


def context_checks() -> list[Callable[[CheckContext], list[Finding]]]:
    """The functions of the codes checked on the loaded config (`kind="context"` in their records),
    each once, in code order: one function may produce several codes (FT101, FT102 and FT110)."""
    from forge_tools.check.codes import CODES
    from forge_tools.check.rules import resolve

    refs = dict.fromkeys(info.check for info in CODES.values() if info.kind == "context" and info.check)
    return [resolve(ref) for ref in refs]  # type: ignore[misc]


def analyse(ctx: CheckContext) -> list[Finding]:
    """Every check's findings; one cause is reported once (see `_one_cause`)."""
    findings: list[Finding] = []
    for check in context_checks():
        findings.extend(check(ctx))
    return _one_cause(findings)


def _one_cause(findings: list[Finding]) -> list[Finding]:
    """Allows overridden by a trailing `* deny` are also unreachable: FT104 says it better, so drop
    their FT103; a dead rule gets no FT105 note either."""
    overridden = {r.origin for f in findings if f.code == "FT104" for r in f.related}
    dead = {f.origin for f in findings if f.code == "FT103"}
    return [f for f in findings
            if not (f.code == "FT103" and f.origin in overridden)
            and not (f.code == "FT105" and f.origin in dead)]
