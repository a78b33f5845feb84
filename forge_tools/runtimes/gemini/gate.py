"""Gemini CLI's policy rules in the gate's terms (the mechanism: `runtimes/gate_rules.py`).

A rule of the user's files (policy TOML `[[rule]]`, settings `tools.exclude` / `tools.allowed` /
`tools.confirmationRequired` / `tools.core`, `mcp.*`; the denies and asks of a policy file Gemini
does not load, such as the workspace tier 0.61 disables, as the user meant them) is a gate rule on
the tool's gate permission
(`run_shell_command` is `bash`, `read_file` `read`, `replace` and `write_file` `edit`, `mcp_srv_tool`
`srv_tool`); a `commandPrefix` is the gate's bash `prefix *`; `ask_user` is ask. An `argsPattern` or
`commandRegex` (a regular expression over the arguments) has no gate form: a deny or ask by one is an
ask of the whole tool. The gate keeps Gemini's priority order (a higher priority wins; within one
priority, deny beats ask beats allow).

The base is what Gemini decides where no rule speaks, in the session's mode: it asks before shell
commands, edits and web fetches (`default`), not before edits in `autoEdit`, nothing in `yolo`, and
refuses shell and edits in `plan`; a headless run (`gemini -p`) refuses instead of asking.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from forge_tools.lazy_re import lazy

if TYPE_CHECKING:
    from forge_tools.runtimes.gate_rules import Translation
    from forge_tools.runtimes.gemini.policy import GeminiRule
    from forge_tools.runtimes.gemini.settings import GeminiSettings

#: Gemini's tool name -> the gate's permission
PERMISSIONS = {"run_shell_command": "bash", "ShellTool": "bash", "read_file": "read",
               "read_many_files": "read", "replace": "edit", "write_file": "edit", "glob": "glob",
               "grep_search": "grep", "search_file_content": "grep", "list_directory": "list",
               "web_fetch": "webfetch", "google_web_search": "websearch", "write_todos": "todowrite",
               "*": "*"}
ACTION = {"allow": "allow", "deny": "deny", "ask_user": "ask"}
_NAMED = lazy(r"([A-Za-z0-9_-]+)\((.*)\)", re.DOTALL)


def read(cwd: Path, env: Mapping[str, str]) -> GeminiSettings:
    from forge_tools.runtimes.gemini.settings import read_settings

    return read_settings(cwd, env)


def permission(tool: str) -> str:
    """The gate's permission for a Gemini tool name (an MCP name as the gate's MCP id; a tool the gate
    does not have keeps Gemini's name)."""
    if tool in PERMISSIONS:
        return PERMISSIONS[tool]
    if tool.startswith("mcp_") and not tool.startswith("mcp__"):
        from forge_tools.sources.mcp_source import sanitize

        server, _, name = tool[len("mcp_"):].partition("_")
        if server and server != "*" and name:
            return f"{sanitize(server)}_{'*' if name == '*' else sanitize(name)}"
    return tool


def _base(settings: GeminiSettings) -> list[tuple[str, str]]:
    mode = settings.mode
    no_rule = "ask" if settings.interactive else "deny"
    if mode == "yolo":
        return []
    if mode == "plan":
        return [("bash", "deny"), ("edit", "deny"), ("webfetch", no_rule)]
    asked = ["bash", "webfetch"] + ([] if mode == "autoEdit" else ["edit"])
    return [(p, no_rule) for p in asked]


def translate(settings: GeminiSettings, root: Path) -> Translation:
    from forge_tools.origin import Origin
    from forge_tools.rule import Rule
    from forge_tools.runtimes.gate_rules import Rules

    out = Rules()
    why = Origin("default", name=f"Gemini CLI {settings.mode} mode, where no rule decides")
    out.base.extend(Rule(p, "*", a, why) for p, a in _base(settings))  # type: ignore[arg-type]
    for rule in settings.rules:
        if rule.origin is None or rule.origin.kind == "default":
            continue  # Gemini's own defaults: the base says them
        _add(out, rule, settings)
    for file in settings.policy:  # a file Gemini does not load: its denies and asks, as meant
        if file.loaded:
            continue
        from forge_tools.runtimes.gemini.policy_files import read_policy_file

        for rule in read_policy_file(file.path, file.tier, []).rules:
            if rule.decision != "allow" and rule.origin is not None:
                out.untranslated.append(f"Gemini rule {rule.text or rule.tool_name} {rule.decision} at "
                                        f"{rule.origin}: Gemini does not load it ({file.why_not}); "
                                        "the gate does")
                _add(out, rule, settings)
    return out.done("gemini")


def _add(out: object, rule: GeminiRule, settings: GeminiSettings) -> None:
    from forge_tools.runtimes.gate_rules import Rules, prefix_patterns

    assert isinstance(out, Rules) and rule.origin is not None
    action = ACTION.get(rule.decision)
    if action is None:
        return
    if rule.modes is not None and settings.mode not in rule.modes:
        return  # not this session's mode
    if action == "allow" and rule.interactive is not None and rule.interactive != settings.interactive:
        return
    what = f"Gemini rule {rule.text or rule.tool_name} {rule.decision}"
    rank = rule.priority
    tool, prefixes = rule.tool_name, rule.command_prefix
    named = _NAMED().fullmatch(tool)
    if named is not None:  # `run_shell_command(rm)` in tools.exclude: a deny of that prefix, as meant
        tool, prefixes = named.group(1), (named.group(2),)
    gate = permission(tool)
    if tool.startswith("mcp_") and gate == tool:  # `mcp_*`: every MCP tool, which no gate name says
        out.cover("*", action, rule.origin, what, rank=rank)  # type: ignore[arg-type]
        return
    if prefixes:
        patterns: list[str] = []
        for prefix in prefixes:
            found, covering = prefix_patterns([(t,) for t in prefix.split()])
            if found is None:
                out.cover(gate, action, rule.origin, what, covering, rank)  # type: ignore[arg-type]
            else:
                patterns += found
        out.add(gate, patterns, action, rule.origin, rank)  # type: ignore[arg-type]
        return
    if rule.args_pattern is not None:
        out.cover(gate, action, rule.origin, what, rank=rank)  # type: ignore[arg-type]
        return
    out.add(gate, ["*"], action, rule.origin, rank)  # type: ignore[arg-type]
