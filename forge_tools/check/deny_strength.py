"""FT116: a bash deny or ask rule that another spelling of the same command gets around.

For each such rule, the command it names is written the known other ways that run the same program
(a path-qualified name, a wrapper such as `command` or `env`, a nested `sh -c`/`bash -c`/`eval`,
quoting or a backslash in the name, `$(...)` as the name, an assignment before it, options before a
subcommand), and each spelling is decided by the check's runtime (opencode 1.18.33 for opencode's
files: `runtimes/opencode`; forge-tools' gate for forge's). Nothing is executed. A spelling the
runtime allows (it runs with nobody asked) is reported at the rule, with the command.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from forge_tools.check.context import is_user_rule
from forge_tools.report.findings import Finding
from forge_tools.tools.spellings import example_command, other_spellings

if TYPE_CHECKING:
    from forge_tools.check.context import CheckContext
    from forge_tools.rule import Rule
    from forge_tools.visibility.pipeline import PipelineResult

_HINT = ("make the bash rules an allow-list (`\"*\": \"deny\"` first, then allow only the commands "
         "meant), so a spelling nobody listed is denied")
_THROUGH_FORGE = ("; or run the agent's calls through forge-tools, whose gate resolves these spellings "
                  "(`forge-tools check --runtime forge` shows what it still lets through)")
#: how many commands a finding's message lists (its `data["forms"]` has them all)
SHOWN = 8


NOTE_GATE_NOT_ASKED = ("FT116 (other spellings of bash deny/ask rules) was not checked: this config is "
                       "forge-tools' own, whose gate resolves those spellings; `check --runtime forge` "
                       "decides each with the gate, `--runtime opencode` as opencode 1.18.33 would")


def _examined(rule: Rule) -> bool:
    """A user's bash deny or ask rule naming a plain program."""
    return (rule.permission == "bash" and rule.action != "allow" and is_user_rule(rule)
            and example_command(rule.pattern) is not None)


def deny_strength(ctx: CheckContext) -> list[Finding]:
    """FT116: the other spellings of a bash deny/ask rule's command that the runtime lets through."""
    chosen = ctx.runtime
    runtime = chosen.runtime
    if runtime.name in ("claude", "codex"):  # their rules are not opencode's (Codex: FT321-FT326)
        return []
    if runtime.name == "forge" and ctx.runtime_name is None:
        # the gate's answers need the bash tool loaded (its model built), which `check` keeps off its
        # start-up path; its lowering resolves these spellings by design, so it is asked only on request
        if any(_examined(r) for agent in ctx.enabled_agents for r in agent.ruleset):
            ctx.notes.append(NOTE_GATE_NOT_ASKED)
        return []
    from forge_tools.permission.calls import STRICTNESS  # the records of calls: only when deciding some

    root = Path(ctx.loaded.project_root)
    cwd = Path(ctx.loaded.cwd)
    through: dict[Rule, dict[str, tuple[str, list[str]]]] = {}  # rule -> command -> (action, agents)
    decided: dict[tuple[tuple[Rule, ...], str], str] = {}  # agents with the same rules decide alike

    def action_of(result: PipelineResult, rules: tuple[Rule, ...], command: str) -> str:
        key = (rules, command)
        if key not in decided:
            decided[key] = runtime.decide(result, "bash", {"command": command}, root, cwd).action
        return decided[key]

    for agent in ctx.enabled_agents:
        result = ctx.results.get(agent.name)
        if result is None:
            continue
        verdict = result.get("bash")
        if verdict is None or not verdict.visible:
            continue
        rules = tuple(result.ruleset)
        for rule in rules:
            command = example_command(rule.pattern) if _examined(rule) else None
            if command is None:
                continue
            if STRICTNESS[action_of(result, rules, command)] < STRICTNESS[rule.action]:
                continue  # a later rule already decides this command (other findings say so)
            for form in other_spellings(command):
                action = action_of(result, rules, form)
                if action == "allow":  # runs with nobody asked (an ask still meets a person)
                    seen = through.setdefault(rule, {}).setdefault(form, (action, []))
                    seen[1].append(agent.name)
    findings = []
    for rule, forms in through.items():
        agents = list(dict.fromkeys(a for _, names in forms.values() for a in names))
        listed = ", ".join(f"`{form}` ({action})" for form, (action, _) in list(forms.items())[:SHOWN])
        more = f" and {len(forms) - SHOWN} more" if len(forms) > SHOWN else ""
        program = rule.pattern.split()[0]
        who = f"agent {agents[0]}" if len(agents) == 1 else f"agents {', '.join(agents)}"
        findings.append(Finding(
            "FT116", "warning",
            f"bash rule {rule.pattern!r} {rule.action} is got around under {runtime.name} "
            f"{runtime.version} ({who}): these run {program} without matching the rule's text: "
            f"{listed}{more}",
            _HINT + ("" if runtime.name == "forge" else _THROUGH_FORGE),
            rule.origin,
            data={"runtime": chosen.to_json(), "agents": agents,
                  "forms": [{"command": f, "action": a, "agents": n} for f, (a, n) in forms.items()]}))
    return findings
