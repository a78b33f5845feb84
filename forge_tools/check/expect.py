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
from typing import Any, cast

from forge_tools.errors import ConfigError
from forge_tools.origin import Node, Origin
from forge_tools.permission.model import ACTIONS, Action, Rule
from forge_tools.report.findings import ExpectationOutcome, Finding

_KEYS = ("agent", "hidden", "visible", "call", "expect", "name", "model")
_STRICTNESS = {"allow": 0, "ask": 1, "deny": 2}


@dataclass(frozen=True)
class Call:
    tool: str
    args: dict[str, Any]


@dataclass
class Assertion:
    agent: str
    origin: Origin
    hidden: list[tuple[str, Origin]] = field(default_factory=list)
    visible: list[tuple[str, Origin]] = field(default_factory=list)
    call: Call | None = None
    expect: Action | None = None
    name: str | None = None
    model: str | None = None

    def describe(self) -> str:
        if self.name:
            return self.name
        parts = []
        if self.hidden:
            parts.append(f"hidden: {', '.join(t for t, _ in self.hidden)}")
        if self.visible:
            parts.append(f"visible: {', '.join(t for t, _ in self.visible)}")
        if self.call is not None:
            parts.append(f"call {self.call.tool} {json.dumps(self.call.args)} -> {self.expect}")
        who = "every agent" if self.agent == "*" else f"agent {self.agent}"
        return f"{who}: {'; '.join(parts)}"


# ------------------------------------------------------------------------------------------ parsing


def _str(node: Node, what: str) -> str:
    if not isinstance(node.value, str) or not node.value:
        raise ConfigError(f"{what} must be a non-empty string", node.origin)
    return node.value


def _names(node: Node, what: str) -> list[tuple[str, Origin]]:
    if isinstance(node.value, str):
        return [(node.value, node.origin)]
    if not node.is_list:
        raise ConfigError(f"{what} must be a tool id or a list of tool ids", node.origin)
    return [(_str(item, f"{what} item"), item.origin) for item in node.value]


def _assertion(node: Node) -> Assertion:
    if not node.is_map:
        raise ConfigError("an assertion must be a mapping such as {agent: plan, hidden: [edit]}", node.origin)
    for key, child in node.items():
        if key not in _KEYS:
            close = difflib.get_close_matches(key, _KEYS, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise ConfigError(f"unknown assertion key {key!r}{hint}", child.key_origin or child.origin)
    agent_node = node.get("agent")
    if agent_node is None:
        raise ConfigError('an assertion needs `agent` (an agent name, or "*" for every agent)', node.origin)
    a = Assertion(_str(agent_node, "agent"), node.origin)
    if (h := node.get("hidden")) is not None:
        a.hidden = _names(h, "hidden")
    if (v := node.get("visible")) is not None:
        a.visible = _names(v, "visible")
    if (n := node.get("name")) is not None:
        a.name = _str(n, "name")
    if (m := node.get("model")) is not None:
        a.model = _str(m, "model")
    call, expect = node.get("call"), node.get("expect")
    if (call is None) != (expect is None):
        missing = "expect (allow, ask or deny)" if expect is None else "call ({tool: ..., args: {...}})"
        raise ConfigError(f"a call assertion needs both `call` and `expect`; add `{missing}`", node.origin)
    if call is not None and expect is not None:
        if not call.is_map or call.get("tool") is None:
            raise ConfigError("call must be a mapping with `tool` and optional `args`", call.origin)
        for key, child in call.items():
            if key not in ("tool", "args"):
                raise ConfigError(f"unknown call key {key!r}; use tool and args",
                                  child.key_origin or child.origin)
        args = call.get("args")
        if args is not None and not args.is_map:
            raise ConfigError("call.args must be a mapping of argument names to values", args.origin)
        tool = _str(cast(Node, call.get("tool")), "call.tool")
        a.call = Call(tool, args.plain() if args is not None else {})
        if expect.value not in ACTIONS:
            close = difflib.get_close_matches(str(expect.value), ACTIONS, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise ConfigError(f"expect must be allow, ask or deny, not {expect.value!r}{hint}", expect.origin)
        a.expect = cast(Action, expect.value)
    if not (a.hidden or a.visible or a.call):
        raise ConfigError("an assertion needs `hidden`, `visible`, or `call` with `expect`", node.origin)
    return a


def load_expectations(path: Path) -> list[Assertion]:
    """Parse and validate the file; a problem raises ConfigError at its file:line:col."""
    from forge_tools.config.parse import format_of, parse_text

    base = Origin("file", path=str(path))
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError("expectations file not found (--expect)", base) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read expectations file: {exc}", base) from None
    tree = parse_text(text.removeprefix("\ufeff"), format_of(path), base)
    items = tree
    if tree.is_map:
        inner = tree.get("expect") or tree.get("expectations")
        if inner is None:
            raise ConfigError("expected a list of assertions, or a mapping with an `expect` list",
                              tree.origin)
        items = inner
    if not items.is_list:
        raise ConfigError("expected a list of assertions", items.origin)
    return [_assertion(item) for item in items.value]


# ------------------------------------------------------------------------------------------ checking


def rule_origin_words(rule: Rule | None) -> str:
    if rule is None:
        return "no rule matched (the default is ask)"
    return f"rule {rule.permission} {json.dumps(rule.pattern)} {rule.action} ({rule.origin})"


@dataclass(frozen=True)
class CallDecision:
    """The strictest decision across every pattern a call is checked against (deny > ask > allow)."""

    action: Action
    explanation: str
    rule: Rule | None = None


def decide_call(result: Any, tool_id: str, args: dict[str, Any], project_root: Path) -> CallDecision:
    """What the gate would decide for this call in this turn, without running the tool."""
    from forge_tools.permission.evaluate import evaluate
    from forge_tools.tools.contract import PermissionRequest, ToolContext

    verdict = result.get(tool_id)
    if verdict is None:
        close = difflib.get_close_matches(tool_id, result.ids, n=3)
        hint = f" (did you mean {', '.join(repr(c) for c in close)}?)" if close else ""
        return CallDecision("deny", f"unknown tool {tool_id!r}{hint}")
    if not verdict.visible:
        deciding = verdict.deciding
        rule = deciding.rule if deciding is not None and isinstance(deciding.rule, Rule) else None
        return CallDecision("deny", f"{tool_id} is hidden at the {verdict.hidden_at} layer: {verdict.reason}",
                            rule)
    tool = verdict.tool
    requests: list[PermissionRequest]
    if tool is not None and tool.permission_requests is not None:
        try:
            params = tool.parameters
            value: Any = params.model_validate(args) if not isinstance(params, dict) else args
            ctx = ToolContext(agent=result.agent.name, project_root=project_root)
            requests = list(tool.permission_requests(value, ctx))
        except Exception as exc:
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            return CallDecision("deny", f"the call's arguments are not valid for {tool_id}: {first}")
    else:
        requests = [PermissionRequest(verdict.permission, ("*",))]
    worst: CallDecision | None = None
    checked: list[str] = []
    for req in requests:
        for pattern in req.patterns:
            d = evaluate(req.permission, pattern, result.ruleset)
            checked.append(f"{req.permission} {json.dumps(pattern)} -> {d.action}")
            if worst is None or _STRICTNESS[d.action] > _STRICTNESS[worst.action]:
                worst = CallDecision(d.action, f"{req.permission} {json.dumps(pattern)}: "
                                     f"{rule_origin_words(d.rule)}", d.rule)
    if worst is None:
        return CallDecision("allow", f"{tool_id} needs no permission check for this call")
    if len(checked) > 1:
        return CallDecision(worst.action, f"{worst.explanation} (checked: {'; '.join(checked)})", worst.rule)
    return worst


ResultFor = Callable[[str, str | None], Any]


def _check_one(a: Assertion, agent: str, result_for: ResultFor, project_root: Path) -> list[str]:
    """The reasons `a` fails for one agent (empty when it holds), and the passing explanations."""
    result = result_for(agent, a.model)
    failures: list[str] = []
    for tool_id, _ in a.hidden:
        v = result.get(tool_id)
        if v is None:
            close = difflib.get_close_matches(tool_id, result.ids, n=3)
            hint = f" (did you mean {', '.join(repr(c) for c in close)}?)" if close else ""
            failures.append(f"{agent}: unknown tool {tool_id!r}{hint}")
        elif v.visible:
            rule = v.layer("permission").rule
            why = f"last rule for {v.permission}: {rule_origin_words(rule)}" if isinstance(rule, Rule) \
                else v.layer("permission").reason
            failures.append(f"{agent}: {tool_id} is visible ({why})")
    for tool_id, _ in a.visible:
        v = result.get(tool_id)
        if v is None:
            close = difflib.get_close_matches(tool_id, result.ids, n=3)
            hint = f" (did you mean {', '.join(repr(c) for c in close)}?)" if close else ""
            failures.append(f"{agent}: unknown tool {tool_id!r}{hint}")
        elif not v.visible:
            deciding = v.deciding
            rule = deciding.rule if deciding is not None else None
            where = f" by {rule_origin_words(rule)}" if isinstance(rule, Rule) else ""
            failures.append(f"{agent}: {tool_id} is hidden at the {v.hidden_at} layer{where}: {v.reason}")
    if a.call is not None and a.expect is not None:
        d = decide_call(result, a.call.tool, a.call.args, project_root)
        if d.action != a.expect:
            failures.append(f"{agent}: expected {a.expect}, got {d.action}: {d.explanation}")
    return failures


def _passed_words(a: Assertion, agent: str, result_for: ResultFor, project_root: Path) -> str:
    if a.call is not None:
        d = decide_call(result_for(agent, a.model), a.call.tool, a.call.args, project_root)
        return f"{d.action}: {d.explanation}"
    return "holds"


def check_expectations(assertions: list[Assertion], agents: list[str], result_for: ResultFor,
                       project_root: Path) -> tuple[list[ExpectationOutcome], list[Finding]]:
    """Each assertion's outcome, and an FT201 finding (at the assertion) for each one that fails."""
    outcomes: list[ExpectationOutcome] = []
    findings: list[Finding] = []
    for a in assertions:
        if a.agent != "*" and a.agent not in agents:
            close = difflib.get_close_matches(a.agent, agents, n=3)
            hint = f" (did you mean {', '.join(repr(c) for c in close)}?)" if close else ""
            failures = [f"unknown agent {a.agent!r}{hint}"]
        else:
            targets = agents if a.agent == "*" else [a.agent]
            failures = [f for agent in targets for f in _check_one(a, agent, result_for, project_root)]
        if failures:
            text = "; ".join(failures)
            outcomes.append(ExpectationOutcome(a.describe(), False, text, a.origin))
            findings.append(Finding("FT201", "error", f"expectation failed: {a.describe()}: {text}",
                                    "change the config so it holds, or update the expectation",
                                    a.origin, data={"expectation": True}))
        else:
            words = (_passed_words(a, a.agent, result_for, project_root) if a.agent != "*"
                     else f"holds for every agent ({', '.join(agents)})")
            outcomes.append(ExpectationOutcome(a.describe(), True, words, a.origin))
    return outcomes, findings
