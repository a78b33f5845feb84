"""FT118 agents-disagree: a call one agent runtime of the project denies and another allows, checked on
the loaded config by `check.analysis.analyse` when the repository holds several agents' configs.

The probe calls are each runtime's own deny rules of bash, read, edit, write and webfetch, one call
each rule matches: opencode's `bash`, `read` and `edit` deny patterns (a path relative to the project;
an edit deny gives an edit and a write) and a bare `webfetch` deny; Claude Code's `Bash(...)`,
`Read(...)`, `Edit(...)`, `Write(...)` (a file below the rule's anchor) and
`WebFetch(domain:...)` denies (a URL of that host); Codex CLI's `forbidden` prefix rules and Gemini
CLI's shell deny `commandPrefix`es (bash only). Bash probes add the other spellings FT116 writes
of each command (`tools.spellings.other_spellings`). Each probe is decided by every agent runtime found
(`runtimes.across.answers_by_runtime`, each runtime's own decider over its own files); nothing runs. A
probe denied by one agent's rule and allowed by another is reported at the denying rule, naming the
agent that allows it and its deciding rule.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from forge_tools.named_tuple import NamedTuple
from forge_tools.report.codeinfo import CodeInfo

if TYPE_CHECKING:
    from forge_tools.check.context import CheckContext
    from forge_tools.report.findings import Finding

RULE = CodeInfo(
    code="FT118",
    name="agents-disagree",
    level="warning",
    summary=(
        "A call one agent of the repository denies and another allows: the same command, file or URL is "
        "refused under one agent's config (opencode, Claude Code, Codex CLI, Gemini CLI) and runs "
        "unasked under another's."
    ),
    help=(
        "Deny the call in every agent's config too (the message names the rule that allows it), or "
        "assert it with `check --expect` and `runtime: all`."
    ),
    why=(
        "A team that runs several coding agents on one repository keeps a permission file for each, "
        "each with its own matching rules. A deny written in one (opencode's `\"git push *\": "
        "\"deny\"`) protects nothing when another agent's rules allow the same call "
        "(Claude Code's `Bash(git *)`), and so does a `Read(./config/.env)` deny when opencode reads "
        "every file. `check` decides a call of each agent's bash, read, edit, write and webfetch deny "
        "rules (and, for bash, the other spellings FT116 tries) with every agent runtime whose config "
        "the repository holds."
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

EXAMPLE_URL = "https://example.com/"
#: how many calls a finding's message lists (its `data["calls"]` has them all)
SHOWN = 4


class Probe(NamedTuple):
    """One call to put to every agent runtime, in the shared vocabulary (`bash`, `read`, ...)."""

    tool: str
    args: tuple[tuple[str, str], ...]
    shown: str  # how the message writes it: the command, or `read src/secret.ts`

    @classmethod
    def of(cls, tool: str, shown: str, **args: str) -> Probe:
        return cls(tool, tuple(args.items()), shown)


def _example(pattern: str) -> str:
    """A text a wildcard pattern matches (`*`, `**` and `?` made `x`)."""
    return pattern.replace("**", "x").replace("*", "x").replace("?", "x")


def _path_probes(tool: str, path: Path, root: Path) -> list[Probe]:
    """The calls of a read or edit deny rule's file: read it, or edit and write it (every agent's
    edit rules cover both)."""
    shown = os.path.relpath(path, root) if path.is_relative_to(root) else str(path)
    if tool == "read":
        return [Probe.of("read", f"read {shown}", filePath=str(path))]
    calls = [Probe.of("write", f"write {shown}", filePath=str(path), content="x")]
    if tool == "edit":
        calls.insert(0, Probe.of("edit", f"edit {shown}", filePath=str(path), oldString="x",
                                 newString="y"))
    return calls


def _url_probe(url: str) -> Probe:
    return Probe.of("webfetch", f"webfetch {url}", url=url, format="text")


def _opencode_denies(ctx: CheckContext, turn: Any) -> list[Probe]:
    from forge_tools.check.context import is_user_rule
    from forge_tools.tools.spellings import example_command

    root = Path(ctx.loaded.project_root)
    out = []
    for rule in turn.ruleset:
        if rule.action != "deny" or not is_user_rule(rule):
            continue
        if rule.permission == "bash":
            command = example_command(rule.pattern)
            if command:
                out.append(Probe.of("bash", command, command=command))
        elif rule.permission in ("read", "edit") and rule.pattern:
            # opencode matches the path relative to the project (an absolute one as written)
            out += _path_probes(rule.permission, root / _example(rule.pattern), root)
        elif rule.permission == "webfetch" and rule.pattern == "*":
            # opencode takes one action for webfetch (a pattern map keeps it from starting: FT111)
            out.append(_url_probe(EXAMPLE_URL))
    return out


def _claude_path(rule: Any, settings: Any) -> Path:
    """A file Claude's `Read(...)` / `Edit(...)` / `Write(...)` content matches, below its anchor."""
    from forge_tools.runtimes.claude.rules import path_rule

    anchor, pattern = path_rule(rule.content)
    base = {"root": Path("/"), "home": settings.home, "settings": rule.base}.get(anchor, settings.cwd)
    text = _example(pattern.replace("**/", "")).lstrip("/")
    if text.endswith("/") or not text:
        text += "x"
    return base / text


def _claude_denies(ctx: CheckContext, turn: Any) -> list[Probe]:
    from forge_tools.runtimes.claude.rules import bash_pattern, domain_matches
    from forge_tools.runtimes.claude.settings import read_settings
    from forge_tools.runtimes.found import agent_cwd
    from forge_tools.tools.spellings import example_command

    settings = read_settings(agent_cwd(ctx.loaded))
    root = Path(ctx.loaded.project_root)
    out = []
    for rule in settings.loaded_rules:
        if rule.behavior != "deny" or not rule.content:
            continue
        if rule.tool == "Bash":
            kind, text = bash_pattern(rule.content)
            command = text if kind == "prefix" else example_command(rule.content)
            if command and command.strip():
                out.append(Probe.of("bash", command, command=command))
        elif rule.tool in ("Read", "Edit", "Write"):
            out += _path_probes(rule.tool.lower(), _claude_path(rule, settings), root)
        elif rule.tool == "WebFetch" and rule.content.startswith("domain:"):
            host = rule.content[len("domain:"):]
            url = f"https://{'x' + host[1:] if host.startswith('*.') else host}/"
            if domain_matches(rule.content, url):
                out.append(_url_probe(url))
    return out


def _codex_denies(ctx: CheckContext, turn: Any) -> list[Probe]:
    """The commands Codex CLI's loaded `forbidden` prefix rules name (each token's first word)."""
    import shlex

    from forge_tools.runtimes.codex.files import settings_for

    commands = [shlex.join(alts[0] for alts in rule.pattern)
                for rule in settings_for(ctx.loaded).policy.rules if rule.decision == "forbidden"]
    return [Probe.of("bash", command, command=command) for command in commands]


def _gemini_denies(ctx: CheckContext, turn: Any) -> list[Probe]:
    """The commands Gemini CLI's shell deny rules name (each `commandPrefix`)."""
    from forge_tools.runtimes.found import agent_cwd
    from forge_tools.runtimes.gemini.settings import read_settings

    commands: list[str] = []
    for rule in read_settings(agent_cwd(ctx.loaded)).rules:
        if rule.tool_name == "run_shell_command" and rule.decision == "deny" and rule.command_prefix:
            commands += [p for p in rule.command_prefix if p.strip() and p not in commands]
    return [Probe.of("bash", command, command=command) for command in commands]


#: runtime -> the calls its own deny rules of bash, read, edit, write and webfetch name (a new agent
#: runtime adds its reader here)
DENY_CALLS: dict[str, Callable[[Any, Any], list[Probe]]] = {
    "opencode": _opencode_denies,
    "claude": _claude_denies,
    "codex": _codex_denies,
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
    probes: dict[Probe, None] = {}
    for f in found:
        for probe in DENY_CALLS.get(f.name, lambda c, t: [])(ctx, turn):
            probes.setdefault(probe)
            if probe.tool == "bash":
                for form in other_spellings(probe.shown):
                    probes.setdefault(Probe.of("bash", form, command=form))
    names = [f.name for f in found]
    root = Path(ctx.loaded.project_root)
    groups: dict[tuple[Any, str, str], list[tuple[Probe, str]]] = {}
    labels: dict[str, str] = {f.name: f.label for f in found}
    for probe in probes:
        both = answers_by_runtime(ctx.loaded, result, probe.tool, dict(probe.args), names,
                                  load_code=False, gate=False, opencode_turn=turn)
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
        from forge_tools.runtimes.across import MODELLED_MARK, rule_words

        modelled = sum(1 for _, why in calls if why.endswith(MODELLED_MARK))
        note = ""
        said = calls
        if modelled > 1:  # the binary's record is missing for several: said once, at the end
            said = [(c, why.removesuffix(f" {MODELLED_MARK}")) for c, why in calls]
            note = f" {MODELLED_MARK}" if modelled == len(calls) else \
                f" {MODELLED_MARK[:-1]}, for {modelled} of them]"
        more = f" and {len(calls) - SHOWN} more" if len(calls) > SHOWN else ""
        reasons = {why for _, why in said}
        if len(reasons) == 1:  # one rule allows them all: said once
            listed = ", ".join(f"`{c.shown}`" for c, _ in said[:SHOWN]) + f"{more} (by {reasons.pop()})"
            more = ""
        else:
            listed = "; ".join(f"`{c.shown}` ({why})" for c, why in said[:SHOWN])
        findings.append(Finding(
            RULE.code, RULE.level,
            f"{labels[denied_by]} denies by {rule_words(denied_by, rule, root)}, but "
            f"{labels[allowed_by]} allows the same call: {listed}{more}{note}",
            RULE.help, rule.origin,
            data={"denied_by": denied_by, "allowed_by": allowed_by,
                  "calls": [{"tool": c.tool, "args": dict(c.args), "shown": c.shown,
                             **({"command": c.shown} if c.tool == "bash" else {}),
                             "allowed_by_rule": why} for c, why in calls]}))
    return findings
