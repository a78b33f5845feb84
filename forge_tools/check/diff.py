"""`forge-tools diff`: what a config change does, per agent, for code review.

Two projects are loaded the same way `check` loads one (project code is never imported unless asked),
then compared: tools that became visible or hidden per agent, `--expect` calls whose decision changed,
and rules added, removed, changed or moved within each config level, with locations on both sides.
"""

from __future__ import annotations

import json
import re
import subprocess
import tempfile
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from itertools import chain
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from forge_tools.check.context import TOP, CheckContext
from forge_tools.errors import ConfigError, UsageError
from forge_tools.named_tuple import NamedTuple
from forge_tools.rule import Rule

if TYPE_CHECKING:
    from forge_tools.origin import Node
    from forge_tools.permission.agents import Agent

#: the files one side read, by step and path, for the other side (`load_side`'s `read`)
ReadFiles = dict[tuple[str, Path | str], "Node"]


class AgentTools(NamedTuple):
    """What a diff reads of one agent's turn: its candidates' ids in order, and the visible ones."""

    ids: Sequence[str]
    visible: frozenset[str]


class Settled(NamedTuple):
    """What a diff reads of a side whose context is let go (`Side.settle`): its rules, agents and
    default agent, the values to scrub, each agent's tools, and the expected calls' actions."""

    scopes: dict[str, list[Rule]]
    agents: dict[str, Agent]
    default_agent: str
    secrets: dict[str, str]
    tools: dict[str, AgentTools]
    #: (agent, tool, args as JSON) -> the call's action, or what deciding it raised (raised when read)
    calls: dict[tuple[str, str, str], str | Exception]


@dataclass
class Side:
    """One project loaded for comparison: with its whole context, or settled (`settle`)."""

    label: str
    root: Path
    ctx: CheckContext | None  # None when the side's config cannot be loaded (see `error`), or settled
    shown_root: str | None = None  # what reports call the root (a temp checkout has no useful path)
    error: str | None = None  # why the side could not be loaded (`REF:path:line:col: message`)
    settled: Settled | None = None  # what is kept of the context once it is let go

    @property
    def scopes(self) -> dict[str, list[Rule]]:
        if self.settled is not None:
            return self.settled.scopes
        return self.ctx.scopes if self.ctx is not None else {}

    @property
    def results(self) -> dict[str, Any]:
        """Each agent's pipeline result (none once settled: see `tools_of` and `call_action`)."""
        return self.ctx.results if self.ctx is not None else {}

    @property
    def agents(self) -> dict[str, Agent]:
        if self.settled is not None:
            return self.settled.agents
        return self.ctx.agents if self.ctx is not None else {}

    @property
    def resolved(self) -> list[str]:
        """The agents whose turn was resolved, in order."""
        return list(self.settled.tools) if self.settled is not None else list(self.results)

    def tools_of(self, agent: str) -> AgentTools | None:
        if self.settled is not None:
            return self.settled.tools.get(agent)
        result = self.results.get(agent)
        return AgentTools(result.ids, frozenset(result.visible_ids)) if result is not None else None

    def call_answers(self, agent: str, tool_id: str, args: dict[str, Any], runtime: str | None = None) -> Any:
        """Both answers about the call in this side's turn for `agent` (resolved): the answering
        runtime's (`runtime`, else this side's files choose) and the gate's (`runtimes.answer`)."""
        from forge_tools.runtimes import runtime_for
        from forge_tools.runtimes.answer import call_answers

        assert self.ctx is not None
        chosen = runtime_for(self.ctx.loaded, runtime)
        return call_answers(chosen, self.ctx.loaded, self.results[agent], tool_id, args)

    def call_action(self, agent: str, tool_id: str, args: dict[str, Any]) -> str:
        """The answering runtime's action for the call in this side's turn for `agent` (resolved)."""
        if self.settled is None:
            return str(self.call_answers(agent, tool_id, args).runtime.action)
        found = self.settled.calls[(agent, tool_id, _call_key(args))]
        if isinstance(found, Exception):
            raise found
        return found

    @property
    def default_agent(self) -> str:
        return _default_agent(self)

    @property
    def secrets(self) -> dict[str, str]:
        """Values from `{env:}`/`{file:}` that reasons quote, with their templates (see `_scrubbed`)."""
        if self.settled is not None:
            return self.settled.secrets
        if self.ctx is None:
            return {}
        from forge_tools.check.config_errors import echoed_substitutions

        return echoed_substitutions(self.ctx.loaded.tree)

    def settle(self, expect: Path | None = None) -> Side:
        """Keep only what a diff reads of this side (and, for `expect`'s calls, their actions now) and
        let its context go: the old side is settled before the new side is loaded, so a large
        project's two configs, tool records and turns are not held at once. The same report follows
        as from the whole side."""
        if self.ctx is None or self.settled is not None:
            return self
        tools: dict[str, AgentTools] = {}
        last: AgentTools | None = None
        for name, result in self.ctx.results.items():
            ids: Sequence[str] = tuple(result.ids)
            visible = frozenset(result.visible_ids)
            if last is not None:  # the agents share the candidates, and most their visible tools
                ids = last.ids if ids == last.ids else ids
                visible = last.visible if visible == last.visible else visible
            tools[name] = last = AgentTools(ids, visible)
        self.settled = Settled(self.scopes, self.agents, _default_agent(self), self.secrets, tools,
                               self._call_actions(expect))
        self.ctx = None
        return self

    def _call_actions(self, expect: Path | None) -> dict[tuple[str, str, str], str | Exception]:
        """The action of every expected call for every resolved agent; what deciding one raised is
        kept and raised when it is read, where the whole side would have raised it. An expectations
        file that cannot be read gives none: the diff stops at it before reading any."""
        from forge_tools.check.expect import load_expectations
        from forge_tools.errors import ForgeToolsError

        if expect is None:
            return {}
        try:
            assertions = load_expectations(expect)
        except ForgeToolsError:
            return {}
        actions: dict[tuple[str, str, str], str | Exception] = {}
        for a in assertions:
            if a.call is None:
                continue
            for name in self.results if a.agent == "*" else [a.agent or _default_agent(self)]:
                key = (name, a.call.tool, _call_key(a.call.args))
                if name in self.results and key not in actions:
                    try:
                        actions[key] = self.call_answers(name, a.call.tool, a.call.args,
                                                         a.runtime).runtime.action
                    except Exception as exc:  # raised again when read, where it would have been
                        actions[key] = exc
        return actions


def _call_key(args: dict[str, Any]) -> str:
    return json.dumps(args, sort_keys=True, default=str)


def load_side(label: str, directory: Path, load_code: bool = False,
              overlays: tuple[Path, ...] = (), git_tree: Path | None = None,
              read: ReadFiles | None = None) -> Side:
    """Load one side. `git_tree` is the temp copy of a commit that `directory` lies in: errors in its
    files are then shown as `REF:path` (git's own notation), not as a temp path that is gone. `read`:
    the config files the other side already read (the person's own, `--config` overlays, a config
    file above both), used as read; this side's files are added to it."""
    from forge_tools.check.context import build_context
    from forge_tools.config import LoadOptions, load_config

    if not directory.is_dir():
        raise ConfigError(f"{label}: {directory} is not a directory")
    try:
        loaded = load_config(LoadOptions(cwd=directory, project=directory, overlays=overlays), read)
        if read is not None:  # a file's tree depends on the file alone (a variable's, on the cwd too)
            read.update(((s.step, s.path), tree) for s, tree in zip(loaded.sources, loaded.source_trees,
                                                                     strict=True) if s.path is not None)
        ctx = build_context(loaded, load_code=load_code)
    except ConfigError as exc:
        origin = exc.origin
        message = _safe_message(exc, directory, overlays)
        exc = ConfigError(message, origin)
        if git_tree is not None and origin is not None and origin.path is not None:
            try:
                inside = Path(origin.path).resolve().relative_to(git_tree.resolve()).as_posix()
            except ValueError:
                pass
            else:
                raise ConfigError(exc.message, origin._replace(path=f"{label}:{inside}")) from None
        raise ConfigError(f"{label}: {exc.message}", origin) from None
    return Side(label, loaded.project_root, ctx)


def load_old_side(label: str, directory: Path, load_code: bool = False,
                  git_tree: Path | None = None, overlays: tuple[Path, ...] = (),
                  read: ReadFiles | None = None) -> Side:
    """The old side, or an empty one that says why it could not be loaded: a change that repairs a
    broken config is still compared (everything on the new side is then new), and CI's diff step does
    not fail because of the base. The new side's config errors still stop the diff: that is what the
    change proposes."""
    try:
        return load_side(label, directory, load_code, overlays=overlays, git_tree=git_tree, read=read)
    except ConfigError as exc:
        return Side(label, directory, None, error=exc.one_line())


def forget_own_trees(read: ReadFiles, mine: Path, other: Path) -> None:
    """Drop from `read` the trees of the files inside `mine` (one side's project, or its extracted
    commit) that are not inside `other` (the project the other side reads): those are the one side's
    own, which the other side never reads, and a large config's tree is much of what a side holds."""
    mine, other = mine.resolve(), other.resolve()
    for key in [k for k in read if isinstance(k[1], Path)]:
        path = key[1]
        assert isinstance(path, Path)
        where = path.resolve()
        if where.is_relative_to(mine) and not where.is_relative_to(other):
            del read[key]


def _safe_message(exc: ConfigError, directory: Path, overlays: tuple[Path, ...]) -> str:
    """The error's message, unless it is about a value from `{env:}`/`{file:}`: then it says so without
    the value (diff runs on untrusted pull requests too)."""
    from forge_tools.check.config_errors import redacted_message, scan_config, spot_of

    if exc.origin is None:
        return exc.message
    try:
        substituted = scan_config(directory, directory, overlays).substituted
    except ConfigError:
        return exc.message
    if spot_of(exc.origin) in substituted:
        return redacted_message(exc.origin, substituted)
    return exc.message


# ------------------------------------------------------------------------------------------ changes


class ToolChange(NamedTuple):
    """A tool that became visible or hidden for an agent, and why."""

    agent: str
    tool: str
    change: str  # "visible" (became visible) or "hidden" (became hidden)
    reason: str

    def to_json(self) -> dict[str, Any]:
        return {"agent": self.agent, "tool": self.tool, "became": self.change, "reason": self.reason}


class CallChange(NamedTuple):
    """An expected call whose decision changed for an agent: the old and new action, and why."""

    agent: str
    call: str
    old: str
    new: str
    explanation: str

    def to_json(self) -> dict[str, Any]:
        return {"agent": self.agent, "call": self.call, "old": self.old, "new": self.new,
                "explanation": self.explanation}


class RuleChange(NamedTuple):
    """A rule added, removed, changed or moved in one scope, with where it was and is."""

    scope: str  # "" for top-level, else the agent name
    change: str  # added, removed, changed, moved
    rule: str
    old_location: str | None
    new_location: str | None
    old_action: str | None = None
    new_action: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"scope": self.scope or "top-level", "change": self.change, "rule": self.rule,
                "old_location": self.old_location, "new_location": self.new_location,
                "old_action": self.old_action, "new_action": self.new_action}


class AgentChange(NamedTuple):
    """A property of an agent that decides whether or how it runs (disabled, mode, model, hidden), or
    which agent is the default (`agent` is then empty)."""

    agent: str
    field: str
    old: Any
    new: Any

    def to_json(self) -> dict[str, Any]:
        return {"agent": self.agent or None, "field": self.field, "old": self.old, "new": self.new}


@dataclass
class DiffReport:
    """What changed between two projects' configs, as the reporters render it (built up by `diff`)."""

    old: Side
    new: Side
    agents_added: list[str] = field(default_factory=list)
    agents_removed: list[str] = field(default_factory=list)
    agents_changed: list[AgentChange] = field(default_factory=list)
    tools: list[ToolChange] = field(default_factory=list)
    calls: list[CallChange] = field(default_factory=list)
    rules: list[RuleChange] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return bool(self.old.error or self.agents_added or self.agents_removed or self.agents_changed
                    or self.tools or self.calls or self.rules)

    def to_json(self) -> dict[str, Any]:
        return {
            "old": {"label": self.old.label, "root": self.old.shown_root or str(self.old.root),
                    "error": self.old.error},
            "new": {"label": self.new.label, "root": self.new.shown_root or str(self.new.root)},
            "changed": self.changed,
            "agents": {"added": self.agents_added, "removed": self.agents_removed,
                       "changed": [c.to_json() for c in self.agents_changed]},
            "tools": [t.to_json() for t in self.tools],
            "calls": [c.to_json() for c in self.calls],
            "rules": [r.to_json() for r in self.rules],
        }


def _where(rule: Rule, root: Path) -> str:
    from forge_tools.report.locations import describe

    return describe(rule.origin, root)


def _rule_words(rule: Rule) -> str:
    return f"{rule.permission} {json.dumps(rule.pattern)}"


def _keyed(rules: list[Rule]) -> dict[tuple[str, str, int], Rule]:
    """The rules in order by (permission, pattern, how many times that pair came before)."""
    out: dict[tuple[str, str, int], Rule] = {}
    repeats: dict[tuple[str, str, int], int] = {}  # only pairs written more than once
    for r in rules:
        key = (r.permission, r.pattern, 0)
        if key in out:
            n = repeats.get(key, 1)
            repeats[key] = n + 1
            key = (r.permission, r.pattern, n)
        out[key] = r
    return out


def _lcs(a: list[Any], b: list[Any]) -> set[Any]:
    """The items of a longest common subsequence (the rules that kept their relative order).

    Both lists hold the same distinct keys, so this is a longest increasing subsequence of the old
    positions taken in new order: O(n log n), where the table method was quadratic in time and memory.
    """
    from bisect import bisect_left

    position = {key: i for i, key in enumerate(a)}
    seq = [position[key] for key in b if key in position]
    tails: list[int] = []  # tails[k]: smallest last value of an increasing run of length k+1
    tail_at: list[int] = []  # index in seq of that value
    parent = [-1] * len(seq)
    for i, value in enumerate(seq):
        k = bisect_left(tails, value)
        if k == len(tails):
            tails.append(value)
            tail_at.append(i)
        else:
            tails[k] = value
            tail_at[k] = i
        parent[i] = tail_at[k - 1] if k > 0 else -1
    keep: set[Any] = set()
    i = tail_at[-1] if tail_at else -1
    while i >= 0:
        keep.add(a[seq[i]])
        i = parent[i]
    return keep


def rule_changes(old: Side, new: Side) -> list[RuleChange]:
    changes: list[RuleChange] = []
    scopes = list(dict.fromkeys([*old.scopes, *new.scopes]))
    for scope in scopes:
        old_by = _keyed(old.scopes.get(scope, []))
        new_by = _keyed(new.scopes.get(scope, []))
        for key, rule in old_by.items():
            if key not in new_by:
                changes.append(RuleChange(scope, "removed", f"{_rule_words(rule)} {rule.action}",
                                          _where(rule, old.root), None, rule.action, None))
        for key, rule in new_by.items():
            if key not in old_by:
                changes.append(RuleChange(scope, "added", f"{_rule_words(rule)} {rule.action}", None,
                                          _where(rule, new.root), None, rule.action))
            elif old_by[key].action != rule.action:
                was = old_by[key]
                words = f"{_rule_words(rule)} {was.action} -> {rule.action}"
                changes.append(RuleChange(scope, "changed", words,
                                          _where(was, old.root), _where(rule, new.root), was.action,
                                          rule.action))
        common_old = [k for k in old_by if k in new_by]
        common_new = [k for k in new_by if k in old_by]
        kept = _lcs(common_old, common_new)
        for key in common_new:
            if key not in kept:
                was, now = old_by[key], new_by[key]
                changes.append(RuleChange(scope, "moved", f"{_rule_words(now)} {now.action}",
                                          _where(was, old.root), _where(now, new.root), was.action,
                                          now.action))
    return changes


def _reason(v: Any, root: Path) -> str:
    """Why a tool of the new side's turn is visible or hidden (`v`: its verdict; None: no candidate)."""
    if v is None:
        return "not a candidate"
    if v.visible:
        rule = v.layer("permission").rule
        if isinstance(rule, Rule):
            return f"last rule for {v.permission}: {_rule_words(rule)} {rule.action} at {_where(rule, root)}"
        return "visible"
    from forge_tools.visibility.call_decision import hidden_words

    return hidden_words(v, root)


def tool_changes(old: Side, new: Side) -> list[ToolChange]:
    changes: list[ToolChange] = []
    for name, result in new.results.items():
        was_tools = old.tools_of(name)
        if was_tools is None and old.error is None:
            continue  # an added agent: listed as such
        before = was_tools.visible if was_tools is not None else frozenset()
        after = set(result.visible_ids)
        new_ids = set(result.ids)
        old_ids = was_tools.ids if was_tools is not None else []
        # each candidate with its own verdict (the ids are unique), then the old side's other ids
        for tool_id, v in chain(((v.id, v) for v in result.tools),
                                ((t, None) for t in old_ids if t not in new_ids)):
            now = tool_id in after
            was = tool_id in before
            if now and not was:
                changes.append(ToolChange(name, tool_id, "visible", _reason(v, new.root)))
            elif was and not now:
                changes.append(ToolChange(name, tool_id, "hidden", _reason(v, new.root)))
    return changes


def call_changes(old: Side, new: Side, expect: Path | None) -> list[CallChange]:
    """The `--expect` calls whose answer changed for an agent, when the answering runtime has agents
    (opencode's, forge-tools'): the runtime's answers compared, as `check --expect` asserts them, the
    gate's beside where it differs from the new answer."""
    from forge_tools.runtimes.answer import has_agents

    if expect is None:
        return []
    from forge_tools.check.expect import load_expectations

    changes: list[CallChange] = []
    for a in load_expectations(expect):
        if a.call is None or a.runtimes is not None or _answering(a, new, old) not in ("opencode", "forge"):
            continue
        agents = list(new.results) if a.agent == "*" else [a.agent or new.default_agent]
        for name in agents:
            resolved = name in old.resolved
            if name not in new.results or (not resolved and old.error is None):
                continue
            after = new.call_answers(name, a.call.tool, a.call.args, a.runtime)
            if not has_agents(after.chosen.runtime.name):
                continue
            # "unknown": the old side could not be loaded
            before_action = old.call_action(name, a.call.tool, a.call.args) if resolved else "unknown"
            if before_action != after.runtime.action:
                call = f"{a.call.tool} {json.dumps(a.call.args)}"
                why = f"{after.runtime.label}: {after.runtime.reason}"
                if after.beside_reason is not None:
                    why += f"; {after.beside_reason}"
                changes.append(CallChange(name, call, before_action, after.runtime.action, why))
    return changes


def _answering(a: Any, new: Side, old: Side) -> str:
    """The runtime whose answers an expectation's call is about in a diff: its `runtime:`, else the
    new side's files choose (the old side's when the new one has no context)."""
    from forge_tools.runtimes import runtime_for

    if a.runtime is not None:
        return str(a.runtime)
    side = new if new.ctx is not None else old
    return runtime_for(side.ctx.loaded if side.ctx is not None else None).runtime.name


def _default_agent(side: Side) -> str:
    from forge_tools.errors import ForgeToolsError
    from forge_tools.permission.agents import default_agent_name

    if side.settled is not None:
        return side.settled.default_agent
    if side.ctx is None:
        return "(not loaded)"
    try:
        return default_agent_name(side.ctx.loaded, side.ctx.agents)
    except ForgeToolsError as exc:
        return f"(invalid: {exc.message})"


def agent_changes(old: Side, new: Side) -> list[AgentChange]:
    changes: list[AgentChange] = []
    before, after = old.default_agent, new.default_agent
    if before != after:
        changes.append(AgentChange("", "default agent", before, after))
    for name, agent in new.agents.items():
        was = old.agents.get(name)
        if was is None:
            continue
        for attr in ("disabled", "mode", "model", "hidden"):
            a, b = getattr(was, attr), getattr(agent, attr)
            if a != b:
                changes.append(AgentChange(name, attr, a, b))
    return changes


def diff_sides(old: Side, new: Side, expect: Path | None = None) -> DiffReport:
    report = DiffReport(old, new)
    report.agents_added = [n for n in new.agents if n not in old.agents]
    report.agents_removed = [n for n in old.agents if n not in new.agents]
    report.agents_changed = agent_changes(old, new)
    report.tools = tool_changes(old, new)
    report.calls = call_changes(old, new, expect)
    report.rules = rule_changes(old, new)
    for changes in RUNTIME_CHANGES.values():
        runtime_rules, runtime_calls = changes(old, new, expect)
        report.rules += runtime_rules
        report.calls += runtime_calls
    return _scrubbed(report)


def claude_changes(old: Side, new: Side, expect: Path | None) -> tuple[list[RuleChange], list[CallChange]]:
    """Claude Code's side of a diff, when either side has `.claude/settings*.json`: its project and
    local rules added or removed (scope `claude:project` / `claude:local`), and the `--expect` calls
    naming Claude's tools whose Claude Code answer changed. Both sides are read with the new side's
    trust (the old side is a temporary checkout Claude has never trusted)."""
    from forge_tools.runtimes import claude_files

    if not (claude_files(old.root) or claude_files(new.root)):
        return [], []
    from forge_tools.runtimes.claude.decide import decide
    from forge_tools.runtimes.claude.settings import read_settings

    after = read_settings(new.root)
    before = read_settings(old.root, trusted=after.trusted)

    def keyed(settings: Any) -> dict[tuple[str, str, str], Any]:
        return {(r.scope, r.behavior, r.text): r for r in settings.rules if r.scope in ("project", "local")}

    was, now = keyed(before), keyed(after)
    from forge_tools.report.locations import describe

    # each side's location relative to its own root: the old side's checkout is gone after the run
    rules = [RuleChange(f"claude:{k[0]}", "removed", k[2], describe(r.origin, old.root), None, k[1], None)
             for k, r in was.items() if k not in now]
    rules += [RuleChange(f"claude:{k[0]}", "added", k[2], None, describe(r.origin, new.root), None, k[1])
              for k, r in now.items() if k not in was]
    calls: list[CallChange] = []
    if expect is not None:
        from forge_tools.check.expect import load_expectations
        from forge_tools.runtimes.vocabulary import translate

        for a in load_expectations(expect):
            if a.call is None or a.runtimes is not None or _answering(a, new, old) != "claude":
                continue
            own = translate("claude", a.call.tool, a.call.args).own
            if own is None:
                continue
            b, n = (decide(s, own.tool, own.args) for s in (before, after))
            if b.behavior != n.behavior:
                why = n.deciding.why if n.deciding is not None else ""
                calls.append(CallChange("Claude Code", f"{own.tool} {json.dumps(own.args)}",
                                        b.behavior, n.behavior, f"claude 2.1.332: {why}"))
    return rules, calls


def codex_changes(old: Side, new: Side, expect: Path | None) -> tuple[list[RuleChange], list[CallChange]]:
    """Codex CLI's side of a diff, when either side has `.codex/config.toml` or `.codex/rules/*.rules`:
    the project's prefix rules and deciding config values (`approval_policy`, `sandbox_mode`) added or
    removed (scope `codex:project`, as the files say them, trusted or not), and the `--expect` calls
    about Codex whose Codex answer changed, decided by the codex runtime as `explain --call --runtime
    codex` decides them. Both sides are read with the new side's trust (the old side is a temporary
    checkout Codex has never trusted)."""
    from forge_tools.runtimes import codex_files

    if not (codex_files(old.root) or codex_files(new.root)):
        return [], []
    from forge_tools.runtimes.codex.config import read_codex
    from forge_tools.runtimes.codex.rules import read_rules
    from forge_tools.runtimes.codex.runtime import RUNTIME, own_words

    after = read_codex(new.root)
    before = read_codex(old.root, trust_root=after.project_root)

    def keyed(settings: Any, root: Path) -> dict[str, str]:
        from forge_tools.report.locations import describe
        from forge_tools.runtimes.codex.config import _read

        inside = Path(root).resolve()
        found: dict[str, str] = {}
        for path, scope, _loaded, _why in settings.rules_files:
            if scope == "project" and inside in path.resolve().parents:
                for r in read_rules(path).rules:
                    found.setdefault(f"{r.decision} prefix_rule {r.text()}", describe(r.origin, root))
        data, _error, _where = _read(inside / ".codex" / "config.toml")
        for key in ("approval_policy", "sandbox_mode"):
            node = data.get(key) if data is not None else None
            if node is not None:
                found.setdefault(f"{key} = {json.dumps(node.plain())}", describe(node.origin, root))
        return found

    was, now = keyed(before, old.root), keyed(after, new.root)
    rules = [RuleChange("codex:project", "removed", k, w, None) for k, w in was.items() if k not in now]
    rules += [RuleChange("codex:project", "added", k, None, w) for k, w in now.items() if k not in was]
    calls: list[CallChange] = []
    if expect is not None:
        from forge_tools.check.expect import load_expectations

        for a in load_expectations(expect):
            if a.call is None or a.runtimes is not None or _answering(a, new, old) != "codex":
                continue
            b, n = (RUNTIME.decide(None, a.call.tool, a.call.args, s.cwd, s.cwd, s) for s in (before, after))
            if b.action != n.action:
                tool, args = own_words(a.call.tool, a.call.args)
                calls.append(CallChange("Codex CLI", f"{tool} {json.dumps(args)}", b.action, n.action,
                                        f"{n.label}: {n.reason}"))
    return rules, calls


def gemini_changes(old: Side, new: Side, expect: Path | None) -> tuple[list[RuleChange], list[CallChange]]:
    """Gemini CLI's side of a diff, when either side has `.gemini/` files: the rules its workspace
    settings make (scope `gemini:workspace`) and its policy rules (scope `gemini:<tier>`; a
    `.gemini/policies` rule is listed with `not loaded`, that tier being disabled in Gemini 0.61) added
    or removed, and the `--expect` calls Gemini answers whose answer changed, decided by the gemini
    runtime as `explain --call --runtime gemini` does. Both sides are read with the new side's folder
    trust (the old side is a temporary checkout no one trusted)."""
    import os

    from forge_tools.report.locations import describe
    from forge_tools.runtimes import gemini_files

    if not (gemini_files(old.root) or gemini_files(new.root)):
        return [], []
    from forge_tools.runtimes.gemini.policy import TIER_NAMES, WORKSPACE_TIER, fmt_priority
    from forge_tools.runtimes.gemini.policy_files import read_policy_file
    from forge_tools.runtimes.gemini.runtime import GeminiRuntime
    from forge_tools.runtimes.gemini.settings import read_settings

    after = read_settings(new.root)
    before = read_settings(old.root, {**os.environ,
                                      "GEMINI_CLI_TRUST_WORKSPACE": "true" if after.trusted else "false"})

    def keyed(s: Any) -> dict[tuple[str, str, str], str]:
        def put(scope: str, r: Any, note: str = "") -> None:
            words = f"{r.text or r.tool_name}: {r.decision} at {fmt_priority(r.priority)} ({r.source}){note}"
            out[(scope, r.decision, words)] = describe(r.origin, s.cwd) if r.origin is not None else ""

        out: dict[tuple[str, str, str], str] = {}
        mine = os.path.realpath(s.cwd / ".gemini" / "settings.json")
        for r in s.rules:
            if r.origin is not None and r.origin.path and os.path.realpath(r.origin.path) == mine:
                put("workspace", r)
        for f in s.policy:
            if f.loaded:
                for r in f.rules:
                    put(TIER_NAMES[f.tier], r)
            elif f.tier == WORKSPACE_TIER:
                for r in read_policy_file(f.path, f.tier, []).rules:
                    put(TIER_NAMES[f.tier], r, f" [not loaded: {f.why_not}]")
        return out

    was, now = keyed(before), keyed(after)
    rules = [RuleChange(f"gemini:{k[0]}", "removed", k[2], w, None, k[1], None)
             for k, w in was.items() if k not in now]
    rules += [RuleChange(f"gemini:{k[0]}", "added", k[2], None, w, None, k[1])
              for k, w in now.items() if k not in was]
    calls: list[CallChange] = []
    if expect is not None:
        from forge_tools.check.expect import load_expectations
        from forge_tools.runtimes.vocabulary import translate

        gemini = GeminiRuntime()
        for a in load_expectations(expect):
            if a.call is None or a.runtimes is not None or _answering(a, new, old) != "gemini":
                continue
            own = translate("gemini", a.call.tool, a.call.args).own
            if own is None:
                continue
            b, n = (gemini.decide(None, own.tool, own.args, s.cwd, settings=s) for s in (before, after))
            if b.action != n.action:
                calls.append(CallChange("Gemini CLI", f"{own.tool} {json.dumps(own.args)}",
                                        b.action, n.action, f"{n.label}: {n.reason}"))
    return rules, calls


#: each agent runtime's side of a diff (its own files' rules and `--expect` answers), in this order
RUNTIME_CHANGES: dict[str, Callable[[Side, Side, Path | None], tuple[list[RuleChange], list[CallChange]]]] = {
    "claude": claude_changes,
    "codex": codex_changes,
    "gemini": gemini_changes,
}


def _scrubbed(report: DiffReport) -> DiffReport:
    """Values from `{env:}`/`{file:}` that reasons quote (models, the default agent) are shown as their
    templates: diff runs on untrusted pull requests, whose config must not print a runner's secrets."""
    from forge_tools.check.config_errors import scrub

    secrets = {k: v for side in (report.old, report.new) for k, v in side.secrets.items()}
    if not secrets:
        return report

    def clean(value: Any) -> Any:
        return scrub(value, secrets) if isinstance(value, str) else value

    report.agents_changed = [a._replace(old=clean(a.old), new=clean(a.new)) for a in report.agents_changed]
    report.tools = [t._replace(reason=clean(t.reason)) for t in report.tools]
    report.calls = [c._replace(explanation=clean(c.explanation)) for c in report.calls]
    return report


# ------------------------------------------------------------------------------------------ git


def _git(args: list[str], cwd: Path) -> str:
    try:
        done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=False)
    except FileNotFoundError:
        raise UsageError("git is not installed", where="--base") from None
    if done.returncode != 0:
        message = (done.stderr.strip().splitlines() or ["git failed"])[-1]
        raise UsageError(message, where="--base")
    return done.stdout


def _commit_of(ref: str, project: Path, where: str = "--base") -> str:
    """The commit `ref` names, resolved once so that nothing later can read it as an option."""
    try:
        done = subprocess.run(["git", "rev-parse", "--verify", "--quiet", "--end-of-options",
                               f"{ref}^{{commit}}"], cwd=project, capture_output=True, text=True,
                              check=False)
    except FileNotFoundError:
        raise UsageError("git is not installed", where=where) from None
    sha = done.stdout.strip()
    if done.returncode != 0 or not sha:
        raise UsageError(f"{ref!r} is not a commit in this repository (e.g. HEAD~1 or origin/main; a "
                         "shallow CI checkout needs the base fetched first, e.g. fetch-depth: 0)",
                         where=where)
    return sha


_BLOB_MODES = {b"100644", b"100755"}
_LINK_MODE = b"120000"


def _safe_parts(path: str) -> tuple[str, ...] | None:
    """The path's parts, or None for anything that could leave the extraction dir or touch `.git`."""
    parts = tuple(path.split("/"))
    if path.startswith("/") or any(p in ("", ".", "..") or p.lower() == ".git" for p in parts):
        return None
    return parts


def _tree_entries(sha: str, top: Path) -> list[tuple[bytes, str, str]]:
    """(mode, object id, path) of every file and symlink in the commit's tree."""
    import os

    done = subprocess.run(["git", "ls-tree", "-r", "-z", "--full-tree", sha], cwd=top,
                          capture_output=True, check=False)
    if done.returncode != 0:
        message = done.stderr.decode(errors="replace").strip() or "git ls-tree failed"
        raise UsageError(message, where="--base")
    entries = []
    for item in done.stdout.split(b"\0"):
        meta, _, raw_path = item.partition(b"\t")
        fields = meta.split(b" ")
        if len(fields) == 3 and (fields[0] in _BLOB_MODES or fields[0] == _LINK_MODE):
            entries.append((fields[0], fields[2].decode(), os.fsdecode(raw_path)))
    return entries


Entry = tuple[bytes, str, tuple[str, ...]]  # (mode, object id, path parts)
_FILE_REF = re.compile(r"\{file:([^}]+)\}")


def extract_commit(sha: str, top: Path, dest: Path,
                   wanted: Callable[[tuple[str, ...]], bool] | None = None) -> None:
    """Write the commit's files into `dest` with git's plumbing, as stored (no checkout, no
    `.gitattributes` filters or export rules, no hooks); a symlink is kept only when it points inside
    `dest`, and paths that would leave `dest` are skipped.

    With `wanted`, only the files it selects are written, then whatever they lead to: the targets of
    their symlinks and of `{file:...}` references in them (a few rounds, for chains), so a large
    repository costs what its config costs.
    """
    listing = [(mode, oid, parts) for mode, oid, path in _tree_entries(sha, top)
               if (parts := _safe_parts(path)) is not None]
    links: list[tuple[Path, str]] = []
    if wanted is None:
        _write_entries(listing, top, dest, links)
    else:
        done: set[tuple[str, ...]] = set()
        batch = [e for e in listing if wanted(e[2])]
        for _round in range(6):
            batch = [e for e in batch if e[2] not in done]
            if not batch:
                break
            done.update(e[2] for e in batch)
            _write_entries(batch, top, dest, links)
            leads = _leads(batch, links, dest)
            batch = [e for e in listing if any(e[2][:len(lead)] == lead for lead in leads)]
    _make_links(links, dest)


def _leads(batch: list[Entry], links: list[tuple[Path, str]], dest: Path) -> set[tuple[str, ...]]:
    """Tree paths (files or folders) that the written entries point at: symlink targets, and
    `{file:...}` references of config-like files, relative to each place the loader may see the file
    at (its own folder, or where a symlink to it or to a folder above it is)."""
    import os

    root = os.path.normpath(dest)
    found: set[tuple[str, ...]] = set()
    targets = [(str(link), os.path.normpath(link.parent / t)) for link, t in links if not t.startswith("/")]

    def note(base: str, target: str) -> None:
        if target.startswith(("/", "~", "$")):
            return
        full = os.path.normpath(os.path.join(base, target))
        if full.startswith(root + os.sep):
            found.add(tuple(Path(os.path.relpath(full, root)).parts))

    for link, target in links:
        note(str(link.parent), target)
    from forge_tools.config.formats import config_suffixes

    suffixes = config_suffixes()
    for mode, _oid, parts in batch:
        if mode == _LINK_MODE or not parts[-1].lower().endswith(suffixes):
            continue
        path = dest.joinpath(*parts)
        try:
            text = path.read_text(encoding="utf-8", errors="replace") if path.stat().st_size < 1 << 24 else ""
        except OSError:
            continue
        here = os.path.normpath(path)
        bases = {os.path.dirname(here)}
        for link_path, full in targets:  # seen through a symlink to the file or to a folder above it
            if here == full or here.startswith(full + os.sep):
                seen_at = os.path.normpath(os.path.join(link_path, os.path.relpath(here, full)))
                bases.add(os.path.dirname(seen_at))
        for match in _FILE_REF.finditer(text):
            for base in bases:
                note(base, match.group(1).strip())
    return found


def _write_entries(entries: list[Entry], top: Path, dest: Path, links: list[tuple[Path, str]]) -> None:
    """Stream the entries' blobs from `git cat-file --batch` into files; symlinks are only collected."""
    import os
    import threading

    from forge_tools.config.files import MAX_BYTES

    with subprocess.Popen(["git", "cat-file", "--batch"], cwd=top, stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL) as proc:
        assert proc.stdin is not None and proc.stdout is not None
        stdin = proc.stdin

        def feed() -> None:  # in a thread: git answers while we still ask, without a round trip each
            try:
                for _mode, oid, _parts in entries:
                    stdin.write(oid.encode() + b"\n")
                stdin.close()
            except (BrokenPipeError, ValueError):
                pass

        feeder = threading.Thread(target=feed, daemon=True)
        feeder.start()
        made: set[Path] = set()
        for mode, _oid, parts in entries:
            header = proc.stdout.readline().split()
            if len(header) != 3:
                continue  # missing object (e.g. a partial clone): leave the file out
            size = int(header[2])
            target = dest.joinpath(*parts)
            if target.parent not in made:
                target.parent.mkdir(parents=True, exist_ok=True)
                made.add(target.parent)
            if size > MAX_BYTES:  # more than any config or script may be: keep the size, not the bytes
                remaining = size
                while remaining > 0:
                    chunk = proc.stdout.read(min(1 << 20, remaining))
                    if not chunk:
                        break
                    remaining -= len(chunk)
                proc.stdout.read(1)
                if mode != _LINK_MODE:
                    with target.open("wb") as sparse:
                        sparse.truncate(size)
                continue
            content = proc.stdout.read(size)
            proc.stdout.read(1)  # the newline after each object
            if mode == _LINK_MODE:
                links.append((target, os.fsdecode(content)))
                continue
            target.write_bytes(content)
        feeder.join()


def _make_links(links: list[tuple[Path, str]], dest: Path) -> None:
    """Symlinks last, so no file is ever written through one; only those that stay inside `dest`."""
    import os

    root = dest.resolve()
    for link, points_to in links:
        if points_to.startswith("/"):
            continue
        resolved = Path(os.path.normpath(link.parent / points_to))
        if resolved != root and root not in resolved.parents:
            continue
        link.parent.mkdir(parents=True, exist_ok=True)
        if not link.exists() and not link.is_symlink():
            link.symlink_to(points_to)


def config_files_of(prefix: str) -> Callable[[tuple[str, ...]], bool]:
    """What the loader reads in the project at `prefix` (cwd = project root): its config files and
    everything under its `.forge/` and `.opencode/` (config, tool scripts, plugins, skills), and
    `.claude/` (Claude Code's settings), `.codex/` (Codex CLI's config and rules) and `.gemini/`
    (Gemini CLI's settings and policies)."""
    from forge_tools.config.loader import CONFIG_FILE_ORDER

    base = tuple(p for p in prefix.split("/") if p)
    names = frozenset(CONFIG_FILE_ORDER)

    def wanted(parts: tuple[str, ...]) -> bool:
        if parts[:len(base)] != base:
            return False
        rest = parts[len(base):]
        return ((len(rest) == 1 and rest[0] in names)
                or rest[0] in (".forge", ".opencode", ".claude", ".codex", ".gemini"))

    return wanted


@contextmanager
def project_at(ref: str, project: Path) -> Iterator[Path]:
    with commit_tree(ref, project) as (_tree, old):
        yield old


@contextmanager
def commit_tree(ref: str, project: Path, whole: bool = False,
                where: str = "--base") -> Iterator[tuple[Path, Path]]:
    """The project directory as it was at `ref`, written into a private temp dir (removed on exit).

    Uses `git ls-tree` and `git cat-file` only: no hook, filter or project code runs, and files that
    `.gitattributes` keeps out of archives are there as committed. Only what the config loader reads
    is written (see `config_files_of`), unless `whole` (for --load-code: code may import anything).
    """
    top = Path(_git(["rev-parse", "--show-toplevel"], project).strip())
    prefix = _git(["rev-parse", "--show-prefix"], project).strip()
    sha = _commit_of(ref, project, where)
    with tempfile.TemporaryDirectory(prefix="forge-diff-") as tmp:
        tree = Path(tmp) / "tree"
        tree.mkdir()
        extract_commit(sha, top, tree, None if whole else config_files_of(prefix))
        (tree / ".git").mkdir(exist_ok=True)  # so the old side's project root is the extracted tree
        old = tree / prefix
        old.mkdir(parents=True, exist_ok=True)
        yield tree, old


# ------------------------------------------------------------------------------------------ output


def render_diff_json(report: DiffReport, stream: IO[str]) -> None:
    stream.write(json.dumps(report.to_json(), indent=2) + "\n")


def render_diff_text(report: DiffReport, stream: IO[str]) -> None:
    lines = [f"diff: {report.old.label} -> {report.new.label}"]
    if report.old.error is not None:
        lines.append(f"the old side ({report.old.label}) cannot be loaded: {report.old.error}; everything "
                     f"in the new side ({report.new.label}) is shown as added")
    for name in report.agents_added:
        lines.append(f"agent {name}: added")
    for name in report.agents_removed:
        lines.append(f"agent {name}: removed")
    for a in report.agents_changed:
        who = f"agent {a.agent}" if a.agent else "project"
        lines.append(f"{who}: {a.field} {json.dumps(a.old)} -> {json.dumps(a.new)}")
    by_agent: dict[str, list[str]] = {}
    for t in report.tools:
        by_agent.setdefault(t.agent, []).append(f"  {t.tool} became {t.change}: {t.reason}")
    for c in report.calls:
        by_agent.setdefault(c.agent, []).append(f"  call {c.call}: {c.old} -> {c.new} ({c.explanation})")
    for name, items in by_agent.items():
        lines.append(f"agent {name}")
        lines += items
    if report.rules:
        lines.append("rules")
        for r in report.rules:
            scope = "top-level" if r.scope == TOP else f"agent {r.scope}"
            if r.change == "added":
                where = f"at {r.new_location}"
            elif r.change == "removed":
                where = f"was at {r.old_location}"
            else:
                where = f"{r.old_location} -> {r.new_location}"
            lines.append(f"  {scope}: {r.change} {r.rule} ({where})")
    if not report.changed:
        lines.append("no changes")
    stream.write("\n".join(lines) + "\n")
