"""FT118 agents-disagree: a call one agent runtime of the project denies and another allows, checked on
the loaded config by `check.analysis.analyse` when the repository holds several agents' configs.

The probe calls are each runtime's own bash deny rules (opencode's `bash` deny patterns, Claude Code's
`Bash(...)` deny rules: one command each rule matches) and the other spellings FT116 writes of each
(`tools.spellings.other_spellings`). Each probe is decided by every agent runtime found
(`runtimes.across.answers_by_runtime`, each runtime's own decider over its own files); nothing runs. A
probe denied by one agent's rule and allowed by another is reported at the denying rule, naming the
agent that allows it and its deciding rule.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from forge_tools.report.codeinfo import CodeInfo

if TYPE_CHECKING:
    from forge_tools.check.context import CheckContext
    from forge_tools.report.findings import Finding

RULE = CodeInfo(
    code="FT118",
    name="agents-disagree",
    level="warning",
    summary=(
        "A call one agent of the repository denies and another allows: the same command is refused "
        "under one agent's config (opencode, Claude Code) and runs unasked under another's."
    ),
    help=(
        "Deny the command in every agent's config too (the message names the rule that allows it), or "
        "assert it with `check --expect` and `runtime: all`."
    ),
    why=(
        "A team that runs several coding agents on one repository keeps a permission file for each, "
        "each with its own matching rules. A deny written in one (opencode's `\"git push *\": "
        "\"deny\"`) protects nothing when another agent's rules allow the same call "
        "(Claude Code's `Bash(git *)`). `check` decides each agent's bash deny rules, and the other "
        "spellings of them FT116 tries, with every agent runtime whose config the repository holds."
    ),
    example=(
        '{"permission": {"bash": {"*": "allow", "git push *": "deny"}}}  // opencode.json, beside '
        '{"permissions": {"allow": ["Bash(git *)"]}}  // .claude/settings.json'
    ),
    fixed=(
        '{"permission": {"bash": {"*": "allow", "git push *": "deny"}}}  // opencode.json, beside '
        '{"permissions": {"allow": ["Bash(git *)"], "deny": ["Bash(git push *)"]}}'
    ),
    kind="context",
    check=f"{__name__}:check",
)

#: how many commands a finding's message lists (its `data["calls"]` has them all)
SHOWN = 4


def _opencode_denies(ctx: CheckContext, turn: Any) -> list[str]:
    from forge_tools.check.context import is_user_rule
    from forge_tools.tools.spellings import example_command

    out = []
    for rule in turn.ruleset:
        if rule.permission == "bash" and rule.action == "deny" and is_user_rule(rule):
            command = example_command(rule.pattern)
            if command:
                out.append(command)
    return out


def _claude_denies(ctx: CheckContext, turn: Any) -> list[str]:
    from forge_tools.runtimes.claude.rules import bash_pattern
    from forge_tools.runtimes.claude.settings import read_settings
    from forge_tools.runtimes.found import agent_cwd
    from forge_tools.tools.spellings import example_command

    out = []
    for rule in read_settings(agent_cwd(ctx.loaded)).loaded_rules:
        if rule.tool == "Bash" and rule.behavior == "deny" and rule.content:
            kind, text = bash_pattern(rule.content)
            command = text if kind == "prefix" else example_command(rule.content)
            if command and command.strip():
                out.append(command)
    return out


def _gemini_denies(ctx: CheckContext, turn: Any) -> list[str]:
    from forge_tools.runtimes.found import agent_cwd
    from forge_tools.runtimes.gemini.settings import read_settings

    out: list[str] = []
    for rule in read_settings(agent_cwd(ctx.loaded)).rules:
        if rule.tool_name == "run_shell_command" and rule.decision == "deny" and rule.command_prefix:
            out += [p for p in rule.command_prefix if p.strip() and p not in out]
    return out


#: runtime -> the commands its own bash deny rules name (a new agent runtime adds its reader here)
DENY_COMMANDS: dict[str, Callable[[Any, Any], list[str]]] = {
    "opencode": _opencode_denies,
    "claude": _claude_denies,
    "gemini": _gemini_denies,
}


def check(ctx: CheckContext) -> list[Finding]:
    from forge_tools.permission.agents import default_agent_name
    from forge_tools.report.findings import Finding
    from forge_tools.runtimes.across import answers_by_runtime, opencode_turn
    from forge_tools.runtimes.found import found_runtimes
    from forge_tools.tools.spellings import other_spellings

    found = [f for f in found_runtimes(ctx.loaded) if f.agent]
    if len(found) < 2 or not ctx.results:
        return []
    try:
        agent = default_agent_name(ctx.loaded, ctx.agents)
    except Exception:  # a bad default_agent is reported by its own finding
        agent = next(iter(ctx.results))
    result = ctx.results.get(agent) or next(iter(ctx.results.values()))
    turn = opencode_turn(ctx.loaded, result)
    probes: dict[str, None] = {}
    for f in found:
        for command in DENY_COMMANDS.get(f.name, lambda c, t: [])(ctx, turn):
            probes.setdefault(command)
            for form in other_spellings(command):
                probes.setdefault(form)
    names = [f.name for f in found]
    root = Path(ctx.loaded.project_root)
    groups: dict[tuple[Any, str, str], list[tuple[str, str]]] = {}
    labels: dict[str, str] = {f.name: f.label for f in found}
    for probe in probes:
        both = answers_by_runtime(ctx.loaded, result, "bash", {"command": probe}, names, load_code=False,
                                  gate=False, opencode_turn=turn)
        allowed = [e for e in both.entries if e.action == "allow"]
        if not allowed:
            continue
        for denier in (e for e in both.entries if e.action == "deny" and e.answer is not None):
            rule = denier.answer.decision.deciding_rule if denier.answer is not None else None
            if rule is None or rule.origin.kind != "file":
                continue
            for allower in allowed:
                key = (rule, denier.runtime.name, allower.runtime.name)
                groups.setdefault(key, []).append((probe, allower.words(root)))
    findings = []
    for (rule, denied_by, allowed_by), calls in groups.items():
        from forge_tools.runtimes.across import rule_words

        more = f" and {len(calls) - SHOWN} more" if len(calls) > SHOWN else ""
        reasons = {why for _, why in calls}
        if len(reasons) == 1:  # one rule allows them all: said once
            listed = ", ".join(f"`{c}`" for c, _ in calls[:SHOWN]) + f"{more} (by {reasons.pop()})"
            more = ""
        else:
            listed = "; ".join(f"`{c}` ({why})" for c, why in calls[:SHOWN])
        findings.append(Finding(
            RULE.code, RULE.level,
            f"{labels[denied_by]} denies by {rule_words(denied_by, rule, root)}, but "
            f"{labels[allowed_by]} allows the same call: {listed}{more}",
            RULE.help, rule.origin,
            data={"denied_by": denied_by, "allowed_by": allowed_by,
                  "calls": [{"command": c, "allowed_by_rule": why} for c, why in calls]}))
    return findings
