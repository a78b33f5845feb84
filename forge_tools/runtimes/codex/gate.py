"""Codex CLI's rules in the gate's terms (the mechanism: `runtimes/gate_rules.py`).

A `prefix_rule(pattern=["git", "push"], decision="forbidden")` is the gate's bash `git push *` deny
(the ` *` tail also matches the bare `git push`), `prompt` an ask, `allow` an allow; each alternative
list (`["git", ["push", "fetch"]]`) is one pattern per combination. The gate's shell reading then
sees `/usr/bin/git push`, `sudo git push` and `bash -c 'git push'` as `git push`, which Codex's own
exec policy does not all do.

Every rules file Codex would read is read, also those it ignores (an untrusted project's
`.codex/rules/`, every file once one file is refused): their forbidden and prompt rules are the
gate's denies and asks as the user meant them, their allows are not (Codex does not allow by them).
A file forge-tools cannot evaluate is an ask of every command, at the file. Under an approval
policy that asks before any command no rule allows (`unless-trusted`), the gate starts from an ask of
every command.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from forge_tools.runtimes.codex.config import CodexSettings
    from forge_tools.runtimes.gate_rules import Translation

ACTION = {"allow": "allow", "prompt": "ask", "forbidden": "deny"}
ASKS_EVERY_COMMAND = frozenset({"unless-trusted", "untrusted"})


def read(cwd: Path, env: Mapping[str, str]) -> CodexSettings:
    from forge_tools.runtimes.codex.config import read_codex

    return read_codex(cwd, env)


def translate(settings: CodexSettings, root: Path) -> Translation:
    from forge_tools.origin import Origin
    from forge_tools.rule import Rule
    from forge_tools.runtimes.codex.rules import read_rules
    from forge_tools.runtimes.gate_rules import Rules, prefix_patterns

    out = Rules()
    if settings.approval_policy in ASKS_EVERY_COMMAND:
        why = Origin("default", name=f"Codex CLI approval_policy {settings.approval_policy} asks first")
        out.base.append(Rule("bash", "*", "ask", why))
    loaded = {id(r) for r in settings.policy.rules}
    for path, _scope, used, why_not in settings.rules_files:
        file = next((f for f in settings.policy.files if f.path == path), None) or read_rules(path)
        if file.unread is not None:
            out.cover("bash", "deny", Origin("file", str(path)), f"Codex rules file ({file.unread})")
            continue
        for rule in file.rules:
            action = ACTION[rule.decision]
            if action == "allow" and id(rule) not in loaded:
                continue  # Codex does not allow by a rule it does not load; nor does the gate
            what = f"Codex prefix_rule {rule.text()} {rule.decision}"
            if id(rule) not in loaded:
                reason = why_not if not used else (
                    file.error or "a rules file Codex refuses empties the policy")
                out.untranslated.append(f"{what} at {rule.origin}: Codex does not use it ({reason}); "
                                        "the gate does")
            patterns, covering = prefix_patterns([tuple(alts) for alts in rule.pattern])
            if patterns is None:
                out.cover("bash", action, rule.origin, what, covering)  # type: ignore[arg-type]
                continue
            out.add("bash", patterns, action, rule.origin)  # type: ignore[arg-type]
    return out.done("codex")
