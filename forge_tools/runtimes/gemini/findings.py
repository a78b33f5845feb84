"""`check`'s findings about a project's Gemini CLI files (FT341-FT347), each at the file:line:col of
the file, setting or `[[rule]]`. Whether a rule matches is asked of the gemini runtime's own matcher
and engine (`policy.js_test`, `engine.Engine`), never assumed; nothing is run."""

from __future__ import annotations

import difflib
from typing import TYPE_CHECKING

from forge_tools.origin import Origin
from forge_tools.report.findings import Finding
from forge_tools.runtimes.gemini.codes import FIXES, LEVELS
from forge_tools.runtimes.gemini.policy import SHELL, WORKSPACE_TIER, js_test, stable_stringify

if TYPE_CHECKING:
    from forge_tools.runtimes.gemini.engine import Engine
    from forge_tools.runtimes.gemini.policy import GeminiRule
    from forge_tools.runtimes.gemini.settings import GeminiSettings

_PUNCTUATION = ":=/-.,;+@"
def _finding(code: str, message: str, origin: Origin | None) -> Finding:
    return Finding(code, LEVELS[code], message, FIXES[code], origin)


def gemini_findings(settings: GeminiSettings) -> list[Finding]:

    found: list[Finding] = []
    for problem in settings.problems:
        if problem.kind == "shell-syntax":
            found.append(_finding("FT346", f"Gemini CLI policy: {problem.message}",
                                 problem.origin))
        elif problem.severity == "error":
            found.append(_finding("FT341", f"Gemini CLI: {problem.message}",
                                 problem.origin))
    if settings.start_error is not None:
        return found
    found += _not_loaded(settings)
    found += _narrowing(settings)
    found += _core_beats_deny(settings)
    found += _never_matches(settings)
    found += _unknown_tools(settings)
    return found


def _file(path: object) -> Origin:
    return Origin("file", str(path), 1, 1)


def _not_loaded(settings: GeminiSettings) -> list[Finding]:

    out = []
    for policy in settings.policy:
        if policy.loaded or not policy.by_directory:
            continue
        if policy.tier == WORKSPACE_TIER:
            out.append(_finding("FT342",
                               f"Gemini CLI 0.61 does not load workspace policies: the rules of "
                               f"{policy.path.name} never apply (disableWorkspacePolicies in the released "
                               "CLI)",
                               _file(policy.path)))
        else:
            out.append(_finding("FT343",
                               f"Gemini CLI does not load {policy.path}: {policy.why_not}",
                               _file(policy.path)))
    fatal_or_broken = {str(p.origin.path) for p in settings.problems if p.severity == "error"}
    for f in settings.files:
        if f.exists and not f.loaded and str(f.path) not in fatal_or_broken:
            out.append(_finding("FT343", f"Gemini CLI does not read {f.path}: {f.why_not}", _file(f.path)))
    return out


def _engine(settings: GeminiSettings) -> Engine:
    from forge_tools.runtimes.gemini.engine import Engine

    return Engine(settings)


def _shell_allows(settings: GeminiSettings) -> list[GeminiRule]:
    return [r for r in settings.rules if r.tool_name == SHELL and r.decision == "allow"
            and r.command_prefix and r.source.startswith("User:")]


def _narrowing(settings: GeminiSettings) -> list[Finding]:

    label = "Settings (Tools Allowed) (Narrowing Enforcement)"
    enforcement = next((r for r in settings.rules if r.source == label), None)
    if enforcement is None:
        return []
    engine = _engine(settings)
    lost: dict[str, None] = {}
    for rule in _shell_allows(settings):
        for prefix in rule.command_prefix or ():
            decision = engine.check(SHELL, {"command": prefix})
            if decision.rule is enforcement:
                lost.setdefault(f"`{prefix}` (allowed by {rule.origin})")
    entries = [r for r in settings.rules if r.source == "Settings (Tools Allowed)" and r.command_prefix]
    said = ", ".join(f"`{p}`" for r in entries for p in r.command_prefix or ())
    denied = f"; so the user policy allows of {', '.join(lost)} are denied" if lost else ""
    return [_finding("FT344",
                    f"tools.allowed gives run_shell_command arguments ({said}): Gemini CLI then denies every "
                    f"other shell call at priority 4.29, above every user policy allow{denied}",
                    enforcement.origin)]


def _core_beats_deny(settings: GeminiSettings) -> list[Finding]:

    if not any(r.source == "Settings (Core Tools)" for r in settings.rules):
        return []
    engine = _engine(settings)
    out = []
    for rule in settings.rules:
        if rule.decision != "deny" or not rule.source.startswith("User:"):
            continue
        probes = ([(SHELL, {"command": p}) for p in rule.command_prefix] if rule.command_prefix
                  else [(rule.tool_name, {})] if not rule.args_pattern and "*" not in rule.tool_name else [])
        for tool, args in probes:
            decision = engine.check(tool, args)
            core = decision.rule
            if decision.decision == "allow" and core is not None and core.source == "Settings (Core Tools)":
                what = f"`{args['command']}`" if "command" in args else tool
                out.append(_finding("FT345",
                                   f"this deny (priority {rule.priority:g}) never decides {what}: "
                                   f"{core.text} allows it first at 4.25 (at {core.origin})", rule.origin))
                break
    return out


def _prefix_probe(prefix: str) -> tuple[str, str] | None:
    """(a command the prefix was surely meant to match, why it does not) for a prefix that cannot
    match as written; None for a usable prefix."""
    if any(c in prefix for c in "*?"):
        stem = prefix.split("*")[0].split("?")[0].rstrip()
        return f"{stem} x".strip(), "written as a glob: Gemini matches `*` and `?` literally"
    if prefix[-1:].isspace():
        return f"{prefix.rstrip()} x", ("it ends in a blank, and Gemini needs another blank after the "
                                        "prefix")
    if prefix[-1:] in _PUNCTUATION:
        return f"{prefix}unit", ("it ends in punctuation, and Gemini needs a blank, a quote or the end "
                                 "after a prefix")
    return None


def _never_matches(settings: GeminiSettings) -> list[Finding]:

    out = []
    seen: set[tuple[str, object]] = set()
    for rule in settings.rules:
        if rule.origin is None or rule.origin.kind != "file":
            continue
        for prefix in rule.command_prefix or ():
            probe = _prefix_probe(prefix)
            if probe is None or rule.args_pattern is None or (prefix, rule.origin) in seen:
                continue
            command, why = probe
            if js_test(rule.args_pattern, stable_stringify({"command": command})):
                continue
            seen.add((prefix, rule.origin))
            out.append(_finding("FT346",
                               f"commandPrefix {prefix!r} cannot match as written ({why}): `{command}` is "
                               "not matched", rule.origin))
        if rule.args_pattern and rule.args_pattern.startswith('"command":"^'):
            out.append(_finding("FT346",
                               "commandRegex starts with `^`, but Gemini puts it after `\"command\":\"`: it "
                               "can never match", rule.origin))
        if rule.mcp_name == "*" and rule.tool_name.startswith("mcp_*_"):
            out.append(_finding("FT346",
                               f"mcpName = \"*\" with toolName {rule.tool_name[6:]!r} gives "
                               f"{rule.tool_name}, which no MCP tool is called: the rule never matches",
                               rule.origin))
    return out


def _unknown_tools(settings: GeminiSettings) -> list[Finding]:
    from forge_tools.runtimes.gemini.tools import BUILTIN, known

    out = []
    seen: set[tuple[str, object]] = set()
    for rule in settings.rules:
        if rule.origin is None or rule.origin.kind != "file" or rule.mcp_name is not None:
            continue
        name = rule.tool_name
        if known(name) or (name, rule.origin) in seen:
            continue
        seen.add((name, rule.origin))
        close = difflib.get_close_matches(name, BUILTIN, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        out.append(_finding("FT347",
                           f"Gemini CLI has no tool {name!r}{hint}: this rule matches nothing",
                           rule.origin))
    return out
