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

- `mcp__srv__tool` is the gate's `srv_tool`, `mcp__srv` its `srv_*`; a tool the gate lacks keeps
  Claude's name as its permission.

A deny or ask with no such form (`~/` paths, paths outside the project) is an ask of all it could
cover (`external_directory *` for a path outside the project), an allow with none is left out, and the
answer says so (`untranslated`); `runtimes/gate_rules.py` is the mechanism all three agents share.
Where the gate's lowering sees through what Claude's does not (`git -C . push`, `/usr/bin/git
push`), the gate's answer is the stricter one, said beside Claude's.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from forge_tools.rule import Rule
from forge_tools.runtimes.claude.rules import bash_pattern, path_rule

if TYPE_CHECKING:
    from forge_tools.permission.calls import CallDecision
    from forge_tools.runtimes.claude.settings import ClaudeRule, ClaudeSettings
    from forge_tools.runtimes.gate_rules import Translation
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
    glob = pattern.lstrip("/").replace("**", "*")  # `/x` is anchored at the base; gate patterns are relative
    prefix = "" if rel_base.as_posix() == "." else rel_base.as_posix() + "/"
    if "/" not in pattern:
        return [f"{prefix}{glob}", f"{prefix}*/{glob}", f"{prefix}{glob}/*", f"{prefix}*/{glob}/*"]
    return [f"{prefix}{glob}", f"{prefix}{glob}/*"]


def read(cwd: Path, env: Mapping[str, str]) -> ClaudeSettings:
    """Claude Code's settings as it reads them started in `cwd` (the translator's input)."""
    from forge_tools.runtimes.claude.settings import read_settings

    return read_settings(cwd, env)


def translate(settings: ClaudeSettings, root: Path) -> Translation:
    """Claude's rules in the gate's terms (`runtimes/gate_rules.py`): the rules Claude loads, and the
    denies and asks it does not (an untrusted workspace's, managed-only): the gate reads them as meant."""
    from forge_tools.origin import Origin
    from forge_tools.runtimes.gate_rules import Rules

    out = Rules()
    # Claude asks what no rule allows (its read-only set aside): the gate starts there too
    base = Origin("default", name="Claude Code asks what no rule allows")
    out.base.extend(Rule(p, "*", "ask", base) for p in ("bash", "edit", "webfetch", "websearch"))
    for rule in settings.rules:
        if not rule.loaded and rule.behavior == "allow":
            continue
        what = f"Claude rule {rule.behavior} {rule.text!r}"
        if not rule.loaded:
            out.untranslated.append(f"{what} at {rule.origin}: Claude does not use it ({rule.why_not}); "
                                    "the gate does")
        permission = PERMISSIONS.get(rule.tool)
        if permission is None:
            mcp = _mcp_permission(rule.tool)
            if mcp is not None and rule.content is None:
                out.add(mcp, ["*"], rule.behavior, rule.origin)
            else:  # a tool the gate does not have keeps Claude's name (the hook finds a rule naming it)
                out.add(rule.tool, ["*"] if rule.content is None else [rule.content], rule.behavior,
                        rule.origin)
            continue
        patterns: list[str] | None
        if rule.content is None:
            patterns = ["*"]
        elif rule.tool == "Bash":
            kind, text = bash_pattern(rule.content)
            patterns = [f"{text} *" if kind == "prefix" else text]
        elif rule.tool in ("Read", "Edit"):
            patterns = _relative(settings, rule, root)
            if not patterns:  # outside the project: the gate asks external_directory for every such path
                out.cover("external_directory", rule.behavior, rule.origin, what)
                continue
        elif rule.tool == "WebFetch" and rule.content.startswith("domain:"):
            host = rule.content[len("domain:"):]
            patterns = [f"*://{host}/*", f"*://{host}"]
        else:
            patterns = None
        if not patterns:
            out.cover(permission, rule.behavior, rule.origin, what)
            continue
        out.add(permission, patterns, rule.behavior, rule.origin)
    return out.done("claude")


def _mcp_permission(tool: str) -> str | None:
    """`mcp__srv__tool` as the gate's permission (`srv_tool`), `mcp__srv` as `srv_*`."""
    if not tool.startswith("mcp__"):
        return None
    server, _, name = tool[len("mcp__"):].partition("__")
    if not server:
        return None
    from forge_tools.sources.mcp import mcp_tool_id

    return mcp_tool_id(server, name) if name and name != "*" else f"{mcp_tool_id(server, '')}*"


def gate_decision(result: PipelineResult, settings: ClaudeSettings, tool: str, args: dict[str, Any],
                  root: Path) -> tuple[CallDecision, list[str]]:
    """The gate's decision of Claude's call over the turn's rules plus Claude's (see the module)."""
    from forge_tools.permission.calls import CallDecision
    from forge_tools.permission.gate import dry_gate
    from forge_tools.runtimes.gate_rules import gate_turn
    from forge_tools.visibility.call_decision import decide_call

    turn, translation = gate_turn(result, "claude", settings.cwd, root, settings=settings)
    untranslated = list(translation.untranslated) if translation is not None else []
    mapped = gate_call(tool, args)
    if mapped is None:
        return (CallDecision(args=dict(args), refused=f"forge-tools has no tool for Claude Code's {tool}; "
                             "the gate refuses a call of a tool it does not have"), untranslated)
    forge_id, forge_args = mapped
    return decide_call(turn, forge_id, forge_args, root, dry_gate(turn.ruleset)), untranslated
