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
from forge_tools.tools.spellings import PIECES, example_command, other_spellings, spelling_templates

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from forge_tools.check.context import CheckContext
    from forge_tools.permission.evaluate import RulesetLike
    from forge_tools.rule import Action, Rule
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

    #: spellings of a family are decided at once (`family`); off, each is decided as written
    at_once = True

    def __init__(self, runtime: Runtime, root: Path, cwd: Path, members: list[PipelineResult],
                 asked: tuple[str, ...] | None, relevant: list[list[Rule]]) -> None:
        self.runtime, self.root, self.cwd, self.members = runtime, root, cwd, members
        self.worktree, self.directory = str(root), str(cwd)  # opencode's names for them
        self.full: list[bool | None] = [None] * len(members)  # group -> asked in full (None: not yet)
        self.shared: RulesetLike = ()
        self.own: list[RulesetLike] = []
        #: (a slotted lowering, groups) -> each group's answer for every spelling of it, or None
        self.by_shape: dict[tuple[tuple[tuple[str, int], ...], tuple[int, ...]], list[_Answer | None]] = {}
        self.interned: dict[_Answer, _Answer] = {}
        #: (spelling templates, slot values, groups) -> what the groups answer for that family
        self.families: dict[tuple[tuple[str, ...], tuple[str, ...], tuple[int, ...]], _Family] = {}
        if runtime.name == "opencode" and asked is not None:
            from forge_tools.permission.calls import strictest
            from forge_tools.permission.evaluate import evaluate, indexed, last_rule_for_prefix
            from forge_tools.runtimes.opencode.decide import bash_requests

            # bound once: an import statement costs about a microsecond, and this runs per spelling
            self.strictest, self.bash_requests, self.evaluate = strictest, bash_requests, evaluate
            self.last_for_prefix = last_rule_for_prefix

            common = 0  # the length of the rules every group ends with (text and action alike)
            shortest = min((len(rules) for rules in relevant), default=0)
            while common < shortest and len({_said(rules[-1 - common]) for rules in relevant}) == 1:
                common += 1
            if relevant:
                self.shared = indexed(relevant[0][len(relevant[0]) - common:])
            self.own = [indexed(rules[:len(rules) - common]) for rules in relevant]

    def actions(self, command: str, groups: list[int],
                lowered: Sequence[OpencodeCommand] | None = None) -> list[Action]:
        """Each group's action for `command`, in the order of `groups` (`lowered`: opencode's lowering
        of it, when known)."""
        full = self.full
        if all(full[group] is False for group in groups):  # the usual case: one set of requests for all
            return self._lowered(command, groups, lowered)
        args = {"command": command}
        found: dict[int, Action] = {}
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

    def family(self, templates: tuple[str, ...], values: tuple[str, ...], words: int,
               groups: tuple[int, ...]) -> _Family | None:
        """What `groups` answer for the spellings `templates` of every command slotted as `values`
        (`shell.slot_values`: the shape's slots and the words left as written), found once for them
        all; None when each spelling is to be decided as written (not opencode's lowering, or a
        group asked in full)."""
        if not self.at_once or any(self.full[group] is not False for group in groups):
            return None
        key = (templates, values, groups)
        found = self.families.get(key)
        if found is None:
            found = self.families[key] = _Family(self, templates, values, words, groups)
        return found

    def answers(self, filled: tuple[tuple[str, int], ...], groups: tuple[int, ...]
                ) -> list[_Answer | None]:
        """Each group's answer for every spelling whose slotted lowering is `filled`: the strictest
        action its constant texts and path checks get, the texts (`str.format` strings of the words)
        to be put to the rules spelling by spelling, and the slots whose word must not be `..` (a
        path-checked word is inside the project unless it is); None when the answer hangs on the words
        otherwise. Found once per slotted lowering and groups; equal answers are one object."""
        key = (filled, groups)
        found = self.by_shape.get(key)
        if found is None:
            reading = _reading(filled)
            if reading is None:
                found = [None] * len(groups)
            elif not (reading[0] or reading[1] or reading[4]):  # nothing the groups' rules decide
                one = self.interned.setdefault(("allow", reading[2], reading[3]),
                                               ("allow", reading[2], reading[3]))
                found = [one] * len(groups)
            else:
                found = []
                for group in groups:
                    answer = self._answer(reading, group)
                    found.append(answer if answer is None else self.interned.setdefault(answer, answer))
            self.by_shape[key] = found
        return found

    def _answer(self, reading: _Reading, group: int) -> _Answer | None:
        from forge_tools.permission.evaluate import DEFAULT_ACTION
        from forge_tools.runtimes.opencode.shell import OpencodeCommand

        constant_texts, prefixes, texts, dots, constant = reading
        actions = [self.evaluate("bash", text, self.own[group], self.shared).action
                   for text in constant_texts]
        for prefix, text in prefixes:
            rule = self.last_for_prefix("bash", prefix, self.own[group], self.shared)
            if isinstance(rule, str):  # DEPENDS: the words decide
                texts = (*texts, text)
            else:
                actions.append(rule.action if rule is not None else DEFAULT_ACTION)
        if constant:
            requests = self.bash_requests("", None, self.worktree, self.directory,
                                          [OpencodeCommand("", (), constant)])
            actions += [self.evaluate(request.permission, pattern, self.own[group], self.shared).action
                        for request in requests for pattern in request.patterns]
        return self.strictest(actions), tuple(dict.fromkeys(texts)), dots

    def spelling_actions(self, form: str, filled: tuple[tuple[str, int], ...] | None,
                         answers: Sequence[_Answer | None] | None, words: Sequence[str],
                         groups: Sequence[int], which: Sequence[int]) -> list[Action]:
        """The actions of groups `which` (positions in `groups`) for one spelling `form` of the words
        `words`, from its slotted lowering's answers (`answer`, one per group): a constant answer as
        it is, a text of the words put to the rules, and what no answer covers decided as written."""
        found: list[Action | None] = []
        rest: list[int] = []
        known: dict[int, Action] = {}  # id of an answer -> its action, when the shared rules decide it
        for k in which:
            answer = answers[k] if answers is not None else None
            if answer is None or (answer[2] and any(words[slot] == ".." for slot in answer[2])):
                rest.append(len(found))
                found.append(None)
                continue
            fixed, texts, _ = answer
            if not texts:
                found.append(fixed)
                continue
            action = known.get(id(answer))
            if action is None:
                actions: list[Action] = [fixed]
                alike = True  # every text decided by the rules all groups end with
                for text in texts:
                    text = text.format(*words)
                    decision = self.evaluate("bash", text, self.shared)
                    if decision.rule is None:
                        alike = False
                        decision = self.evaluate("bash", text, self.own[groups[k]])
                    actions.append(decision.action)
                action = self.strictest(actions)
                if alike:
                    known[id(answer)] = action
            found.append(action)
        if rest:
            from forge_tools.runtimes.opencode.shell import fill

            lowered = fill(filled, words) if filled is not None else None
            decided = self._lowered(form, [groups[which[j]] for j in rest], lowered)
            for j, action in zip(rest, decided, strict=True):
                found[j] = action
        return found  # type: ignore[return-value]

    def _lowered(self, command: str, groups: list[int], lowered: Sequence[OpencodeCommand] | None
                 ) -> list[Action]:
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


#: a group's answer for a slotted lowering: (the strictest action of its constant parts, the texts to
#: put to the rules with the words filled in, the slots whose word must not be `..`)
_Answer = tuple["Action", tuple[str, ...], tuple[int, ...]]
#: what of a slotted lowering the rules decide, whatever the group: (its constant texts, its texts of
#: a constant start and the words with that start, its texts that start with a word, the slots
#: path-checked as arguments, the arguments path-checked as written)
_Reading = tuple[tuple[str, ...], tuple[tuple[str, str], ...], tuple[str, ...], tuple[int, ...],
                 tuple[str, ...]]


def _reading(filled: tuple[tuple[str, int], ...]) -> _Reading | None:
    """The parts of a slotted lowering (`shell.slotted_lowering`) that `_Decider.answers` decides, or
    None when the words may change more than a text (a brace of the line itself, a path-checked
    argument that is part word, part text)."""
    constant_texts: list[str] = []
    prefixes: list[tuple[str, str]] = []
    texts: list[str] = []
    dots: list[int] = []
    constant: list[str] = []  # path-checked arguments written as they are
    for joined, words in filled:
        parts = joined.split("\0")
        for arg in parts[words + 1:]:
            if arg[:1] == "{" and arg[-1:] == "}" and arg[1:-1].isdigit():
                dots.append(int(arg[1:-1]))  # a word of its own: inside the project unless `..`
            elif "{" in arg or "}" in arg:
                return None
            else:
                constant.append(arg)
        text = parts[0]
        if not text:
            continue  # a command opencode checks no pattern for
        cut = text.find("{")
        if "}" in text[:cut if cut >= 0 else len(text)]:
            return None  # a brace of the line itself before the first word
        if cut < 0:
            constant_texts.append(text)
        elif cut == 0:
            texts.append(text)
        else:
            prefixes.append((text[:cut], text))
    return tuple(constant_texts), tuple(prefixes), tuple(texts), tuple(dots), tuple(constant)


class _Family:
    """What the groups answer for the spellings (templates) of every command slotted alike: the
    spellings each group allows whatever the words (`fixed`, positions in the templates), and the
    rest, to be finished per command (`work`: a template, its slotted lowering and each group's
    answer, or None for both when the template holds the program's first character and the rest,
    whose slotted line is each program's own; `written`: the templates that cut the last word in two,
    decided as written)."""

    __slots__ = ("fixed", "plain", "work", "written")

    def __init__(self, decider: _Decider, templates: tuple[str, ...], values: tuple[str, ...],
                 count: int, groups: tuple[int, ...]) -> None:
        from forge_tools.runtimes.opencode.shell import slotted_lowering

        cut = tuple(f"{{{count + k}}}" for k in range(PIECES))  # the pieces cut from the words
        filled = slotted_lowering(" ".join(values))  # the command itself (its shape's own line)
        self.plain = (filled, None if filled is None else decider.answers(filled, groups))
        fixed: list[list[int]] = [[] for _ in groups]
        self.work: list[tuple[int, str, tuple[tuple[str, int], ...] | None,
                              list[_Answer | None] | None]] = []
        self.written: list[tuple[int, str]] = []  # cut from the last word: its line is each command's
        for i, template in enumerate(templates):
            if cut[2] in template or cut[3] in template:
                self.written.append((i, template))
                continue
            if cut[0] in template or cut[1] in template:  # the program's pieces: one line per program
                self.work.append((i, template, None, None))
                continue
            filled = slotted_lowering(template.format(*values, *[""] * PIECES))
            answers = None if filled is None else decider.answers(filled, groups)
            if answers is not None and all(a is not None and not a[1] and not a[2] for a in answers):
                for let, answer in zip(fixed, answers, strict=True):
                    if answer[0] == "allow":  # type: ignore[index]
                        let.append(i)
                continue
            self.work.append((i, template, filled, answers))
        self.fixed = [tuple(let) for let in fixed]


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
    # at a time across the groups, so the spellings of one rule are lowered once (when the rule's words
    # are plain, by their family: `_Decider.family`, what each spelling template's slotted lowering
    # gets, found once for every command of that shape), and each lowered pattern is put once to the
    # rules all groups end with, and only when none of those match to each group's own (`_Decider`):
    # O(rules x spellings), and x groups only for the patterns the shared rules leave undecided.
    asked = _ASKED.get(runtime.name)
    asks: dict[str, bool] = {}  # a permission name -> whether a bash call's evaluations can meet it
    chosen_rules: dict[int, bool] = {}  # id of a rule (alive while the results are) -> examined
    groups: dict[tuple[tuple[Rule, ...], tuple[object, ...]], int] = {}
    kept: list[list[Rule]] = []  # group -> the rules a bash call's evaluations can meet
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
        places = {}
        for i, rule in enumerate(rules):
            examined_rule = chosen_rules.get(id(rule))
            if examined_rule is None:
                examined_rule = chosen_rules[id(rule)] = _examined(rule)
            if examined_rule:
                places[rule] = i
        meets = rules
        if asked is not None:
            for name in {r.permission for r in rules}.difference(asks):
                asks[name] = any(wildcard_match(one, name) for one in asked)
            meets = tuple(r for r in rules if asks[r.permission])
        # what decides is each relevant rule's text and action (a builtin rule's origin differs per
        # agent); the examined rules themselves are kept by identity: findings name their origins
        relevant = rules if asked is None else tuple(map(_said, meets))
        group = group_of[agent.name] = groups.setdefault((tuple(places), relevant), len(groups))
        if group == len(members):
            members.append(result)
            position.append(places)
            kept.append(list(meets))
    examined: dict[Rule, list[int]] = {}  # each examined rule (first seen first) -> its groups
    for group, places in enumerate(position):
        for rule in places:
            examined.setdefault(rule, []).append(group)
    decider = _Decider(runtime, root, cwd, members, asked, kept)
    # group -> (place, rule, which of its spellings the group allows): one small record per (rule,
    # group), not one per spelling let through (the spellings are made again for the finding)
    found: list[list[tuple[int, Rule, tuple[int, ...]]]] = [[] for _ in members]
    # a rule let through -> its command, its spellings' templates and their parts
    spelt: dict[Rule, tuple[str, tuple[str, ...], tuple[str, ...]]] = {}
    lowering = runtime.name == "opencode"
    if lowering:
        from forge_tools.runtimes.opencode.shell import (
            fill,
            lower,
            shape_words,
            slot_values,
            slotted_lowering,
        )
    for rule, in_groups in examined.items():
        command = example_command(rule.pattern)
        assert command is not None
        templates, parts = spelling_templates(command)
        count = len(parts) - PIECES  # the words, then the pieces cut from them
        words = parts[:count]
        lowered = shape = values = family = None
        in_tuple = tuple(in_groups)
        if lowering:
            # when the command's words are plain, it and its spellings are lowered by their slotted
            # lines (`shell.slot_values`: one lowering serves every command of that shape)
            shape = shape_words(command)
            if shape is not None:
                values = slot_values(shape, words)
                family = decider.family(templates, values, count, in_tuple)
            if family is None:
                lowered = lower(command)
        every = range(len(in_groups))
        if family is not None:
            plain = decider.spelling_actions(command, *family.plain, words, in_groups, every)
        else:
            plain = decider.actions(command, in_groups, lowered)
        # a later rule that already decides this command more weakly: other findings say so
        live = [k for k, action in zip(every, plain, strict=True)
                if STRICTNESS[action] >= STRICTNESS[rule.action]]
        if not live:
            continue
        lets: list[tuple[int, ...]]
        if family is not None:
            # the spellings allowed whatever the words are the family's; the rest are finished here
            extra: list[list[int]] = [[] for _ in live]
            for i, template, filled, answers in family.work:
                if answers is None and filled is None:  # its slotted line holds pieces of the words
                    filled = slotted_lowering(template.format(*values, *parts[count:]))  # type: ignore[misc]
                    if filled is not None:
                        answers = decider.answers(filled, in_tuple)
                actions = decider.spelling_actions(template.format(*parts), filled, answers, words,
                                                   in_groups, live)
                for let, action in zip(extra, actions, strict=True):
                    if action == "allow":  # runs with nobody asked (an ask still meets a person)
                        let.append(i)
            if family.written:  # decided as written: a slotted line would serve this command only
                groups_live = [in_groups[k] for k in live]
                for i, template in family.written:
                    for let, action in zip(extra, decider._lowered(template.format(*parts), groups_live,
                                                                   None), strict=True):
                        if action == "allow":
                            let.append(i)
            lets = [tuple(sorted(family.fixed[k] + tuple(more))) if more else family.fixed[k]
                           for k, more in zip(live, extra, strict=True)]
        else:
            groups_live = [in_groups[k] for k in live]
            allowed: list[list[int]] = [[] for _ in live]
            for i, template in enumerate(templates):
                form = template.format(*parts)
                lowered_form = None
                if values is not None:  # lowered from its slotted line, as a family's spellings are
                    filled = slotted_lowering(template.format(*values, *parts[count:]))
                    lowered_form = fill(filled, words) if filled is not None else lower(form)
                for let, answer in zip(allowed, decider.actions(form, groups_live, lowered_form),
                                       strict=True):
                    if answer == "allow":
                        let.append(i)
            lets = [tuple(let) for let in allowed]
        for k, spellings_let in zip(live, lets, strict=True):
            if spellings_let:
                group = in_groups[k]
                found[group].append((position[group][rule], rule, spellings_let))
                spelt[rule] = (command, templates, parts)
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

    # what the groups let through -> the spellings in the order the agents first let each through,
    # with the agents of each, and all of those agents (rules let through alike share them)
    orders: dict[tuple[tuple[int, ...] | None, ...], tuple[bytes, tuple[list[str], ...], list[str]]] = {}
    for rule in list(by_rule):
        of_groups = by_rule.pop(rule)
        command, templates, parts = spelt.pop(rule)
        key = tuple(of_groups.get(group) for group in groups_in_order)
        order = orders.get(key)
        if order is None:
            order = orders[key] = _through(of_groups, groups_in_order, names, int)[0]
        let_indices, of_names, agents = order
        shown = [templates[i].format(*parts) for i in let_indices]
        if len(set(shown)) < len(shown):  # two spellings of one text: listed once, with both's agents
            text_of = dict(zip(let_indices, shown, strict=True))
            (let_indices, of_names, agents), shown = _through(of_groups, groups_in_order, names,
                                                              text_of.__getitem__)
        agents = lists.setdefault(tuple(agents), agents)
        listed = ", ".join(f"`{form}` (allow)" for form in shown[:SHOWN])
        more = f" and {len(shown) - SHOWN} more" if len(shown) > SHOWN else ""
        program = rule.pattern.split()[0]
        who = f"agent {agents[0]}" if len(agents) == 1 else f"agents {', '.join(agents)}"
        findings.append(Finding(
            "FT116", "warning",
            f"bash rule {rule.pattern!r} {rule.action} is got around under {runtime.name} "
            f"{runtime.version} ({who}): these run {program} without matching the rule's text: "
            f"{listed}{more}",
            _HINT + ("" if runtime.name == "forge" else _THROUGH_FORGE),
            rule.origin, data=_LetThrough(runtime_json, agents, command, let_indices, of_names)))
    return findings


def _through(of_groups: dict[int, tuple[int, ...]], groups_in_order: list[int],
             names: Callable[[tuple[int, ...]], list[str]], key_of: Callable[[int], Any]
             ) -> tuple[tuple[bytes, tuple[list[str], ...], list[str]], list[Any]]:
    """The spellings a rule's groups let through (`of_groups`: a group -> the indices), one per
    `key_of` of its index, in the order the agents first let each through: `_order` of them (the
    agents of each from `names`), and their keys."""
    by_key: dict[Any, tuple[int, list[int]]] = {}  # a key -> (its first index, the groups it runs under)
    for group in groups_in_order:
        for i in of_groups.get(group, ()):
            by_key.setdefault(key_of(i), (i, []))[1].append(group)
    return _order([(i, names(tuple(groups))) for i, groups in by_key.values()]), list(by_key)


def _order(through: list[tuple[int, list[str]]]) -> tuple[bytes, tuple[list[str], ...], list[str]]:
    """The spellings let through (their indices: a rule has fewer than 256), the agents of each, and
    all of those agents in order."""
    agents = list(dict.fromkeys(a for _, names in through for a in names))
    return bytes(i for i, _ in through), tuple(names for _, names in through), agents


class _LetThrough(MadeWhenRead):
    """FT116's data, `{"runtime", "agents", "forms": [{"command", "action", "agents"}, ...]}`, held as
    the rule's command and the indices of its spellings let through (with the agents of each): the
    spellings are made again when the data is read."""

    __slots__ = ("agents", "command", "indices", "names", "runtime")
    keys_made = ("runtime", "agents", "forms")

    def __init__(self, runtime: dict[str, Any], agents: list[str], command: str, indices: bytes,
                 names: tuple[list[str], ...]) -> None:
        self.runtime, self.agents, self.command = runtime, agents, command
        self.indices, self.names = indices, names

    def made(self) -> dict[str, Any]:
        spellings = other_spellings(self.command)
        return {"runtime": self.runtime, "agents": self.agents,
                "forms": [{"command": spellings[i], "action": "allow", "agents": names}
                          for i, names in zip(self.indices, self.names, strict=True)]}
