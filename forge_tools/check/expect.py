"""`--expect FILE`: policy assertions checked against the real pipeline (issue 5).

The file (YAML, TOML or JSON; a list, or a mapping whose `expect` key holds the list) says, per agent,
which tools must be hidden or visible and what a given call must be decided as. Each assertion is
checked with the same `resolve` and `evaluate` the other commands use, and reported with the actual
verdict and the rule (and its origin) that decided it.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from forge_tools.errors import ConfigError
from forge_tools.named_tuple import NamedTuple
from forge_tools.origin import Node, Origin
from forge_tools.permission.calls import CallDecision
from forge_tools.report.findings import ExpectationOutcome, Finding
from forge_tools.rule import ACTIONS, Action, Rule
from forge_tools.visibility.call_decision import (
    args_problem,
    did_you_mean,
    hidden_words,
    rule_origin_words,
)

if TYPE_CHECKING:
    from forge_tools.runtimes import Chosen
    from forge_tools.runtimes.launch import Launch
    from forge_tools.visibility.pipeline import PipelineResult

_KEYS = ("agent", "hidden", "visible", "call", "expect", "name", "model", "runtime", "runtimes", "launch")


class Call(NamedTuple):
    """An expected call: the tool and its arguments."""

    tool: str
    args: dict[str, Any]


@dataclass
class Assertion:
    """One assertion of an expectations file as read: what it expects, where, and what is wrong with it."""

    agent: str
    origin: Origin
    hidden: list[tuple[str, Origin]] = field(default_factory=list)
    visible: list[tuple[str, Origin]] = field(default_factory=list)
    call: Call | None = None
    expect: Action | None = None
    name: str | None = None
    model: str | None = None
    runtime: str | None = None  # whose answer `expect` is about (default: the check's runtime)
    #: `runtime: all` (every agent runtime the repository configures: []) or `runtimes: [a, b]`: the
    #: call must get `expect` from each (runtimes/across.py); None: one runtime's answer
    runtimes: list[str] | None = None
    #: `launch: 'codex exec -s workspace-write'`: the agent's start the expectation is about (its
    #: program answers; runtimes/launch.py)
    launch: Launch | None = None
    agent_origin: Origin | None = None
    agent_misspelt: bool = False  # a key that looks like `agent` (reported as unknown, not as missing)
    tool_origin: Origin | None = None  # the call's `tool` value
    args_origin: Origin | None = None  # the call's `args` (or the call itself)
    problems: list[tuple[str, Origin]] = field(default_factory=list)  # what is wrong with its form

    def describe(self) -> str:
        if self.name:
            return self.name
        parts = []
        if self.hidden:
            parts.append(f"hidden: {', '.join(t for t, _ in self.hidden)}")
        if self.visible:
            parts.append(f"visible: {', '.join(t for t, _ in self.visible)}")
        if self.call is not None:
            parts.append(f"call {self.call.tool} {json.dumps(self.call.args)} -> {self.expect or '?'}")
        who = ("every agent" if self.agent == "*" else f"agent {self.agent}" if self.agent
               else "the answering agent")
        if self.runtimes is not None and not self.agent:
            who = "every agent runtime" if not self.runtimes else ", ".join(self.runtimes)
        elif self.runtime is not None and not self.agent:
            from forge_tools.runtimes.found import display_name

            who = display_name(self.runtime)
        if self.launch is not None:
            who += f" started as {self.launch.text!r}"
        return f"{who}: {'; '.join(parts) or '(incomplete)'}"


# ------------------------------------------------------------------------------------------ parsing

Problems = list[tuple[str, Origin]]


def _hint(value: str, choices: tuple[str, ...] | list[str]) -> str:
    close = difflib.get_close_matches(value, list(choices), n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


def _str(node: Node, what: str, problems: Problems) -> str | None:
    if not isinstance(node.value, str) or not node.value:
        problems.append((f"{what} must be a non-empty string", node.origin))
        return None
    return node.value


def _names(node: Node, what: str, problems: Problems) -> list[tuple[str, Origin]]:
    if isinstance(node.value, str):
        return [(node.value, node.origin)]
    if not node.is_list:
        problems.append((f"{what} must be a tool id or a list of tool ids", node.origin))
        return []
    found = [(_str(item, f"{what} item", problems), item.origin) for item in node.value]
    return [(name, origin) for name, origin in found if name is not None]


def _unknown_keys(node: Node, known: tuple[str, ...], what: str, problems: Problems) -> set[str]:
    """Report each unknown key at its own position; return the known keys they look like, so that a
    misspelt `agnet` is not also reported as a missing `agent`."""
    meant: set[str] = set()
    for key, child in node.items():
        if key not in known:
            close = difflib.get_close_matches(key, list(known), n=1)
            meant.update(close)
            hint = f" (did you mean {close[0]!r}?)" if close else f"; known keys: {', '.join(known)}"
            problems.append((f"unknown {what} key {key!r}{hint}", child.key_origin or child.origin))
    return meant


def _call(a: Assertion, call: Node, problems: Problems) -> None:
    if not call.is_map:
        problems.append(("call must be a mapping with `tool` and optional `args`", call.origin))
        return
    meant = _unknown_keys(call, ("tool", "args"), "call", problems)
    tool_node, args = call.get("tool"), call.get("args")
    tool = None
    if tool_node is None:
        if "tool" not in meant:
            problems.append(("call needs `tool` (a tool id)", call.origin))
    else:
        tool = _str(tool_node, "call.tool", problems)
        a.tool_origin = tool_node.origin
    if args is not None and not args.is_map:
        problems.append(("call.args must be a mapping of argument names to values", args.origin))
        args = None
    a.args_origin = args.origin if args is not None else call.origin
    if tool is not None:
        a.call = Call(tool, args.plain() if args is not None else {})


def _assertion(node: Node) -> Assertion | None:
    """The assertion, with every structural problem of it in `problems` (None when it is not a map)."""
    if not node.is_map:
        return None
    problems: Problems = []
    meant = _unknown_keys(node, _KEYS, "assertion", problems)
    agent_node = node.get("agent")
    agent = None
    if agent_node is not None:  # needed only when the answering runtime has agents (`_name_problems`)
        agent = _str(agent_node, "agent", problems)
    a = Assertion(agent or "", node.origin, agent_origin=agent_node.origin if agent_node else None,
                  agent_misspelt="agent" in meant, problems=problems)
    before = len(problems)
    if (h := node.get("hidden")) is not None:
        a.hidden = _names(h, "hidden", problems)
    if (v := node.get("visible")) is not None:
        a.visible = _names(v, "visible", problems)
    names_ok = len(problems) == before
    if (n := node.get("name")) is not None:
        a.name = _str(n, "name", problems)
    if (r := node.get("runtime")) is not None:
        from forge_tools.runtimes import RUNTIMES

        name = _str(r, "runtime", problems)
        if name == "all":
            a.runtimes = []
        elif name is not None and name not in RUNTIMES:
            problems.append((f"unknown runtime {name!r}{_hint(name, list(RUNTIMES))}; known: "
                             f"{', '.join(RUNTIMES)}", r.origin))
        elif name is not None:
            a.runtime = name
    if (rs := node.get("runtimes")) is not None:
        _runtimes(a, rs, r, problems)
    if (m := node.get("model")) is not None:
        a.model = _str(m, "model", problems)
    if (lnode := node.get("launch")) is not None:
        _launch(a, lnode, problems)
    call, expect = node.get("call"), node.get("expect")
    if call is None and expect is not None and "call" not in meant:
        problems.append(("a call assertion needs both `call` and `expect`; add `call ({tool: ..., "
                         "args: {...}})`", node.origin))
    if expect is None and call is not None and "expect" not in meant:
        problems.append(("a call assertion needs both `call` and `expect`; add `expect (allow, ask or "
                         "deny)`", node.origin))
    if call is not None:
        _call(a, call, problems)
    if expect is not None:
        if expect.value in ACTIONS:
            a.expect = cast(Action, expect.value)
        else:
            problems.append((f"expect must be allow, ask or deny, not {expect.value!r}"
                             f"{_hint(str(expect.value), ACTIONS)}", expect.origin))
    if (call is None and expect is None and not (a.hidden or a.visible) and names_ok
            and not meant & {"hidden", "visible", "call", "expect"}):
        problems.append(("an assertion needs `hidden`, `visible`, or `call` with `expect`", node.origin))
    return a


def _launch(a: Assertion, node: Node, problems: Problems) -> None:
    """`launch: 'claude -p --permission-mode acceptEdits'`: read with the agent's own flags; a bad flag,
    or a `runtime:` naming another agent, is a problem at the value."""
    from forge_tools.errors import UsageError
    from forge_tools.runtimes.launch import choose, parse_launch

    text = _str(node, "launch", problems)
    if text is None:
        return
    try:
        a.launch = parse_launch(text, where="launch")
        if a.runtimes is not None:
            raise UsageError("give `launch` or `runtime: all` / `runtimes`, not both")
        choose(a.launch, a.runtime, where="runtime")
    except UsageError as exc:
        a.launch = None
        problems.append((exc.message, node.origin))


def _runtimes(a: Assertion, node: Node, runtime: Node | None, problems: Problems) -> None:
    """`runtimes: [opencode, claude]`: each a known runtime name."""
    from forge_tools.runtimes import RUNTIMES

    if runtime is not None:
        problems.append(("give `runtime` or `runtimes`, not both", node.key_origin or node.origin))
        return
    items = _names(node, "runtimes", problems)
    names = []
    for name, origin in items:
        if name not in RUNTIMES:
            problems.append((f"unknown runtime {name!r}{_hint(name, list(RUNTIMES))}; known: "
                             f"{', '.join(RUNTIMES)}", origin))
        else:
            names.append(name)
    if not items:
        problems.append(("runtimes must name at least one runtime (or write `runtime: all`)", node.origin))
    a.runtimes = names


@dataclass
class ExpectationsFile:
    """Every assertion of the file (those with problems too: their names are still checked) and the
    problems that are not about one assertion (the file's shape)."""

    assertions: list[Assertion]
    problems: Problems

    @property
    def all_problems(self) -> Problems:
        return [*self.problems, *(p for a in self.assertions for p in a.problems)]


def read_expectations(path: Path) -> ExpectationsFile:
    """Parse the file and collect every structural problem of it, each at its own line:col (a file
    that cannot be read or parsed, or is not a list, is one problem)."""
    import os

    from forge_tools.config.reader import parse_file

    what = "expectations file (--expect)"
    if not os.path.lexists(path):
        raise ConfigError(f"no such {what}", Origin("file", path=str(path))) from None
    try:
        tree = parse_file(path, what)
    except ConfigError as exc:
        return ExpectationsFile([], [(exc.message, exc.origin or Origin("file", path=str(path)))])
    items = tree
    if tree.is_map:
        inner = tree.get("expect") or tree.get("expectations")
        if inner is None:
            return ExpectationsFile([], [("expected a list of assertions, or a mapping with an `expect` list",
                                          tree.origin)])
        items = inner
    if not items.is_list:
        return ExpectationsFile([], [("expected a list of assertions", items.origin)])
    found = ExpectationsFile([], [])
    for item in items.value:
        a = _assertion(item)
        if a is None:
            found.problems.append(("an assertion must be a mapping such as {agent: plan, hidden: [edit]}",
                                   item.origin))
        else:
            found.assertions.append(a)
    return found


def load_expectations(path: Path) -> list[Assertion]:
    """The assertions, or ConfigError at the first problem (naming how many more there are)."""
    found = read_expectations(path)
    problems = sorted(found.all_problems, key=lambda p: (p[1].line or 0, p[1].column or 0))
    if problems:
        message, origin = problems[0]
        more = (f" (and {len(problems) - 1} more problem(s): `forge-tools check --expect` lists them all)"
                if len(problems) > 1 else "")
        raise ConfigError(message + more, origin)
    return found.assertions


# ------------------------------------------------------------------------------------------ checking


def call_words(decision: CallDecision, tool_id: str, project_root: Path | None) -> str:
    """Why a call got its action, in words: the deciding pattern and rule, then every check made."""
    if decision.refused is not None:
        return decision.refused
    worst = decision.deciding
    if worst is None:
        return f"{tool_id} needs no permission check for this call"
    why = rule_origin_words(worst.rule, project_root)
    if worst.escalated_by is not None:  # the note says why, in the decision's own words (permission.calls)
        why = f"the rules allow it ({why}), but {worst.note}"
    text = f"{worst.permission} {json.dumps(worst.pattern)}: {why}"
    if len(decision.checks) > 1:
        checked = "; ".join(f"{d.permission} {json.dumps(d.pattern)} -> {d.action}" for d in decision.checks)
        text += f" (checked: {checked})"
    return text


def tool_state(result: PipelineResult, tool_id: str, root: Path) -> tuple[bool, str]:
    """(visible, why) for one tool in one turn, with the deciding rule and where it was written."""
    v = result.get(tool_id)
    if v is None:  # names are checked before (FT202); say so rather than fail
        return False, f"unknown tool {tool_id!r}"
    if v.visible:
        rule = v.layer("permission").rule
        why = (f"last rule for {v.permission}: {rule_origin_words(rule, root)}" if isinstance(rule, Rule)
               else v.layer("permission").reason)
        return True, f"{tool_id} is visible ({why})"
    return False, hidden_words(v, root)


ResultFor = Callable[[str, str | None], Any]


def answering(a: Assertion, chosen: Chosen | None, loaded: Any) -> Chosen:
    """Whose answer the assertion is about: its `runtime:`, else the check's (`--runtime`, or the
    project's files: `runtimes.runtime_for`)."""
    from forge_tools.runtimes import Chosen as Picked
    from forge_tools.runtimes import get_runtime, runtime_for

    if a.launch is not None:
        return Picked(get_runtime(a.launch.runtime), f"the expectation's launch: {a.launch.describe()}",
                      a.launch)
    if a.runtime is not None:
        return Picked(get_runtime(a.runtime), "the expectation's runtime:")
    return chosen if chosen is not None else runtime_for(loaded)


def agent_tool_state(chosen: Chosen, loaded: Any, tool: str) -> tuple[bool, str]:
    """(visible, why) of `tool` (any agent's spelling) for an agent runtime without agents, in its
    own tool names and as `layers` says it (`agent_explain.offered_row`)."""
    from forge_tools.runtimes.across import mcp_servers
    from forge_tools.runtimes.agent_explain import offered_row
    from forge_tools.runtimes.vocabulary import translate

    name = chosen.runtime.name
    own = translate(name, tool, {}, mcp_servers(loaded)).own
    if own is None:
        return False, f"{chosen.display} has no tool for {tool}"
    row = offered_row(name, loaded, own.tool)
    visible = row["state"] not in ("hidden", "-")
    why = f" ({row['why']})" if row["why"] else ""
    return visible, f"{chosen.display}: {own.tool} is {row['state']}{why}"


def _verdicts(a: Assertion, agent: str, result_for: ResultFor, root: Path, chosen: Chosen,
              loaded: Any) -> tuple[bool, str]:
    """Whether `a` holds for one agent (of a runtime with agents; any for one without), and the actual
    verdicts that say why, in the answering agent's words. A call's `expect` is about the answering
    runtime's answer (`runtimes.answer.call_answers`, as `explain --call`); where the gate's differs,
    the one difference line is said beside it."""
    from forge_tools.runtimes.answer import has_agents

    result = result_for(agent, a.model)
    holds = True
    words: list[str] = []
    for tool_id, want_visible in [*((t, False) for t, _ in a.hidden), *((t, True) for t, _ in a.visible)]:
        if has_agents(chosen.runtime.name):
            from forge_tools.runtimes.vocabulary import shared_call

            visible, why = tool_state(result, shared_call(tool_id, {}).tool, root)
        else:
            visible, why = agent_tool_state(chosen, loaded, tool_id)
        holds = holds and visible == want_visible
        words.append(why)
    if a.call is not None and a.expect is not None:
        from forge_tools.runtimes.answer import call_answers
        from forge_tools.runtimes.forge.runtime import ForgeRuntime

        both = call_answers(chosen, loaded, result, a.call.tool, a.call.args)
        got = both.runtime.action
        if isinstance(both.chosen.runtime, ForgeRuntime):
            explanation = call_words(both.gate, a.call.tool, root)
        else:
            explanation = f"{both.runtime.label}: {both.runtime.reason}"
        if both.translated:
            explanation += f" ({both.translated})"
        difference = both.beside_reason
        if difference is not None:
            explanation += f"; {difference}"
        from forge_tools.runtimes.answer import forge_hook

        hook = forge_hook(chosen.runtime.name, loaded, a.call.tool, a.call.args)
        if hook is not None:
            explanation += f"; hook: {hook['line']}"
        if got == a.expect:
            words.append(f"{a.call.tool} call: {got}: {explanation}")
        else:
            holds = False
            words.append(f"{a.call.tool} call: expected {a.expect}, got {got}: {explanation}")
    return holds, "; ".join(words)


def _across_verdicts(a: Assertion, agent: str, result_for: ResultFor, loaded: Any) -> tuple[bool, str]:
    """Whether every runtime named (or every agent runtime found) answers the call with `expect`; the
    words name each runtime that differs, with its deciding rule, then those that agree."""
    from forge_tools.runtimes.across import answers_by_runtime

    assert a.call is not None and a.expect is not None and a.runtimes is not None
    result = result_for(agent, a.model)
    both = answers_by_runtime(loaded, result, a.call.tool, a.call.args, a.runtimes or None,
                              load_code=result.hooks is not None)
    root = both.root
    differ: list[str] = []
    agree: list[str] = []
    for e in both.entries:
        got = e.action or "deny"  # an agent without the tool cannot make the call
        hooks = [n for n in e.notes if n.startswith("hook: ")]  # forge-tools' hook, when installed
        words = f"{e.runtime.label} {got} ({'; '.join([e.words(root), *hooks])})"
        (agree if got == a.expect else differ).append(words)
    gate = f"; forge-tools gate: {both.gate.action} ({both.gate_words()})" if both.gate is not None else ""
    if differ:
        text = f"{a.call.tool} call: expected {a.expect} in every agent, but {'; '.join(differ)}"
        if agree:
            text += f"; as expected: {'; '.join(agree)}"
        return False, text + gate
    return True, f"{a.call.tool} call: {a.expect} in every agent: {'; '.join(agree)}{gate}"


def _grouped(per_agent: list[tuple[str, str]]) -> str:
    """`build, plan: why; explore: other why`: agents with the same verdict are named together."""
    groups: dict[str, list[str]] = {}
    for agent, words in per_agent:
        groups.setdefault(words, []).append(agent)
    return " | ".join(f"{', '.join(agents)}: {words}" for words, agents in groups.items())


def agent_given(a: Assertion) -> bool:
    """The assertion's `agent` is missing, not given empty (an empty one is a problem of its form)."""
    return a.agent_origin is None


def _name_problems(a: Assertion, agents: list[str], result_for: ResultFor, plugin_tools_known: bool,
                   chosen: Chosen, loaded: Any) -> list[tuple[str, Origin]]:
    """Agents and tools the assertion names that do not exist for the answering agent (in any agent's
    spelling), and call arguments that do not fit: all of them (tools are looked up in the first
    agent's turn when the agent itself is unknown). An assertion names an agent only when the
    answering runtime has agents (opencode's)."""
    from forge_tools.runtimes.answer import has_agents
    from forge_tools.runtimes.vocabulary import shared_call, translate

    problems: list[tuple[str, Origin]] = []
    per_agent = has_agents(chosen.runtime.name) and a.runtimes is None
    if per_agent and not a.agent and not a.agent_misspelt and agent_given(a):
        problems.append(('an assertion needs `agent` (an agent name, or "*" for every agent) when '
                         f"{chosen.display} answers", a.origin))
    known_agent = a.agent == "*" or a.agent in agents
    if per_agent and a.agent and not known_agent:
        problems.append((f"unknown agent {a.agent!r}{did_you_mean(a.agent, agents)}",
                         a.agent_origin or a.origin))
    if not agents:
        return problems
    result = result_for(a.agent if a.agent in agents else agents[0], a.model)
    named = [*a.hidden, *a.visible]
    if a.call is not None:
        named.append((a.call.tool, a.tool_origin or a.origin))
    if not per_agent:
        from forge_tools.runtimes.across import mcp_servers

        if a.runtimes is None:
            for tool, origin in named:
                words = translate(chosen.runtime.name, tool, {}, mcp_servers(loaded))
                # a tool another agent has (`read` for Codex) is one this agent hides; a name no agent
                # has is a mistake of the file (or a call that cannot be made)
                if words.own is None and (result.get(words.shared.tool) is None
                                          or (a.call is not None and tool == a.call.tool)):
                    problems.append((f"{chosen.display} has no tool {tool!r}", origin))
        return problems
    unsure = "" if plugin_tools_known else " (plugin tools are unknown without --load-code)"
    shared = [(shared_call(t, {}).tool, t, o) for t, o in named]
    problems += [(f"unknown tool {t!r}{did_you_mean(t, result.ids)}{unsure}", o)
                 for own, t, o in shared if result.get(own) is None]
    if a.call is not None:
        call = shared_call(a.call.tool, a.call.args)
        if result.get(call.tool) is not None:
            why = args_problem(result, call.tool, call.args)
            if why is not None:
                problems.append((why, a.args_origin or a.origin))
    return problems


def check_expectations(assertions: list[Assertion], agents: list[str], result_for: ResultFor,
                       project_root: Path, plugin_tools_known: bool = True,
                       runtime: Chosen | None = None, loaded: Any = None,
                       ) -> tuple[list[ExpectationOutcome], list[Finding]]:
    """Each assertion's outcome with the actual verdicts; an FT201 finding (at the assertion) for each
    one that fails, and an FT202 finding (at the name) for an unknown agent or tool or unfit args.
    An assertion with problems of form (`Assertion.problems`, reported by the caller when the file is
    read) has its names checked too, and is not evaluated. `runtime`: the check's answering runtime
    (None: the project's files choose)."""
    from contextlib import nullcontext

    from forge_tools.runtimes.launch import launched

    outcomes: list[ExpectationOutcome] = []
    findings: list[Finding] = []

    for a in assertions:
        with launched(a.launch) if a.launch is not None else nullcontext():
            _check_one(a, agents, result_for, project_root, plugin_tools_known, runtime, loaded,
                       outcomes, findings)
    return outcomes, findings


def _check_one(a: Assertion, agents: list[str], result_for: ResultFor, project_root: Path,
               plugin_tools_known: bool, runtime: Chosen | None, loaded: Any,
               outcomes: list[ExpectationOutcome], findings: list[Finding]) -> None:
    """One assertion's outcome (and findings), under its own launch when it has one."""
    from forge_tools.runtimes.answer import has_agents

    chosen = answering(a, runtime, loaded)
    named = _name_problems(a, agents, result_for, plugin_tools_known, chosen, loaded)
    for message, origin in named:
        findings.append(Finding("FT202", "error", f"expectation {a.describe()!r}: {message}",
                                "fix the name (or the arguments) in the expectations file", origin))
    problems = sorted([*a.problems, *named], key=lambda p: (p[1].line or 0, p[1].column or 0))
    if problems:
        outcomes.append(ExpectationOutcome(
            a.describe(), False, "not checked: " + "; ".join(m for m, _ in problems), a.origin))
        return
    if a.runtimes is not None and a.call is not None and loaded is not None and agents:
        targets = agents if a.agent == "*" else [a.agent or agents[0]]
        verdicts = [(f"agent {agent}",
                     *_across_verdicts(a, agent, result_for, loaded)) for agent in targets]
    elif not has_agents(chosen.runtime.name) and agents:  # Claude, Codex, Gemini: no agents
        turn = a.agent if a.agent in agents else agents[0]
        who = chosen.display + (f" started as {chosen.launch.text!r}" if chosen.launch is not None else "")
        verdicts = [(who, *_verdicts(a, turn, result_for, project_root, chosen, loaded))]
    else:
        targets = agents if a.agent == "*" else [a.agent]
        verdicts = [(agent, *_verdicts(a, agent, result_for, project_root, chosen, loaded))
                    for agent in targets]
    failing = [(agent, words) for agent, holds, words in verdicts if not holds]
    if failing:
        text = _grouped(failing)
        outcomes.append(ExpectationOutcome(a.describe(), False, text, a.origin))
        findings.append(Finding("FT201", "error", f"expectation failed: {a.describe()}: {text}",
                                "change the config so it holds, or update the expectation",
                                a.origin, data={"expectation": True}))
    else:
        outcomes.append(ExpectationOutcome(a.describe(), True,
                                           _grouped([(agent, words) for agent, _, words in verdicts]),
                                           a.origin))
