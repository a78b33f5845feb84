"""The recorded trail of the pipeline for one tool, as data (`explain` renders it as text or JSON).

Nothing here decides anything new: it reads a `PipelineResult`, adds the one-line fix suggestion for a
hidden tool and, for `--call`, puts the call's permission requests to the gate with a dry approver
(`permission.gate.dry_decide`), exactly as `run` and `check --expect` do.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from forge_tools.errors import ForgeToolsError, UsageError
from forge_tools.origin import format_key_path
from forge_tools.permission.calls import CallDecision, PatternDecision

if TYPE_CHECKING:
    from collections.abc import Callable

    from forge_tools.config.formats import ConfigFormat
    from forge_tools.config.loader import LoadedConfig
    from forge_tools.permission.gate import PermissionGate
    from forge_tools.rule import Rule
    from forge_tools.runtimes import Chosen
    from forge_tools.runtimes.compare import Answers
    from forge_tools.visibility.permission_layer import PermissionVerdicts
    from forge_tools.visibility.pipeline import LayerVerdict, PipelineResult, ToolVerdict


# -------------------------------------------------------------------------------------------- fix


def _config_file(loaded: LoadedConfig | None) -> str:
    """The project config file a new rule should go into (the nearest existing one, else forge.toml)."""
    root = Path(loaded.project_root if loaded is not None else ".")
    for source in reversed(loaded.sources if loaded is not None else []):
        path = source.path
        if path is not None:
            try:
                Path(path).resolve().relative_to(root.resolve())
            except ValueError:
                continue
            return str(path)
    return str(root / "forge.toml")


def _section(rule: Rule) -> str:
    keys = list(rule.origin.key_path)
    if "permission" in keys:
        return format_key_path(keys[: len(keys) - keys[::-1].index("permission")])
    return "permission"


def fix_suggestion(result: PipelineResult, verdict: ToolVerdict,
                   loaded: LoadedConfig | None = None) -> str | None:
    """One line telling a person how to make a hidden tool visible (None when it is visible).

    When several layers would drop the tool, every one of them needs a fix, in pipeline order.
    """
    if verdict.visible:
        return None
    fixes = []
    for layer in verdict.layers:
        if layer.kept:
            continue
        fix = _fix_for(result, verdict, layer, loaded)
        if fix and fix not in fixes:
            fixes.append(fix)
    return "; then ".join(fixes) or None


def _fix_for(result: PipelineResult, verdict: ToolVerdict, layer: LayerVerdict,
             loaded: LoadedConfig | None) -> str | None:
    from forge_tools.rule import Rule

    if layer.layer == "model":
        fix = getattr(layer.rule, "fix", None)
        return f"to keep {verdict.id}: {fix}" if fix else None
    if layer.layer == "request" and result.request.tool_overrides.get(verdict.id) is False:
        return f'drop "{verdict.id}": false from --tools'
    rule = layer.rule
    if not isinstance(rule, Rule):
        return None
    perm, origin = verdict.permission, rule.origin
    quoted = f"`{rule.permission} {rule.pattern} {rule.action}`"
    if origin.kind == "cli":
        return f'drop "{rule.permission}": false from --tools'
    if origin.kind == "env":
        return f"change {origin}: its rule {quoted} hides {verdict.id}"
    if origin.kind == "file" and origin.path and _in_tools_map(rule):
        return _tools_map_fix(result, verdict, rule)
    if origin.kind == "file" and origin.path:
        kept = _intended_rules(result, rule, perm)
        if rule.permission == perm:
            reorder = _reorder_fix(result, verdict, rule, kept) if kept else None
            if reorder is not None:
                return reorder
            ask = "to \"ask\" (asks before each call instead of hiding the tool)"
            earlier = _hiding_without(result, verdict, rule)
            if earlier is None:
                return f"remove the rule {quoted} at {origin}, or change its action {ask}"
            return (f"change the action of {quoted} at {origin} {ask}; removing it is not enough: "
                    f"{_quote(earlier)} would then hide it")
        fmt = _syntax(origin.path)
        if origin.key_path and origin.key_path[-1] == "permission":  # `permission = "deny"`, one action
            section = format_key_path(origin.key_path)
            pairs: list[tuple[str, str]] = [("*", str(rule.action)), (perm, "ask")]
            example = fmt.assignment(list(origin.key_path), pairs, nested=False)
            return (f"turn the one-action `{section}` at {origin} into a map with a rule for {perm} after "
                    f"`*`, e.g. {example}")
        section = _section(rule)
        if kept:  # move the tool's own rules after the catch-all, so they decide its calls again
            pairs = list(kept.items())
            example = fmt.later_assignment(section, perm, pairs)
            return (f"move the rules for {perm} after {quoted} at {origin} instead of loosening anything, "
                    f"e.g. {example} (the last matching rule decides: {perm} stays visible and every other "
                    "call is still denied)")
        example = fmt.later_entry(section, perm, "ask")
        return (f"add a rule for {perm} after {quoted} at {origin}, e.g. {example} "
                "(the last matching rule decides)")
    target = _config_file(loaded)
    keys = ["agent", result.agent.name, "permission"]
    example = _syntax(target).assignment(keys, [(perm, "ask")], nested=True)
    return (f"add {example} (or \"allow\") to {target}; it then comes after the {origin} rule {quoted}")


def _in_tools_map(rule: Rule) -> bool:
    """The rule is a legacy `tools` boolean (`"tools": {"bash": false}`), which holds only true/false."""
    keys = rule.origin.key_path
    return len(keys) >= 2 and keys[-2] == "tools"


def _tools_map_fix(result: PipelineResult, verdict: ToolVerdict, rule: Rule) -> str:
    """The fix for a hiding `tools` boolean, in what that map can hold: remove it or make it true; to ask
    instead, a `permission` rule (a `tools` map cannot say "ask")."""
    origin = rule.origin
    fmt = _syntax(origin.path)
    name = origin.key_path[-1]
    section = format_key_path(origin.key_path[:-1])
    permission = [*origin.key_path[:-2], "permission"]
    ask = fmt.set_at(permission, fmt.mapping([(rule.permission, "ask")]))
    earlier = _hiding_without(result, verdict, rule)
    remove = (f"remove {fmt.pair(name, 'false')} from the `{section}` map at {origin}, or set it to "
              f"{fmt.pair(name, 'true')} (allows every call)")
    if earlier is not None:
        remove = (f"set {fmt.pair(name, 'true')} in the `{section}` map at {origin} (allows every call; "
                  f"removing it is not enough: {_quote(earlier)} would then hide it)")
    return (f"{remove}; to ask before each call instead, remove it and write {ask} (a `tools` map holds "
            "only true or false)")


def _syntax(path: str | None) -> ConfigFormat:
    """The config language of the file a suggestion is for (TOML for a file yet to be created)."""
    from forge_tools.config.formats import by_name, for_path

    return for_path(path) if path else by_name("toml")


def _pattern_key(rule: Rule) -> str:
    """The pattern as written in the file (before `~`/`$HOME` expansion), for text the user pastes back."""
    keys = rule.origin.key_path
    if len(keys) >= 2 and keys[-2] == rule.permission and keys[-1] != rule.permission:
        return keys[-1]
    return rule.pattern


def _level(rule: Rule) -> tuple[object, ...]:
    """Which `permission` map a rule was written in: its source and the key path up to `permission`."""
    o = rule.origin
    keys = list(o.key_path)
    prefix = tuple(keys[: len(keys) - keys[::-1].index("permission")]) if "permission" in keys else ()
    return (o.kind, o.path, o.name, prefix)


def _intended_rules(result: PipelineResult, hiding: Rule, perm: str) -> dict[str, str]:
    """The specific patterns the user wrote for `perm` before the hiding `* deny` (pattern -> action).

    Only rules of the same config level count (the same `permission` map of the same file, as for
    `check`'s FT104): they say what the user meant to let through there, which a trailing catch-all
    deny silently overrides. Rules from elsewhere (the builtin defaults, a top-level allow under an
    agent's own deny) are not taken as intent. Empty when none of them allows or asks.
    """
    from forge_tools.rule import Rule

    rules = list(result.ruleset)
    if hiding not in rules:
        return {}
    level = _level(hiding)
    found: dict[str, str] = {}
    for r in rules[: rules.index(hiding)]:
        if not isinstance(r, Rule) or r.permission != perm or r.pattern == "*":
            continue
        if r.origin.kind not in ("file", "env") or _level(r) != level:
            continue
        key = _pattern_key(r)
        found.pop(key, None)  # a later rule for the same pattern replaces it, in its own place
        found[key] = str(r.action)
    return found if any(a in ("allow", "ask") for a in found.values()) else {}


def _reorder_fix(result: PipelineResult, verdict: ToolVerdict, rule: Rule,
                 kept: dict[str, str]) -> str | None:
    """The FT104 fix in the file's syntax: the `* deny` first, the specific rules after it.

    None when the rewritten map would still hide the tool (then only changing the action helps).
    """
    from forge_tools.rule import Rule

    origin = rule.origin
    keys = list(origin.key_path)
    if keys and keys[-1] != rule.permission:  # an entry of the permission's pattern map
        keys = keys[:-1]
    if not keys or keys[-1] != rule.permission:  # no key path from this format: the usual place
        keys = ["permission", rule.permission]
    rewritten = (Rule(rule.permission, "*", "deny", origin),
                 *(Rule(rule.permission, p, a, origin) for p, a in kept.items()))  # type: ignore[arg-type]
    level = _level(rule)

    def rewrite(rules: list[Rule]) -> list[Rule]:  # the map as the fix writes it, where it was
        at = rules.index(rule)
        before = [r for r in rules[:at] if not (r.permission == rule.permission and r.pattern != "*"
                                                 and _level(r) == level)]
        return [*before, *rewritten, *rules[at + 1:]]

    if _layer_three_with(result, verdict, rewrite).hidden_at is not None:
        return None
    fmt = _syntax(origin.path)
    pairs = [("*", "deny"), *kept.items()]
    example = fmt.assignment(keys, pairs, nested=False)
    where = fmt.in_map(format_key_path(keys[:-1]))
    quoted = f"`{rule.permission} {rule.pattern} {rule.action}`"
    allows = ", ".join(f"{p} {a}" for p, a in kept.items())
    return (f"put the rule {quoted} at {origin} first and the rules for {rule.permission} after it "
            f"({allows}), keeping the deny for everything else: write the map as {example}{where} "
            f"(the last matching rule decides, so {verdict.id} stays visible and every call no other rule "
            "matches is still denied)")


def _layer_three_with(result: PipelineResult, verdict: ToolVerdict,
                      edit: Callable[[list[Rule]], list[Rule]]) -> PermissionVerdicts:
    """What-if: layer three for this tool resolved again over the turn's configured rules as a fix
    would edit them (the request booleans of the turn still apply after them)."""
    from forge_tools.visibility.permission_layer import permission_layer

    request = tuple(result.request_rules)
    configured = list(result.ruleset[: len(result.ruleset) - len(request)])
    verdicts = permission_layer([verdict.id], edit(configured), request, result.request.tool_overrides)
    return verdicts[verdict.id]


def _hiding_without(result: PipelineResult, verdict: ToolVerdict, removed: Rule) -> Rule | None:
    """The rule that would hide the tool once `removed` is gone (None: removing it is enough)."""
    after = _layer_three_with(result, verdict, lambda rules: [r for r in rules if r is not removed])
    if after.hidden_at == "permission":
        return after.permission_rule
    return after.request_rule if after.hidden_at == "request" else None


def _quote(rule: Rule) -> str:
    where = "at" if rule.origin.kind == "file" else "from"
    return f"`{rule.permission} {rule.pattern} {rule.action}` {where} {rule.origin}"


# ------------------------------------------------------------------------------------------- call


def call_decision(
    result: PipelineResult, verdict: ToolVerdict, raw_args: Any, loaded: LoadedConfig | None = None,
    gate: PermissionGate | None = None,
) -> CallDecision:
    """`explain --call`: the call's decision from `call_decision.decide_call`, the one decider that
    `check --expect` and the library ask too (a hidden tool's call is a deny). A tool whose code is not
    loaded or arguments that do not fit are usage errors here, said before anything is decided.
    `gate` (a dry one, see `permission.gate.dry_gate`) may carry a session's `always` answers."""
    from forge_tools.visibility.call_decision import args_problem, decide_call

    if verdict.tool is None:
        raise ForgeToolsError(f"tool {verdict.id!r} was not loaded (its code is needed for --call)")
    if not isinstance(raw_args, dict):
        raise UsageError("expected a JSON object of arguments", where="--call")
    problem = args_problem(result, verdict.id, raw_args)
    if problem is not None:
        raise UsageError(problem, where="--call")
    return decide_call(result, verdict.id, raw_args, _project_root(loaded), gate)


def call_answers(result: PipelineResult, verdict: ToolVerdict, decision: CallDecision,
                 loaded: LoadedConfig | None, chosen: Chosen | None = None) -> Answers:
    """`explain --call`'s two answers: the answering runtime's (`chosen`, else the project's files
    choose: what the agent does) beside the gate's `decision` (what `forge-tools run` enforces), from
    the one function every command asks (`runtimes.answer.call_answers`)."""
    from forge_tools.runtimes import runtime_for
    from forge_tools.runtimes.answer import call_answers as answers

    if loaded is None:
        from forge_tools.config.loader import LoadOptions, load_config

        loaded = load_config(LoadOptions(cwd=Path.cwd()))
    return answers(chosen or runtime_for(loaded), loaded, result, verdict.id, decision.args,
                   decided=decision)


def _project_root(loaded: LoadedConfig | None) -> Path:
    return Path(loaded.project_root) if loaded is not None else Path.cwd()


def explanation(result: PipelineResult, verdict: ToolVerdict, loaded: LoadedConfig | None = None,
                call: CallDecision | None = None, both: Answers | None = None) -> dict[str, Any]:
    """The whole story of one tool as plain data (the `explain --format json` document)."""
    from forge_tools.permission.evaluate import evaluate
    from forge_tools.visibility.definition_layer import base_definition
    from forge_tools.visibility.pipeline import problems_json

    if_visible = None
    if call is not None and call.refused is not None and not verdict.visible:
        # a hidden tool's call is refused; what the rules would answer if it were offered, beside it
        from forge_tools.visibility.call_decision import decide_call

        if_visible = decide_call(result, verdict.id, call.args, _project_root(loaded), as_if_visible=True)
    deciding = verdict.deciding
    if deciding is None:  # visible: the last rule for its permission, a request boolean if one applies
        request = verdict.layer("request")
        deciding = request if request.rule is not None else verdict.layer("permission")
    star = evaluate(verdict.permission, "*", result.ruleset)
    return {
        "tool": verdict.id,
        "agent": result.agent.name,
        "agent_disabled": result.agent.disabled,
        "model": result.model,
        "client": result.client,
        "flags": sorted(result.flags),
        "source": {**verdict.source.to_json(), "line": verdict.source.line,
                   "description": str(verdict.source)},
        "shadowed": [s.to_json() | {"description": str(s)} for s in verdict.shadowed],
        "permission": verdict.permission,
        "visible": verdict.visible,
        "hidden_at": verdict.hidden_at,
        "reason": verdict.reason,
        "layers": [v.to_json() for v in verdict.layers],
        "deciding_rule": deciding.rule.to_json() if deciding.rule is not None else None,
        "any_call": PatternDecision(verdict.permission, "*", star.action, star.rule).to_json(),
        "definition": verdict.definition,
        "original_definition": base_definition(verdict.tool) if verdict.tool is not None else None,
        "definition_changes": [{"by": who, "diff": diff} for who, diff in verdict.definition_changes],
        "definition_problems": problems_json(list(verdict.definition_outcome.problems)),
        "fix": fix_suggestion(result, verdict, loaded),
        "runtime": both.chosen.to_json() if both is not None else None,
        "call": (both.to_json() if both is not None else call.to_json()) if call is not None else None,
        "call_if_visible": if_visible.to_json() if if_visible is not None else None,
        "problems": problems_json(result.problems),
        "notes": [*result.notes, *builtin_overrides(result, verdict),
                  # a call of an opencode script tool: its input is not checked (opencode checks none)
                  *([verdict.tool.unchecked_input] if call is not None and verdict.tool is not None
                    and verdict.tool.unchecked_input else [])],
        "overrides": global_overrides(result, verdict, loaded),
    }


def builtin_overrides(result: PipelineResult, verdict: ToolVerdict) -> list[str]:
    """A note for each restriction of a builtin agent (plan's `edit * deny`) that a top-level rule
    overrides: top-level rules come after the builtin agent's own in the ruleset, so a project's
    `permission: {edit: allow}` also lets plan edit, which is rarely what was meant."""
    from forge_tools.permission.evaluate import evaluate
    from forge_tools.permission.wildcard import wildcard_match

    order = {"allow": 0, "ask": 1, "deny": 2}
    notes: list[str] = []
    for rule in result.ruleset:
        if rule.origin.kind != "builtin-agent" or not wildcard_match(verdict.permission, rule.permission):
            continue
        winner = evaluate(verdict.permission, rule.pattern, result.ruleset).rule
        if winner is None or winner is rule or order[winner.action] >= order[rule.action]:
            continue
        top_level = winner.origin.key_path[:1] == ("permission",) or winner.origin.kind == "env"
        if winner.origin.kind in ("file", "env", "cli") and top_level:
            agent = result.agent.name
            notes.append(
                f"builtin agent {agent}'s own rule `{rule.permission} {rule.pattern} {rule.action}` is "
                f"overridden by the top-level rule `{winner.permission} {winner.pattern} {winner.action}` "
                f"at {winner.origin} (top-level rules come after a builtin agent's own); to keep {agent}'s "
                f"restriction, set it again under agent.{agent}.permission")
    return notes


def global_overrides(result: PipelineResult, verdict: ToolVerdict,
                     loaded: LoadedConfig | None) -> list[dict[str, Any]]:
    """The project rules for this tool that turn a deny of the global config into ask or allow (what
    `check` reports as FT112), each with both rules."""
    if loaded is None or not loaded.personal_files:  # nothing global to override
        return []
    from forge_tools.permission.overrides import project_overrides
    from forge_tools.permission.wildcard import wildcard_match

    return [{"global_rule": o.global_rule.to_json(), "project_rule": o.project_rule.to_json(),
             "text": o.describe()}
            for o in project_overrides(loaded, [result.agent])
            if wildcard_match(verdict.permission, o.global_rule.permission)
            and wildcard_match(verdict.permission, o.project_rule.permission)]
