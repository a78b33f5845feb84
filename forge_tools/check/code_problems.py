"""Findings for project code that `check --load-code` imported or started: tool scripts (FT009),
plugins (FT010) and MCP servers that could not be used (FT011), each at the file and line concerned
when that can be known.

A plugin problem is an error, not a warning like a broken script: a script that fails only takes its
tools away, but a plugin may hold `tool_execute_before` hooks that block calls, and a plugin that does
not load leaves the project running without them.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from forge_tools.check.config_errors import finding_for
from forge_tools.errors import ConfigError, ConfigWarning, ForgeToolsError, McpServerUnavailable, PluginError
from forge_tools.origin import Origin
from forge_tools.report.findings import Finding, Related

if TYPE_CHECKING:
    from forge_tools.config.loader import LoadedConfig

SCRIPT_HINT = "fix the script; until then it registers no tool"
PLUGIN_HINT = "fix the plugin; until then forge-tools runs without its tools and hooks"
MCP_HINT = ("start or fix the server; until then its tools are missing (ignore FT011 where an outage must "
            "not fail the check)")
MISSING_PLUGIN_HINT = ("create the file or fix the entry (a relative path starts at the folder of the config "
                       "file that lists it); until then forge-tools runs without its tools and hooks")


def problem_findings(problems: list[ForgeToolsError], loaded: LoadedConfig) -> list[Finding]:
    """One finding per problem: FT010 for plugins, FT009 for tool scripts, FT011 for an MCP server
    that could not be used, a config code otherwise."""
    refs = _plugin_refs(loaded) if any(isinstance(p, PluginError) for p in problems) else {}
    written: dict[Origin | None, str] = {s.origin: s.spec for s in loaded.plugin_specs}
    findings: list[Finding] = []
    for problem in problems:
        if isinstance(problem, ConfigWarning):
            continue  # `check` reports the config's warnings itself (check.run), with or without code
        if isinstance(problem, PluginError):
            ref = refs.get((problem.plugin, problem.origin)) or refs.get((problem.plugin, None))
            findings.append(plugin_finding(problem, ref, written.get(problem.origin)))
        elif isinstance(problem, McpServerUnavailable):
            findings.append(Finding("FT011", "warning", problem.message, MCP_HINT, problem.origin))
        elif isinstance(problem, ConfigError) and _is_script(problem.origin):
            findings.append(script_finding(problem))
        elif isinstance(problem, ConfigError):
            findings.append(finding_for(problem))
        else:
            findings.append(Finding("FT008", "error", problem.one_line(), "follow the message"))
    return findings


def script_problems(problems: list[ForgeToolsError]) -> list[ForgeToolsError]:
    """Of a turn's source problems, the scripts the static scan could not read (FT009 without
    `--load-code`)."""
    from forge_tools.sources.candidates import ScriptProblem

    return [p for p in problems if isinstance(p, ScriptProblem)]


def _is_script(origin: Origin | None) -> bool:
    path = origin.path if origin is not None and origin.kind == "file" else None
    return (path or "").endswith((".py", ".ts", ".js"))  # Python scripts and opencode's TS/JS tools


def script_finding(problem: ConfigError) -> Finding:
    """FT009 at the script's line; a syntax error at its line and column, as the static scan gives it."""
    from forge_tools.sources.static_scripts import scan_script

    origin = problem.origin
    message = problem.message
    if origin is not None and origin.path and "SyntaxError" in message:
        _tools, syntax = scan_script(Path(origin.path))
        if syntax is not None:
            message = syntax.message
            origin = Origin("file", origin.path, syntax.line, syntax.column)
    return Finding("FT009", "warning", message, SCRIPT_HINT, origin)


def _plugin_refs(loaded: LoadedConfig) -> dict[tuple[str, Origin | None], Any]:
    """Each plugin by the name and listing its problems carry, and by name alone (`(name, None)`): two
    plugin files of the same name in different folders stay apart. Discovery reads names only."""
    from forge_tools.sources.plugin_refs import discover

    refs, _bad = discover(list(loaded.config_dirs), list(loaded.plugin_specs))
    by_key: dict[tuple[str, Origin | None], Any] = {}
    for ref in refs:
        by_key.setdefault((ref.name, ref.origin), ref)
        by_key.setdefault((ref.name, None), ref)
    return by_key


def plugin_finding(problem: PluginError, ref: Any, written: str | None = None) -> Finding:
    """FT010 at the plugin file (the line of a syntax error, or of the hook the message names), with
    where it was listed as a related location; at the listing itself for a module plugin, and for a
    plugin file that does not exist (a location there is one GitHub and SARIF viewers cannot show).
    `written` is the `plugin` entry as written, named in the message of a missing file."""
    message = f"plugin {problem.plugin}: {problem.message}"
    path: Path | None = getattr(ref, "path", None)
    if path is None:
        return Finding("FT010", "error", message, PLUGIN_HINT, problem.origin)
    listed = getattr(ref, "origin", None)
    if not path.is_file() and isinstance(listed, Origin) and getattr(ref, "kind", None) == "config":
        what = "is not a file" if path.exists() else "does not exist"
        shown = written if written is not None else str(path)
        message = f"plugin {problem.plugin}: the plugin file {shown!r} listed in `plugin` {what}"
        return Finding("FT010", "error", message, MISSING_PLUGIN_HINT, listed)
    line, column, syntax = _line_in(path, problem.message)
    if syntax is not None:  # the static parse says it without the temp-looking absolute path
        message = f"plugin {problem.plugin}: cannot import: {syntax}"
    origin = Origin("file", str(path), line, column)
    related: tuple[Related, ...] = ()
    if getattr(ref, "kind", None) == "config" and isinstance(listed, Origin):
        related = (Related("listed in `plugin` at", listed),)
    return Finding("FT010", "error", message, PLUGIN_HINT, origin, related)


def _line_in(path: Path, message: str) -> tuple[int | None, int | None, str | None]:
    from forge_tools.sources.static_scripts import scan_script, top_level_definitions

    if "SyntaxError" in message:
        _tools, syntax = scan_script(path)
        if syntax is not None:
            return syntax.line, syntax.column, syntax.message.replace("tool script has a ", "")
    definitions = top_level_definitions(path)
    named = [(message.find(name), name) for name in definitions
             if re.search(rf"(?<![\w.]){re.escape(name)}(?![\w])", message)]
    if named:
        return (*definitions[min(named)[1]], None)
    return None, None, None
