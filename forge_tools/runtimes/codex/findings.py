"""`check`'s findings about the Codex CLI files a project holds (FT321-FT327), each at the rule,
example or value's file:line:col. Nothing is run: a rule's fate is the policy's (`policy.py`), read
as Codex 0.171 reads it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from forge_tools.origin import Origin
from forge_tools.report.findings import Finding
from forge_tools.runtimes.codex.rules import SEVERITY, PrefixRule

if TYPE_CHECKING:
    from forge_tools.runtimes.codex.config import CodexSettings

_GLOB = set("*?[")


def codex_findings(settings: CodexSettings) -> list[Finding]:
    found: list[Finding] = []
    refused = settings.policy.error
    rules_stop = refused is not None and refused.error is not None
    if settings.start_error is not None and not rules_stop:
        profile = settings.start_error.startswith(("legacy `profile", "--profile"))
        fix = ("move the profile's settings into $CODEX_HOME/NAME.config.toml and start Codex with --profile "
               "NAME" if profile else settings.start_fix or "fix the value at this location")
        found.append(Finding("FT325", "error", f"Codex CLI does not start: {settings.start_error}", fix,
                             settings.start_error_origin))
        return found
    for f in settings.policy.files:
        if f.error is not None:
            found.append(Finding(
                "FT321", "error", f"Codex CLI refuses {f.path.name}: {f.error}; while it does, Codex "
                "does not start (`Error loading rules`: every call is refused)",
                "fix the rule or its example; `codex execpolicy check --rules FILE -- CMD` shows "
                "Codex's own message", f.error_origin or Origin("file", str(f.path), 1, 1)))
        elif f.unread is not None:
            found.append(Finding(
                "FT326", "warning", f"{f.path.name} is not read by forge-tools: {f.unread}; its rules "
                "are left out of every Codex answer", "write the rules with literal values",
                f.error_origin or Origin("file", str(f.path), 1, 1)))
    from forge_tools.runtimes.codex.files import ignored_by

    for ignored in ignored_by(settings):  # the files every command says Codex ignores
        found.append(Finding("FT323", "warning", f"Codex CLI does not read {ignored.path}: {ignored.reason}",
                             ignored.fix, Origin("file", ignored.path, 1, 1)))
    rules = [r for f in settings.policy.files for r in f.rules]  # a refused file has none
    for rule in rules:
        found += _never_matches(rule)
        dead = _covering(rule, rules)
        if dead is not None:
            found.append(Finding(
                "FT324", "warning", f"Codex CLI rule {rule.text()} ({rule.decision}) never decides: every "
                f"command it matches is also matched by {dead.text()} ({dead.decision}) at {dead.origin}, "
                "and the strictest decision wins", "remove one of them, or narrow the stricter rule",
                rule.origin))
    found += _spelled_around(settings)
    return found


#: how many spellings a finding's message lists (its `data["forms"]` has them all)
SHOWN = 6


def _spelled_around(settings: CodexSettings) -> list[Finding]:
    """FT327: each forbidden or prompt rule's command written the other known ways (`FOO=1 git push`,
    `env git push`, `'git' push`, ...), given to Codex's shell tool as `exec_command`; the spellings
    it then runs are listed. Decided under approval_policy never, as recorded; nothing is run."""
    import dataclasses
    import shlex

    from forge_tools.runtimes.codex.decide import decide
    from forge_tools.tools.spellings import other_spellings

    never = dataclasses.replace(settings, values={**settings.values, "approval_policy": ("never", None)})
    out = []
    for rule in settings.policy.rules:
        if rule.decision == "allow":
            continue
        words = [alts[0] for alts in rule.pattern]
        command = shlex.join(words)
        quoted = " ".join([f"'{words[0]}'", *map(shlex.quote, words[1:])])
        forms = [f"FOO=1 {command}", quoted, *other_spellings(command)]
        passing = [f for f in dict.fromkeys(forms)
                   if decide(never, "exec_command", {"cmd": f}, settings.cwd).behavior == "allow"]
        if passing:
            more = f" and {len(passing) - SHOWN} more" if len(passing) > SHOWN else ""
            listed = ", ".join(f"`{f}`" for f in passing[:SHOWN])
            out.append(Finding(
                "FT327", "warning", f"Codex CLI rule {rule.text()} ({rule.decision}) is got around: Codex's "
                f"shell tool runs {listed}{more} (a line that is not plain commands is checked whole, "
                "and no rule of the program matches it)",
                _spelled_around_fix(settings), rule.origin,
                data={"forms": passing}))
    return out


def _spelled_around_fix(settings: CodexSettings) -> str:
    """FT327's fix, for the sandbox the config already sets (no advice to set what is set)."""
    mode = settings.sandbox_mode
    if mode in ("read-only", "workspace-write"):
        return (f"sandbox_mode is already {mode}, which keeps these forms in the sandbox; to refuse them "
                "outright, write a rule for each form, or make the allowed commands the rules")
    return ("deny by default instead: sandbox_mode read-only or workspace-write keeps what no rule allows "
            "in the sandbox; or make the allowed commands the rules")


def _never_matches(rule: PrefixRule) -> list[Finding]:
    out = []
    for i, alts in enumerate(rule.pattern):
        for token in alts:
            if _GLOB & set(token):
                out.append(Finding(
                    "FT322", "warning", f"Codex CLI rule {rule.text()}: token {token!r} is matched "
                    "literally (Codex patterns have no wildcards), so only a command with that exact "
                    "word matches", f"drop the wildcard: {token.rstrip('*?[]')!r} as a prefix, or list "
                    "the words as alternatives", rule.origin))
            elif " " in token.strip() and i == 0:
                out.append(Finding(
                    "FT322", "warning", f"Codex CLI rule {rule.text()}: the program {token!r} holds a "
                    "space; each word of a command is its own token", "split it: "
                    f"{token.split()!r}", rule.origin))
    return out


def _covering(rule: PrefixRule, rules: list[PrefixRule]) -> PrefixRule | None:
    """A stricter rule that matches every command `rule` matches (a prefix of it, alternatives
    included)."""
    for other in rules:
        if other is rule or SEVERITY[other.decision] <= SEVERITY[rule.decision]:
            continue
        if len(other.pattern) <= len(rule.pattern) and all(
                set(mine) <= set(theirs) for mine, theirs in zip(rule.pattern, other.pattern, strict=False)):
            return other
    return None
