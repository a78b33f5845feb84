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
from typing import TYPE_CHECKING, Any

from forge_tools.check.context import is_user_rule
from forge_tools.permission.wildcard import wildcard_match
from forge_tools.report.findings import Finding, MadeWhenRead
from forge_tools.tools.spellings import example_command, other_spellings

if TYPE_CHECKING:
    from collections.abc import Sequence

    from forge_tools.check.context import CheckContext
    from forge_tools.permission.evaluate import RulesetLike
    from forge_tools.rule import Rule
    from forge_tools.runtimes.base import Runtime
    from forge_tools.runtimes.opencode.shell import OpencodeCommand
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
    """The runtime's answers for a bash command under each group's rules. A group is asked in full
    (`Runtime.decide`) for its first command, and always under a runtime other than opencode or when
    that first answer was a refusal. Otherwise the command's permission requests are made once for all
    groups (opencode's lowering is every agent's), each pattern is put to the rules every group ends
    with (indexed once), and only a pattern none of those match is put to each group's own rules
    before them: last match wins, so those earlier rules cannot change what a later one decides."""

    def __init__(self, runtime: Runtime, root: Path, cwd: Path, members: list[PipelineResult],
                 asked: tuple[str, ...] | None) -> None:
        self.runtime, self.root, self.cwd, self.members = runtime, root, cwd, members
        self.worktree, self.directory = str(root), str(cwd)  # opencode's names for them
        self.full: list[bool | None] = [None] * len(members)  # group -> asked in full (None: not yet)
        self.shared: RulesetLike = ()
        self.own: list[RulesetLike] = []
        #: (a slotted lowering, a group) -> the group's action for every spelling of it, or None
        self.by_shape: dict[tuple[tuple[tuple[str, int], ...], int], str | None] = {}
        if runtime.name == "opencode" and asked is not None:
            from forge_tools.permission.calls import strictest
            from forge_tools.permission.evaluate import evaluate, indexed, last_rule_for_prefix
            from forge_tools.runtimes.opencode.decide import bash_requests

            # bound once: an import statement costs about a microsecond, and this runs per spelling
            self.strictest, self.bash_requests, self.evaluate = strictest, bash_requests, evaluate
            self.last_for_prefix = last_rule_for_prefix

            relevant = [[r for r in result.ruleset if _asks(r, asked)] for result in members]
            common = 0  # the length of the rules every group ends with (text and action alike)
            shortest = min((len(rules) for rules in relevant), default=0)
            while common < shortest and len({_said(rules[-1 - common]) for rules in relevant}) == 1:
                common += 1
            if relevant:
                self.shared = indexed(relevant[0][len(relevant[0]) - common:])
            self.own = [indexed(rules[:len(rules) - common]) for rules in relevant]

    def actions(self, command: str, groups: list[int],
                lowered: Sequence[OpencodeCommand] | None = None) -> list[str]:
        """Each group's action for `command`, in the order of `groups` (`lowered`: opencode's lowering
        of it, when known)."""
        full = self.full
        if all(full[group] is False for group in groups):  # the usual case: one set of requests for all
            return self._lowered(command, groups, lowered)
        args = {"command": command}
        found: dict[int, str] = {}
        rest = []
        for group in groups:
            if full[group] is False:
                rest.append(group)
                continue
            answer = self.runtime.decide(self.members[group], "bash", args, self.root, self.cwd)
            if full[group] is None:
                full[group] = not self.own or answer.decision.refused is not None
            found[group] = answer.action
        if rest:
            found.update(zip(rest, self._lowered(command, rest, lowered), strict=True))
        return [found[group] for group in groups]

    def shaped_actions(self, filled: tuple[tuple[str, int], ...], groups: list[int]) -> list[str] | None:
        """Each group's action for every spelling whose lowering is `filled` filled in
        (`shell.shaped`), whatever its words, or None when a group's answer hangs on the words: then
        each spelling is decided as written. Found once per slotted lowering and group."""
        if any(self.full[group] is not False for group in groups):
            return None
        found = []
        for group in groups:
            key = (filled, group)
            if key not in self.by_shape:
                self.by_shape[key] = self._shape_action(filled, group)
            action = self.by_shape[key]
            if action is None:
                return None
            found.append(action)
        return found

    def _shape_action(self, filled: tuple[tuple[str, int], ...], group: int) -> str | None:
        """opencode's decision (`_lowered`) of a slotted lowering's spellings, when the words cannot
        change it: no command path-checks an argument (whose folder may lie outside the project), and
        each command's text is a constant, or a constant start followed by the words whose every
        continuation the rules decide alike (`permission.evaluate.last_rule_for_prefix`)."""
        from forge_tools.permission.evaluate import DEFAULT_ACTION

        actions = []
        for joined, words in filled:
            parts = joined.split("\0")
            if parts[words + 1:]:
                return None
            text = parts[0]
            if not text:
                continue  # a command opencode checks no pattern for
            cut = text.find("{")
            if cut == 0 or "}" in text[:cut if cut > 0 else len(text)]:
                return None  # a word starts the text, or a brace of the line itself
            if cut < 0:
                actions.append(self.evaluate("bash", text, self.own[group], self.shared).action)
                continue
            rule = self.last_for_prefix("bash", text[:cut], self.own[group], self.shared)
            if isinstance(rule, str):  # DEPENDS
                return None
            actions.append(rule.action if rule is not None else DEFAULT_ACTION)
        return self.strictest(actions)

    def _lowered(self, command: str, groups: list[int], lowered: Sequence[OpencodeCommand] | None
                 ) -> list[str]:
        """opencode's decision (`runtimes.opencode.decide.decide`: each request's patterns evaluated,
        the strictest action) made of the same parts, without its records (a spelling's answer is
        all that is kept)."""
        evaluate, strictest = self.evaluate, self.strictest
        checked = [(request.permission, pattern)
                   for request in self.bash_requests(command, None, self.worktree, self.directory, lowered)
                   for pattern in request.patterns]
        shared = [evaluate(permission, pattern, self.shared) for permission, pattern in checked]
        if all(decision.rule is not None for decision in shared):
            return [strictest(decision.action for decision in shared)] * len(groups)
        return [strictest(evaluate(permission, pattern, self.own[group], self.shared).action
                          for permission, pattern in checked) for group in groups]


def _said(rule: Rule) -> tuple[str, str, str]:
    """What of a rule decides a call: its text and action (a builtin rule's origin differs per agent)."""
    return (rule.permission, rule.pattern, rule.action)


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
    # at a time across the groups, so the spellings of one rule are lowered once (by their shape when
    # the rule's words are plain: `shell.lower_shaped`), and each lowered pattern is put once to the
    # rules all groups end with, and only when none of those match to each group's own (`_Decider`):
    # O(rules x spellings), and x groups only for the patterns the shared rules leave undecided.
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
    decider = _Decider(runtime, root, cwd, members, asked)
    # group -> (place, rule, which of its spellings the group allows): one small record per (rule,
    # group), not one per spelling let through (the spellings are made again for the finding)
    found: list[list[tuple[int, Rule, tuple[int, ...]]]] = [[] for _ in members]
    lowering = runtime.name == "opencode"
    if lowering:
        from forge_tools.runtimes.opencode.shell import fill, lower, shape_words, shaped
    for rule, in_groups in examined.items():
        command = example_command(rule.pattern)
        assert command is not None
        spellings = other_spellings(command)
        lowered = shape = None
        if lowering:
            # the command is lowered in full once; its spellings, when its words are plain, by their
            # shape (`shell.lower_shaped`: one lowering serves every rule of as many words)
            lowered = lower(command)
            shape = shape_words(command, lowered)
        plain = decider.actions(command, in_groups, lowered)
        # a later rule that already decides this command more weakly: other findings say so
        live = [g for g, action in zip(in_groups, plain, strict=True)
                if STRICTNESS[action] >= STRICTNESS[rule.action]]
        if not live:
            continue
        allowed: list[list[int]] = [[] for _ in live]
        for i, form in enumerate(spellings):
            # a spelling whose slotted lowering the rules decide alike for any words is not lowered
            # or decided one by one (`_Decider.shaped_actions`)
            filled = shaped(form, shape) if shape is not None else None
            answers = decider.shaped_actions(filled, live) if filled is not None else None
            if answers is None:  # lowered as `shell.lower_shaped` does, from the slotted lowering made
                lowered_form = None
                if shape is not None:
                    lowered_form = lower(form) if filled is None else fill(filled, shape)
                answers = decider.actions(form, live, lowered_form)
            for let, answer in zip(allowed, answers, strict=True):
                if answer == "allow":  # runs with nobody asked (an ask still meets a person)
                    let.append(i)
        for group, let in zip(live, allowed, strict=True):
            if let:
                found[group].append((position[group][rule], rule, tuple(let)))
    del examined, decider
    # each rule some agent lets a spelling of through, in the order of the agents and of each one's
    # ruleset, with what each group lets through; each finding is made as its rule's record is let go
    by_rule: dict[Rule, dict[int, tuple[int, ...]]] = {}
    agents_in_order: list[tuple[str, int]] = []
    for agent in ctx.enabled_agents:
        if agent.name not in group_of:
            continue
        member = group_of[agent.name]
        agents_in_order.append((agent.name, member))
        let_through = found[member]
        let_through.sort(key=lambda item: item[0])  # the group's ruleset order (its later agents: sorted)
        for _, rule, indices in let_through:
            by_rule.setdefault(rule, {})[member] = indices
    del found
    groups_in_order = list(dict.fromkeys(group for _, group in agents_in_order))
    findings = []
    # records shared between findings (read, never changed): the runtime's JSON and each distinct list
    # of agents, so a large config's thousands of findings do not each hold copies
    runtime_json = chosen.to_json()
    lists: dict[tuple[str, ...], list[str]] = {}
    names_of: dict[tuple[int, ...], list[str]] = {}  # the groups a spelling runs under -> their agents

    def names(groups: tuple[int, ...]) -> list[str]:
        """The agents of `groups` in the agents' order, each once per time its group is listed."""
        found = names_of.get(groups)
        if found is None:
            found = [name for name, group in agents_in_order for _ in range(groups.count(group))]
            found = names_of[groups] = lists.setdefault(tuple(found), found)
        return found

    for rule in list(by_rule):
        of_groups = by_rule.pop(rule)
        command = example_command(rule.pattern)
        assert command is not None
        spellings = other_spellings(command)
        forms: dict[str, tuple[int, list[int]]] = {}  # spelling -> (its index, the groups it runs under)
        for group in groups_in_order:  # the order the agents first let each through
            for i in of_groups.get(group, ()):
                forms.setdefault(spellings[i], (i, []))[1].append(group)
        through = [(i, names(tuple(groups))) for i, groups in forms.values()]
        agents = list(dict.fromkeys(a for _, names in through for a in names))
        agents = lists.setdefault(tuple(agents), agents)
        listed = ", ".join(f"`{form}` (allow)" for form in list(forms)[:SHOWN])
        more = f" and {len(forms) - SHOWN} more" if len(forms) > SHOWN else ""
        program = rule.pattern.split()[0]
        who = f"agent {agents[0]}" if len(agents) == 1 else f"agents {', '.join(agents)}"
        findings.append(Finding(
            "FT116", "warning",
            f"bash rule {rule.pattern!r} {rule.action} is got around under {runtime.name} "
            f"{runtime.version} ({who}): these run {program} without matching the rule's text: "
            f"{listed}{more}",
            _HINT + ("" if runtime.name == "forge" else _THROUGH_FORGE),
            rule.origin, data=_LetThrough(runtime_json, agents, command, through)))
    return findings


class _LetThrough(MadeWhenRead):
    """FT116's data, `{"runtime", "agents", "forms": [{"command", "action", "agents"}, ...]}`, held as
    the rule's command and the indices of its spellings let through (with the agents of each): the
    spellings are made again when the data is read."""

    __slots__ = ("agents", "command", "indices", "names", "runtime")
    keys_made = ("runtime", "agents", "forms")

    def __init__(self, runtime: dict[str, Any], agents: list[str], command: str,
                 through: list[tuple[int, list[str]]]) -> None:
        self.runtime, self.agents, self.command = runtime, agents, command
        self.indices = bytes(i for i, _ in through)  # a rule has fewer than 256 spellings
        self.names = tuple(names for _, names in through)

    def made(self) -> dict[str, Any]:
        spellings = other_spellings(self.command)
        return {"runtime": self.runtime, "agents": self.agents,
                "forms": [{"command": spellings[i], "action": "allow", "agents": names}
                          for i, names in zip(self.indices, self.names, strict=True)]}
