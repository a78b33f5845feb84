"""forge-tools' gate beside Claude Code's answer: the same call and the same rules, decided by the one
fail-closed decision function (`visibility.call_decision.decide_call`), which `run` enforces.

The call is put in forge-tools' terms (`Bash {"command"}` is `bash {"command"}`, `Read {"file_path"}`
is `read {"filePath"}`, ...) and the project's Claude rules are added to the turn's rules in the gate's
vocabulary, allows first, then asks, then denies, so that under the gate's last-match order deny
beats ask beats allow as in Claude:

- `Bash(cmd:*)` is bash `cmd *`, `Bash(x)` is bash `x` (a `*` spans anything in both), `Bash` is
  bash `*`;
- a `Read(...)` / `Edit(...)` path below the working directory or the settings file's directory is
  the gate's read / edit pattern relative to the project root (a name without a `/` at any depth);
- `WebFetch(domain:h)` is webfetch `*://h/*` and `*://h`; a bare tool is its permission `*`.

A rule with no such form (`~/` paths, paths outside the project, MCP rules) is not given to the gate,
and the answer says so (`untranslated`). Where the gate's lowering sees through what Claude's does not
(`git -C . push`, `/usr/bin/git push`), the gate's answer is the stricter one, said beside Claude's.
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from forge_tools.rule import Rule
from forge_tools.runtimes.claude.rules import bash_pattern, path_rule

if TYPE_CHECKING:
    from forge_tools.permission.calls import CallDecision
    from forge_tools.runtimes.claude.settings import ClaudeRule, ClaudeSettings
    from forge_tools.visibility.pipeline import PipelineResult

#: Claude tool -> (forge-tools tool, {Claude input key: forge-tools argument})
CALLS: dict[str, tuple[str, dict[str, str]]] = {
    "Bash": ("bash", {"command": "command", "timeout": "timeout", "description": "description"}),
    "Read": ("read", {"file_path": "filePath", "offset": "offset", "limit": "limit"}),
    "Edit": ("edit", {"file_path": "filePath", "old_string": "oldString", "new_string": "newString",
                      "replace_all": "replaceAll"}),
    "Write": ("write", {"file_path": "filePath", "content": "content"}),
    "Glob": ("glob", {"pattern": "pattern", "path": "path"}),
    "Grep": ("grep", {"pattern": "pattern", "path": "path", "glob": "include"}),
    "WebFetch": ("webfetch", {"url": "url"}),
}
PERMISSIONS = {"Bash": "bash", "Read": "read", "Edit": "edit", "Write": "edit", "WebFetch": "webfetch",
               "Glob": "glob", "Grep": "grep", "NotebookEdit": "edit", "WebSearch": "websearch"}
_ORDER = {"allow": 0, "ask": 1, "deny": 2}


def gate_call(tool: str, args: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
    """The call in forge-tools' terms, or None when forge-tools has no such tool."""
    mapping = CALLS.get(tool)
    if mapping is None:
        return None
    forge_id, keys = mapping
    out = {keys[k]: v for k, v in args.items() if k in keys}
    if forge_id == "webfetch":
        out.setdefault("format", "markdown")
    if forge_id == "bash":
        out.setdefault("description", "claude call")
    return forge_id, out


def _relative(settings: ClaudeSettings, rule: ClaudeRule, root: Path) -> list[str] | None:
    anchor, pattern = path_rule(rule.content or "")
    base = {"root": Path("/"), "home": None, "settings": rule.base, "cwd": settings.cwd}[anchor]
    if base is None:
        return None
    pattern = pattern.rstrip("/")
    here = Path(os.path.normpath(base / pattern.split("*")[0])) if "*" in pattern else base / pattern
    try:
        rel_base = base.relative_to(root)
    except ValueError:
        if anchor != "root":
            return None
        try:
            rel = here.relative_to(root).as_posix()
        except ValueError:
            return None
        return [rel, f"{rel}/*"]
    glob = pattern.replace("**", "*")
    prefix = "" if rel_base.as_posix() == "." else rel_base.as_posix() + "/"
    if "/" not in pattern:
        return [f"{prefix}{glob}", f"{prefix}*/{glob}", f"{prefix}{glob}/*", f"{prefix}*/{glob}/*"]
    return [f"{prefix}{glob}", f"{prefix}{glob}/*"]


def gate_rules(settings: ClaudeSettings, root: Path) -> tuple[tuple[Rule, ...], list[ClaudeRule]]:
    """Claude's loaded rules as gate rules (allows, asks, denies), and the ones with no such form."""
    from forge_tools.origin import Origin

    # Claude asks what no rule allows (its read-only set aside): the gate starts there too
    base = Origin("default", name="Claude Code asks what no rule allows")
    out: list[Rule] = [Rule(p, "*", "ask", base) for p in ("bash", "edit", "webfetch", "websearch")]
    untranslated: list[ClaudeRule] = []
    for rule in sorted(settings.loaded_rules, key=lambda r: _ORDER[r.behavior]):
        permission = PERMISSIONS.get(rule.tool)
        patterns: list[str] | None
        if permission is None:
            untranslated.append(rule)
            continue
        if rule.content is None:
            patterns = ["*"]
        elif rule.tool == "Bash":
            kind, text = bash_pattern(rule.content)
            patterns = [f"{text} *" if kind == "prefix" else text]
        elif rule.tool in ("Read", "Edit"):
            patterns = _relative(settings, rule, root)
        elif rule.tool == "WebFetch" and rule.content.startswith("domain:"):
            host = rule.content[len("domain:"):]
            patterns = [f"*://{host}/*", f"*://{host}"]
        else:
            patterns = None
        if not patterns:
            untranslated.append(rule)
            continue
        out.extend(Rule(permission, p, rule.behavior, rule.origin) for p in patterns)
    return tuple(out), untranslated


def gate_decision(result: PipelineResult, settings: ClaudeSettings, tool: str, args: dict[str, Any],
                  root: Path) -> tuple[CallDecision, list[ClaudeRule]]:
    """The gate's decision of Claude's call over the turn's rules plus Claude's (see the module)."""
    from forge_tools.permission.calls import CallDecision
    from forge_tools.permission.gate import dry_gate
    from forge_tools.visibility.call_decision import decide_call

    rules, untranslated = gate_rules(settings, root)
    mapped = gate_call(tool, args)
    if mapped is None:
        return (CallDecision(args=dict(args), refused=f"forge-tools has no tool for Claude Code's {tool}; "
                             "the gate refuses a call of a tool it does not have"), untranslated)
    forge_id, forge_args = mapped
    turn = replace(result, ruleset=(*result.ruleset, *rules))
    return decide_call(turn, forge_id, forge_args, root, dry_gate(turn.ruleset)), untranslated
