"""One call answered by every agent runtime a repository configures, with forge-tools' gate once
beside them: `explain --call ... --runtime all`, `check --expect` (`runtime: all`, `runtimes: [...]`),
check's FT118 and the library's `answers_by_runtime`.

The call is put in each agent's words (`vocabulary.own_call`: `bash` is Claude Code's `Bash`) and
decided by that runtime's own decider (`Runtime.decide`), over the files that agent reads: opencode's
answer is over opencode's files only (a project's `forge.*` files are forge-tools', which opencode
does not read), Claude Code's over its settings files. The gate's answer is
`visibility.call_decision.decide_call` over forge-tools' whole config: what `forge-tools run` enforces.
Nothing is run.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from forge_tools.named_tuple import NamedTuple
from forge_tools.runtimes.found import FoundRuntime, agent_cwd, display_name, found_runtimes, runtime_files
from forge_tools.runtimes.vocabulary import OwnCall, SharedCall, own_call, shared_call

if TYPE_CHECKING:
    from forge_tools.config.loader import LoadedConfig
    from forge_tools.permission.calls import CallDecision
    from forge_tools.rule import Rule
    from forge_tools.runtimes.base import RuntimeAnswer
    from forge_tools.visibility.pipeline import PipelineResult, Request


MODELLED_MARK = "[modelled: no record of the binary shows it]"


class RuntimeEntry(NamedTuple):
    """One agent runtime's answer about the call (or that it has no such tool)."""

    runtime: FoundRuntime
    call: OwnCall | None  # the call in its words; None: it has no such tool
    answer: RuntimeAnswer | None
    scope: str = ""  # "agent build" for opencode
    notes: tuple[str, ...] = ()  # what the runtime said about its files (Claude: an untrusted workspace)

    @property
    def action(self) -> str | None:
        return self.answer.action if self.answer is not None else None

    @property
    def missing(self) -> str | None:
        return None if self.call is not None else f"{self.runtime.display} has no such tool"

    @property
    def modelled(self) -> bool:
        """The runtime says no record of the agent's binary shows this answer (Claude's `fidelity`)."""
        return self.answer is not None and (self.answer.extra or {}).get("fidelity") == "modelled"

    def words(self, root: Path | None = None) -> str:
        """The deciding rule at file:line:col, else the runtime's reason; `[modelled]` when the
        runtime could not verify the answer against the agent's binary."""
        if self.answer is None:
            return self.missing or ""
        mark = f" {MODELLED_MARK}" if self.modelled else ""
        decision = self.answer.decision
        if decision.refused is not None and decision.refused_by is None:
            return decision.refused + mark
        rule = decision.deciding_rule if decision.refused is None else decision.refused_by
        if rule is None:
            return self.answer.reason + mark
        return rule_words(self.runtime.name, rule, root) + mark

    def to_json(self, root: Path | None = None) -> dict[str, Any]:
        return {"runtime": self.runtime.name, "name": self.runtime.display, "version": self.runtime.version,
                "scope": self.scope or None, "in_project": self.runtime.in_project,
                "tool": self.call.tool if self.call is not None else None,
                "args": self.call.args if self.call is not None else None,
                "action": self.action, "why": self.words(root), "no_such_tool": self.call is None,
                "modelled": self.modelled,
                "notes": list(self.notes),
                "answer": self.answer.to_json() if self.answer is not None else None}


def rule_words(runtime: str, rule: Rule, root: Path | None = None) -> str:
    """`bash "git push *" deny at opencode.json:4:7`, `allow Bash(git *) at .claude/settings.json:3:9`."""
    from forge_tools.report.locations import describe

    where = describe(rule.origin, root)
    where = f"at {where}" if rule.origin.kind in ("file", "env", "cli") else f"({where})"
    if runtime == "claude":
        from forge_tools.runtimes.claude.files import rule_text

        return f"{rule.action} {rule_text(rule.permission, rule.pattern)} {where}"
    if runtime == "codex":
        return f"{rule.action} prefix_rule {rule.pattern} {where}"
    return f"{rule.permission} {json.dumps(rule.pattern)} {rule.action} {where}"


class AcrossAnswers(NamedTuple):
    """Every agent runtime's answer about one call, and the gate's once."""

    call: SharedCall
    entries: tuple[RuntimeEntry, ...]
    gate: CallDecision | None  # None: not asked (check's FT118 compares the agents only)
    root: Path

    @property
    def disagree(self) -> bool:
        """One agent denies the call and another allows it."""
        actions = {e.action for e in self.entries if e.runtime.agent}
        return "deny" in actions and "allow" in actions

    def gate_words(self) -> str:
        from forge_tools.runtimes.forge.runtime import gate_reason

        if self.gate is None:
            return "not asked"
        rule = self.gate.deciding_rule if self.gate.refused is None else None
        return rule_words("forge", rule, self.root) if rule is not None else gate_reason(self.gate, self.root)

    def summary(self) -> str:
        """`` `git push`: opencode deny, Claude Code allow; forge-tools gate deny ``"""
        parts = [f"{e.runtime.display} {e.action}" if e.call is not None
                 else f"{e.runtime.display}: no such tool" for e in self.entries]
        said = ", ".join(parts) or "no agent runtime"
        gate = f"; forge-tools gate {self.gate.action}" if self.gate is not None else ""
        return f"{self.call.describe()}: {said}{gate}"

    def lines(self) -> list[str]:
        """The summary, then one line per runtime with its deciding rule, then the gate's."""
        rows = []
        for e in self.entries:
            who = e.runtime.label + (f" ({e.scope})" if e.scope else "")
            if e.call is None:
                rows.append((who, "-", e.missing or ""))
                continue
            called = "" if e.call.tool == self.call.tool else f" [as {e.call.tool}]"
            rows.append((who, (e.action or "-").upper(), e.words(self.root) + called))
        if self.gate is not None:
            rows.append(("forge-tools gate (forge-tools run)", self.gate.action.upper(), self.gate_words()))
        width = max(len(r[0]) for r in rows)
        notes = [f"note: {e.runtime.display}: {n}" for e in self.entries for n in e.notes]
        return [self.summary(), *(f"  {who:<{width}}  {action:<5}  {why}" for who, action, why in rows),
                *notes]

    def to_json(self) -> dict[str, Any]:
        return {"call": {"tool": self.call.tool, "args": self.call.args,
                         "mcp": list(self.call.mcp) if self.call.mcp else None},
                "summary": self.summary(), "disagree": self.disagree,
                "runtimes": [e.to_json(self.root) for e in self.entries],
                "gate": {**self.gate.to_json(), "why": self.gate_words()} if self.gate is not None else None}


def agent_runtimes(loaded: LoadedConfig, names: list[str] | None = None) -> list[FoundRuntime]:
    """The runtimes to answer for: `names` (each, found here or not), else every agent runtime the
    project configures (opencode when it configures none: forge-tools reads opencode's defaults)."""
    if names is not None:
        return [runtime_files(n, loaded) for n in names]
    found = [f for f in found_runtimes(loaded) if f.agent]
    return found or [runtime_files("opencode", loaded)]


def opencode_config(loaded: LoadedConfig) -> LoadedConfig:
    """The config as opencode reads it: the same files less forge-tools' own (the same `loaded` when
    there are none)."""
    from forge_tools.runtimes import is_forge_source

    if not any(is_forge_source(s) for s in loaded.sources):
        return loaded
    from forge_tools.config.loader import LoadOptions, load_config

    return load_config(LoadOptions(cwd=Path(loaded.cwd), project=Path(loaded.project_root)),
                       keep=lambda s: not is_forge_source(s))


def mcp_servers(loaded: LoadedConfig) -> tuple[str, ...]:
    node = loaded.node_at("mcp")
    return tuple(node.value) if node is not None and node.is_map else ()


def answers_by_runtime(loaded: LoadedConfig, result: PipelineResult, tool: str, args: dict[str, Any],
                       names: list[str] | None = None, request: Request | None = None,
                       load_code: bool = True, gate: bool = True,
                       opencode_turn: PipelineResult | None = None) -> AcrossAnswers:
    """Every agent runtime's answer about the call `tool` `args` (written in any runtime's words) and
    the gate's (unless `gate` is False), for the turn `result` (forge-tools' whole config, agent and
    request). `opencode_turn`: the same turn over opencode's files only, when already resolved."""
    from forge_tools.permission.gate import dry_gate
    from forge_tools.runtimes import get_runtime
    from forge_tools.visibility.call_decision import decide_call

    root, cwd = Path(loaded.project_root), agent_cwd(loaded)
    call = shared_call(tool, args, mcp_servers(loaded))
    decided = None
    if gate:  # over the answering agent's rules in the gate's terms (runtimes/gate_rules.py)
        from forge_tools.runtimes.gate_rules import project_gate

        turn = project_gate(loaded, result)[0]
        decided = decide_call(turn, call.tool, call.args, root, dry_gate(turn.ruleset))
    entries: list[RuntimeEntry] = []
    for found in agent_runtimes(loaded, names):
        own = own_call(found.name, call)
        if own is None:
            entries.append(RuntimeEntry(found, None, None))
            continue
        runtime = get_runtime(found.name)
        scope = ""
        notes: tuple[str, ...] = ()
        if found.name == "forge":
            from forge_tools.runtimes.forge.runtime import RUNTIME as FORGE

            own_gate = decided if decided is not None else decide_call(
                result, call.tool, call.args, root, dry_gate(result.ruleset))
            answer = FORGE.answer(own_gate, root)
            scope = f"agent {result.agent.name}"
        elif found.name == "opencode":
            turn = opencode_turn or _opencode_turn(loaded, result, request, load_code)
            answer = runtime.decide(turn, own.tool, own.args, root, cwd)
            scope = f"agent {turn.agent.name}"
        elif found.name == "claude":
            from forge_tools.runtimes.claude.runtime import RUNTIME as CLAUDE

            settings = CLAUDE.settings(cwd)
            answer = CLAUDE.decide(result, own.tool, own.args, root, cwd, settings=settings)
            notes = tuple(settings.notes)
        else:  # a runtime with its own files and decider (one more package: Codex, Gemini CLI)
            answer = runtime.decide(result, own.tool, own.args, root, cwd)
            notes = tuple((answer.extra or {}).get("notes", ()))
        entries.append(RuntimeEntry(found, own, answer, scope, (*notes, *_said_beside(found.name, loaded,
                                                                                   answer, own))))
    return AcrossAnswers(call, tuple(entries), decided, root)


def _said_beside(name: str, loaded: LoadedConfig, answer: RuntimeAnswer, own: OwnCall) -> tuple[str, ...]:
    """What every answer says beside itself (`runtimes.answer`): the files this agent ignores here,
    with the fix, the built-in checks that decided, and forge-tools' hook when one is installed for
    this agent (what it decides before the agent's rules)."""
    from forge_tools.runtimes.answer import builtin_checks, forge_hook, ignored_files

    ignored = [f"does not read {i.path}: {i.reason}; fix: {i.fix}" for i in ignored_files(name, loaded)]
    hook = forge_hook(name, loaded, own.tool, own.args)
    return (*ignored, *(f"built-in check: {c}" for c in builtin_checks(answer)),
            *((f"hook: {hook['line']}",) if hook else ()))


def opencode_turn(loaded: LoadedConfig, result: PipelineResult, load_code: bool = False
                  ) -> PipelineResult:
    """`result`'s turn over opencode's files only (the same result when there is no forge file)."""
    return _opencode_turn(loaded, result, None, load_code)


def _opencode_turn(loaded: LoadedConfig, result: PipelineResult, request: Request | None,
                   load_code: bool) -> PipelineResult:
    from forge_tools.visibility.pipeline import Request as Turn
    from forge_tools.visibility.pipeline import resolve

    own = opencode_config(loaded)
    if own is loaded:
        return result
    asked = request or Turn(agent=result.agent.name, client=result.client, flags=frozenset(result.flags))
    return resolve(own, asked, load_code=load_code)


def parse_runtimes(text: str, where: str) -> list[str] | None:
    """`all` (None: every agent runtime found) or comma-separated runtime names, each known."""
    from forge_tools.runtimes import get_runtime

    if text.strip() == "all":
        return None
    names = [n.strip() for n in text.split(",") if n.strip()]
    for name in names:
        get_runtime(name, where)
    return names


__all__ = [
    "AcrossAnswers",
    "RuntimeEntry",
    "agent_runtimes",
    "answers_by_runtime",
    "display_name",
    "opencode_config",
    "parse_runtimes",
]


NO_SUCH_TOOL = "-"


def runtime_columns(loaded: LoadedConfig, tool_ids: list[str]) -> list[tuple[FoundRuntime, dict[str, str]]]:
    """`layers --matrix --runtimes`: for each agent runtime the project configures besides opencode
    (whose agents are the matrix's other columns), each shared tool's state in it (`tool_states` of its
    package's files.py, asked in its own tool names), or `-` where it has no such tool."""
    from importlib import import_module

    from forge_tools.runtimes import RUNTIMES

    columns = []
    for found in found_runtimes(loaded):
        if not found.agent or found.name == "opencode":
            continue
        package = import_module(f"{RUNTIMES[found.name]}.files")
        own = {t: own_call(found.name, shared_call(t, {}, mcp_servers(loaded))) for t in tool_ids}
        states = package.tool_states(loaded, [c.tool for c in own.values() if c is not None])
        columns.append((found, {t: states[c.tool] if c is not None else NO_SUCH_TOOL
                                for t, c in own.items()}))
    return columns
