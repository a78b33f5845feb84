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
from forge_tools.permission.wildcard import wildcard_match
from forge_tools.report.findings import Finding
from forge_tools.tools.spellings import example_command, other_spellings

if TYPE_CHECKING:
    from forge_tools.check.context import CheckContext
    from forge_tools.permission.calls import PermissionRequest
    from forge_tools.rule import Rule
    from forge_tools.runtimes.base import Runtime
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


#: the permissions a runtime's decision of a bash call evaluates (opencode: `runtimes.opencode.decide`'s
#: requests); a runtime not listed may ask any (its redirects are `edit` requests), so all rules count
_ASKED: dict[str, tuple[str, ...]] = {"opencode": ("bash", "external_directory")}


def _asks(rule: Rule, names: tuple[str, ...]) -> bool:
    """Whether an evaluation of one of `names` can meet `rule` (as `permission.evaluate.rules_for`)."""
    return any(wildcard_match(name, rule.permission) for name in names)


def _examined(rule: Rule) -> bool:
    """A user's bash deny or ask rule naming a plain program."""
    return (rule.permission == "bash" and rule.action != "allow" and is_user_rule(rule)
            and example_command(rule.pattern) is not None)


class _Decider:
    """The runtime's answer for a bash command under a group's rules. For opencode the lowering (its
    permission requests, the same for every agent) is made once per command until `forget`, and each
    group's rules are asked through their index (`runtimes.opencode.decide.checks_for`); a group whose
    first answer was a refusal, and any other runtime, is asked in full (`Runtime.decide`)."""

    def __init__(self, runtime: Runtime, root: Path, cwd: Path) -> None:
        self.runtime, self.root, self.cwd = runtime, root, cwd
        self.decided: dict[tuple[int, str], str] = {}  # (group, command) -> action
        self.lowered: dict[str, list[PermissionRequest]] = {}
        self.full: dict[int, bool] = {}  # group -> asked in full

    def action(self, result: PipelineResult, group: int, command: str) -> str:
        key = (group, command)
        action = self.decided.get(key)
        if action is not None:
            return action
        args = {"command": command}
        if self.runtime.name != "opencode" or self.full.get(group, True):
            answer = self.runtime.decide(result, "bash", args, self.root, self.cwd)
            if group not in self.full:
                self.full[group] = self.runtime.name != "opencode" or answer.decision.refused is not None
            action = answer.action
        else:
            from forge_tools.permission.calls import CallDecision
            from forge_tools.runtimes.opencode.decide import checks_for, requests_for

            requests = self.lowered.get(command)
            if requests is None:
                requests = self.lowered[command] = requests_for("bash", args, str(self.root), str(self.cwd))
            action = CallDecision(checks_for(requests, result.ruleset), args).action
        self.decided[key] = action
        return action

    def forget(self) -> None:
        """Drop the memos (one rule's spellings are not another's: memory stays bounded)."""
        self.decided.clear()
        self.lowered.clear()


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
    # Agents whose rules for the permissions a bash call asks are equal decide alike: each distinct
    # such ruleset is hashed once into a group (a small number) and examined once. Rules are taken one
    # at a time across the groups, so the spellings of one rule are lowered once (`_Decider`), and a
    # decision is the group's index asked about each lowered pattern: O(rules x spellings x groups).
    asked = _ASKED.get(runtime.name)
    groups: dict[tuple[tuple[Rule, ...], tuple[object, ...]], int] = {}
    members: list[PipelineResult] = []  # group -> the first agent's result (it decides for all)
    position: list[dict[Rule, int]] = []  # group -> its examined rules and their places
    group_of: dict[str, int] = {}
    for agent in ctx.enabled_agents:
        result = ctx.results.get(agent.name)
        if result is None:
            continue
        verdict = result.get("bash")
        if verdict is None or not verdict.visible:
            continue
        rules = tuple(result.ruleset)
        places = {rule: i for i, rule in enumerate(rules) if _examined(rule)}
        # what decides is each relevant rule's text and action (a builtin rule's origin differs per
        # agent); the examined rules themselves are kept by identity: findings name their origins
        relevant = rules if asked is None else tuple(
            (r.permission, r.pattern, r.action) for r in rules if _asks(r, asked))
        group = group_of[agent.name] = groups.setdefault((tuple(places), relevant), len(groups))
        if group == len(members):
            members.append(result)
            position.append(places)
    examined: dict[Rule, list[int]] = {}  # each examined rule (first seen first) -> its groups
    for group, places in enumerate(position):
        for rule in places:
            examined.setdefault(rule, []).append(group)
    decider = _Decider(runtime, root, cwd)
    # group -> (place, rule, the rule's spellings, which of them the group allows): one small record
    # per (rule, group), not one per spelling let through
    found: list[list[tuple[int, Rule, list[str], tuple[int, ...]]]] = [[] for _ in members]
    for rule, in_groups in examined.items():
        command = example_command(rule.pattern)
        assert command is not None
        spellings = other_spellings(command)
        for group in in_groups:
            result = members[group]
            if STRICTNESS[decider.action(result, group, command)] < STRICTNESS[rule.action]:
                continue  # a later rule already decides this command (other findings say so)
            # a spelling that is allowed runs with nobody asked (an ask still meets a person)
            allowed = tuple(i for i, form in enumerate(spellings)
                            if decider.action(result, group, form) == "allow")
            if allowed:
                found[group].append((position[group][rule], rule, spellings, allowed))
        decider.forget()
    for let_through in found:
        let_through.sort(key=lambda item: item[0])  # the group's ruleset order
    through: dict[Rule, dict[str, tuple[str, list[str]]]] = {}  # rule -> command -> (action, agents)
    for agent in ctx.enabled_agents:
        if agent.name not in group_of:
            continue
        for _, rule, spellings, allowed in found[group_of[agent.name]]:
            forms = through.setdefault(rule, {})
            for i in allowed:
                forms.setdefault(spellings[i], ("allow", []))[1].append(agent.name)
    del found, examined, decider  # each finding is made as its rule's record is let go (below)
    findings = []
    # records shared between findings (read, never changed): the runtime's JSON and each distinct list
    # of agents, so a large config's thousands of findings do not each hold copies
    runtime_json = chosen.to_json()
    lists: dict[tuple[str, ...], list[str]] = {}
    for rule in list(through):
        forms = through.pop(rule)
        forms = {form: (action, lists.setdefault(tuple(names), names))
                 for form, (action, names) in forms.items()}
        agents = list(dict.fromkeys(a for _, names in forms.values() for a in names))
        agents = lists.setdefault(tuple(agents), agents)
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
            data={"runtime": runtime_json, "agents": agents,
                  "forms": [{"command": f, "action": a, "agents": n} for f, (a, n) in forms.items()]}))
    return findings
