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
from typing import TYPE_CHECKING, Any, NamedTuple, cast

from forge_tools.errors import ConfigError
from forge_tools.origin import Node, Origin
from forge_tools.permission.calls import CallDecision
from forge_tools.report.findings import ExpectationOutcome, Finding
from forge_tools.rule import ACTIONS, Action, Rule
from forge_tools.visibility.call_decision import (
    args_problem,
    decide_call,
    did_you_mean,
    hidden_words,
    rule_origin_words,
)

if TYPE_CHECKING:
    from forge_tools.runtimes import Chosen
    from forge_tools.visibility.pipeline import PipelineResult

_KEYS = ("agent", "hidden", "visible", "call", "expect", "name", "model", "runtime", "runtimes")


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
    agent_origin: Origin | None = None
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
        who = "every agent" if self.agent == "*" else f"agent {self.agent or '?'}"
        if self.runtimes is not None and not self.agent:
            who = "every agent runtime" if not self.runtimes else ", ".join(self.runtimes)
        claude_tool = self.call is not None and (self.call.tool[:1].isupper()
                                                 or self.call.tool.startswith("mcp__"))
        if not self.agent and self.call is not None and (
                self.runtime == "claude" or (self.runtime is None and claude_tool)):
            who = "Claude Code"
        if not self.agent and self.call is not None and _gemini_call(self, None):
            who = "Gemini CLI"
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
    if agent_node is None:
        if "agent" not in meant and not _names_claude_call(node) and not _across(node):
            problems.append(('an assertion needs `agent` (an agent name, or "*" for every agent)',
                             node.origin))
    else:
        agent = _str(agent_node, "agent", problems)
    a = Assertion(agent or "", node.origin, agent_origin=agent_node.origin if agent_node else None,
                  problems=problems)
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
    call, expect = node.get("call"), node.get("expect")
    if call is None and expect is not None and "call" not in meant:
        problems.append(("a call assertion needs both `call` and `expect`; add `call ({tool: ..., "
                         "args: {...}})`", node.origin))
    if expect is None and call is not None and "expect" not in meant:
        problems.append(("a call assertion needs both `call` and `expect`; add `expect (allow, ask or "
                         "deny)`", node.origin))
    if call is not None:
        _call(a, call, problems)
        _codex_assertion(a)
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


def _across(node: Node) -> bool:
    """An assertion about every agent runtime's answer (`runtime: all`, `runtimes: [...]`): it needs
    no `agent` (opencode's answer is its default agent's)."""
    runtime = node.get("runtime")
    return (node.get("runtimes") is not None or (runtime is not None and runtime.value in ("all", "codex"))
            or _names_codex_call(node))


def _names_codex_call(node: Node) -> bool:
    """A call of a tool only Codex CLI has (`exec_command`): Codex has no agents either."""
    from forge_tools.runtimes import is_codex_call

    call = node.get("call")
    tool = call.get("tool") if call is not None and call.is_map else None
    args = call.get("args") if call is not None and call.is_map else None
    return tool is not None and isinstance(tool.value, str) and is_codex_call(
        tool.value, args.plain() if args is not None else None)


def _codex_assertion(a: Assertion) -> None:
    """`runtime: codex` (or a Codex tool's call) is answered as `runtimes: [codex]`, with the call put
    in forge-tools' words (`exec_command {"cmd"}` is `bash {"command"}`)."""
    from forge_tools.runtimes import is_codex_call
    from forge_tools.runtimes.vocabulary import shared_call

    if a.call is not None and is_codex_call(a.call.tool, a.call.args):
        shared = shared_call(a.call.tool, a.call.args)
        a.call = Call(shared.tool, shared.args)
        if a.runtime is None and a.runtimes is None:
            a.runtime = "codex"
    if a.runtime == "codex" and a.call is not None:
        a.runtimes, a.runtime = ["codex"], None


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


def _verdicts(a: Assertion, agent: str, result_for: ResultFor, root: Path,
              chosen: Chosen | None = None) -> tuple[bool, str]:
    """Whether `a` holds for one agent, and the actual verdicts that say why. A call's `expect` is
    about the runtime's answer (the assertion's `runtime:`, else `chosen`, else the config's); where
    the gate's differs, the one difference line is said beside it."""
    result = result_for(agent, a.model)
    holds = True
    words: list[str] = []
    for tool_id, want_visible in [*((t, False) for t, _ in a.hidden), *((t, True) for t, _ in a.visible)]:
        visible, why = tool_state(result, tool_id, root)
        holds = holds and visible == want_visible
        words.append(why)
    if a.call is not None and a.expect is not None:
        from forge_tools.runtimes import get_runtime, runtime_for
        from forge_tools.runtimes.compare import answers
        from forge_tools.runtimes.forge.runtime import ForgeRuntime

        if a.runtime is not None:
            from forge_tools.runtimes import Chosen as Picked

            chosen = Picked(get_runtime(a.runtime), "the expectation's runtime:")
        if _gemini_call(a, chosen):
            from forge_tools.runtimes import Chosen as Picked
            from forge_tools.runtimes.vocabulary import shared_call

            if chosen is None or chosen.runtime.name != "gemini":
                chosen = Picked(get_runtime("gemini"), f"call: {a.call.tool} is a Gemini CLI tool")
            shared = shared_call(a.call.tool, a.call.args)
            d = decide_call(_gate_of(result, "gemini", root), shared.tool, shared.args, root)
            both = answers(result, a.call.tool, a.call.args, root, chosen, d)
        elif _claude_call(a, chosen):
            from forge_tools.runtimes import Chosen as Picked
            from forge_tools.runtimes.claude.runtime import claude_answers

            if chosen is None or chosen.runtime.name != "claude":
                chosen = Picked(get_runtime("claude"), f"call: {a.call.tool} is a Claude Code tool")
            both = claude_answers(result, a.call.tool, a.call.args, root, root, chosen)
            d = both.gate
        else:
            if chosen is not None and chosen.runtime.name == "claude":
                chosen = None  # a call in forge-tools' terms (`bash`) is not Claude's: opencode answers
            runtime_name = chosen.runtime.name if chosen is not None else "opencode"
            d = decide_call(_gate_of(result, runtime_name, root), a.call.tool, a.call.args, root)
            both = answers(result, a.call.tool, a.call.args, root, chosen or runtime_for(None), d)
        got = both.runtime.action
        if isinstance(both.chosen.runtime, ForgeRuntime):
            explanation = call_words(d, a.call.tool, root)
        else:
            explanation = f"{both.runtime.label}: {both.runtime.reason}"
        difference = both.difference
        if difference is not None:
            explanation += f"; {difference}"
        if got == a.expect:
            words.append(f"{a.call.tool} call: {got}: {explanation}")
        else:
            holds = False
            words.append(f"{a.call.tool} call: expected {a.expect}, got {got}: {explanation}")
    return holds, "; ".join(words)


def _gate_of(result: Any, runtime: str, root: Path) -> Any:
    """The turn the gate decides over when `runtime` answers (its rules in the gate's terms, read from
    the project root: `runtimes/gate_rules.py`)."""
    from forge_tools.runtimes.gate_rules import gate_turn

    return gate_turn(result, runtime, root, root)[0]


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
        words = f"{e.runtime.label} {got} ({e.words(root)})"
        (agree if got == a.expect else differ).append(words)
    gate = f"; forge-tools gate: {both.gate.action} ({both.gate_words()})" if both.gate is not None else ""
    if differ:
        text = f"{a.call.tool} call: expected {a.expect} in every agent, but {'; '.join(differ)}"
        if agree:
            text += f"; as expected: {'; '.join(agree)}"
        return False, text + gate
    return True, f"{a.call.tool} call: {a.expect} in every agent: {'; '.join(agree)}{gate}"


def _names_claude_call(node: Node) -> bool:
    """An assertion about a Claude Code call (Claude has no agents: it needs no `agent`)."""
    from forge_tools.runtimes import is_claude_tool, is_gemini_tool

    runtime, call = node.get("runtime"), node.get("call")
    if runtime is not None:
        return runtime.value in ("claude", "gemini")  # Gemini CLI has no agents either
    tool = call.get("tool") if call is not None else None
    return tool is not None and isinstance(tool.value, str) and (
        is_claude_tool(tool.value) or is_gemini_tool(tool.value))


def _gemini_call(a: Assertion, chosen: Chosen | None) -> bool:
    """A call Gemini CLI answers: the assertion (or the check) names the gemini runtime, or no runtime
    is named and the tool is Gemini's (`run_shell_command`, `read_file`, `mcp_server_tool`)."""
    from forge_tools.runtimes import is_gemini_tool

    return not a.agent and _runtime_call(a, chosen, "gemini", is_gemini_tool)


def _claude_call(a: Assertion, chosen: Chosen | None) -> bool:
    """A call in Claude Code's terms: the assertion (or the check) names the claude runtime, or no
    runtime is named and the tool is Claude's (`Bash`, `Read`, `mcp__srv__tool`)."""
    from forge_tools.runtimes import is_claude_tool

    return _runtime_call(a, chosen, "claude", is_claude_tool)


def _runtime_call(a: Assertion, chosen: Chosen | None, runtime: str,
                  names_it: Callable[[str], bool]) -> bool:
    """The assertion (or the check) names `runtime`, or no runtime is named and the tool is its."""
    if a.call is None:
        return False
    if a.runtime is not None:
        return a.runtime == runtime
    if chosen is not None and chosen.chosen_by == "--runtime":
        return chosen.runtime.name == runtime
    return names_it(a.call.tool)


def _grouped(per_agent: list[tuple[str, str]]) -> str:
    """`build, plan: why; explore: other why`: agents with the same verdict are named together."""
    groups: dict[str, list[str]] = {}
    for agent, words in per_agent:
        groups.setdefault(words, []).append(agent)
    return " | ".join(f"{', '.join(agents)}: {words}" for words, agents in groups.items())


def _name_problems(a: Assertion, agents: list[str], result_for: ResultFor,
                   plugin_tools_known: bool) -> list[tuple[str, Origin]]:
    """Agents and tools the assertion names that do not exist, and call arguments that do not fit: all
    of them (tools are looked up in the first agent's turn when the agent itself is unknown)."""
    problems: list[tuple[str, Origin]] = []
    known_agent = a.agent == "*" or a.agent in agents
    if a.agent and not known_agent:
        problems.append((f"unknown agent {a.agent!r}{did_you_mean(a.agent, agents)}",
                         a.agent_origin or a.origin))
    if not agents:
        return problems
    result = result_for(a.agent if a.agent in agents else agents[0], a.model)
    unsure = "" if plugin_tools_known else " (plugin tools are unknown without --load-code)"
    named = [*a.hidden, *a.visible]
    if a.call is not None and _claude_call(a, None):
        from forge_tools.runtimes.claude.tools import KNOWN, canonical

        tool = a.call.tool
        if canonical(tool) not in KNOWN and not tool.startswith("mcp__"):
            problems.append((f"unknown Claude Code tool {tool!r}{did_you_mean(tool, sorted(KNOWN))}",
                             a.tool_origin or a.origin))
    elif a.call is not None and _gemini_call(a, None):
        from forge_tools.runtimes.gemini.tools import known

        from_gemini = a.call.tool
        if not known(from_gemini) and result.get(from_gemini) is None:
            problems.append((f"unknown Gemini CLI tool {from_gemini!r}", a.tool_origin or a.origin))
    elif a.call is not None:
        named.append((a.call.tool, a.tool_origin or a.origin))
    problems += [(f"unknown tool {t!r}{did_you_mean(t, result.ids)}{unsure}", o)
                 for t, o in named if result.get(t) is None]
    if (a.call is not None and not _claude_call(a, None) and not _gemini_call(a, None)
            and result.get(a.call.tool) is not None):
        why = args_problem(result, a.call.tool, a.call.args)
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
    read) has its names checked too, and is not evaluated."""
    outcomes: list[ExpectationOutcome] = []
    findings: list[Finding] = []
    for a in assertions:
        named = _name_problems(a, agents, result_for, plugin_tools_known)
        for message, origin in named:
            findings.append(Finding("FT202", "error", f"expectation {a.describe()!r}: {message}",
                                    "fix the name (or the arguments) in the expectations file", origin))
        problems = sorted([*a.problems, *named], key=lambda p: (p[1].line or 0, p[1].column or 0))
        if problems:
            outcomes.append(ExpectationOutcome(
                a.describe(), False, "not checked: " + "; ".join(m for m, _ in problems), a.origin))
            continue
        if a.runtimes is not None and a.call is not None and loaded is not None and agents:
            targets = agents if a.agent == "*" else [a.agent or agents[0]]
            verdicts = [(f"agent {agent}",
                         *_across_verdicts(a, agent, result_for, loaded)) for agent in targets]
        elif not a.agent and _claude_call(a, runtime) and agents:  # Claude Code has no agents
            verdicts = [("Claude Code", *_verdicts(a, agents[0], result_for, project_root, runtime))]
        elif not a.agent and _gemini_call(a, runtime) and agents:  # nor has Gemini CLI
            verdicts = [("Gemini CLI", *_verdicts(a, agents[0], result_for, project_root, runtime))]
        else:
            targets = agents if a.agent == "*" else [a.agent]
            verdicts = [(agent, *_verdicts(a, agent, result_for, project_root, runtime))
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
    return outcomes, findings
