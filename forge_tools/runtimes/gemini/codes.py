"""The fix and level of each Gemini CLI finding code (FT341-FT347), in one light module: the
codes' records (check/rules/ft34x_*.py) and the producer (`findings.py`) both read it."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from forge_tools.report.findings import Level

#: each code's fix, in a sentence (its record, check/rules/ft34x_*.py, reads it from here)
FIXES: dict[str, str] = {
    "FT341": (
        'Fix the file or rule at the reported position; Gemini only prints a warning at start-up '
        '(and in a headless run nobody reads it).'
    ),
    "FT342": (
        'Put the rules in ~/.gemini/policies (user tier) or the admin directory, or express them as '
        'settings (tools.exclude, tools.allowed) in .gemini/settings.json.'
    ),
    "FT343": (
        'Trust the folder (~/.gemini/trustedFolders.json or the trust dialog), fix the owner and '
        'mode of the system files, or move the rules where Gemini reads them.'
    ),
    "FT344": (
        'List the command in a user policy allow rule (commandPrefix) instead, or give every command '
        'the project needs in tools.allowed.'
    ),
    "FT345": (
        "Raise the deny's priority above 250, or take the tool (or command) out of tools.core."
    ),
    "FT346": (
        'Write the prefix as the words before a blank (`npm run test`), use commandRegex for more, '
        'and give MCP rules a server name.'
    ),
    "FT347": (
        "Use Gemini's tool name (run_shell_command, read_file, write_file, replace, glob, "
        'grep_search, web_fetch, ...) or mcp_<server>_<tool>.'
    ),
}
LEVELS: dict[str, Level] = {"FT341": "error", **dict.fromkeys(
    ("FT342", "FT343", "FT344", "FT345", "FT346", "FT347"), "warning")}
