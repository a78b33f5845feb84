"""Claude Code 2.1.332's tools: the names it offers the model, which it defers behind ToolSearch,
which ask for permission, and what a bare-name deny hides.

Reproduced from its `system/init` event and the API request of a session with no settings
(tests/compat/claude): `OFFERED` in its order; `DEFERRED` are offered by name only (the model loads
them through ToolSearch). A loaded `deny` rule naming a tool with no content (`"WebFetch"`,
`"mcp__srv"`, `"mcp__srv__*"`) removes it from both lists, `Write` too (`bare-deny-tools`; an
older survey said Write stays offered: the 2.1.332 records show it removed).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from forge_tools.named_tuple import NamedTuple
from forge_tools.runtimes.claude.rules import ALIASES, tool_rule_matches

if TYPE_CHECKING:
    from forge_tools.runtimes.claude.settings import ClaudeRule, ClaudeSettings

#: as the init event lists them (it still says Task for Agent)
OFFERED: tuple[str, ...] = (
    "Task", "Bash", "CronCreate", "CronDelete", "CronList", "Edit", "EnterWorktree", "ExitWorktree",
    "ListAgents", "Monitor", "NotebookEdit", "Read", "ReportFindings", "ScheduleWakeup", "SendMessage",
    "Skill", "TaskStop", "ToolSearch", "WebFetch", "WebSearch", "Workflow", "Write",
)
#: offered by name only: the model loads them through ToolSearch
DEFERRED = frozenset({"Task", "CronCreate", "CronDelete", "CronList", "EnterWorktree", "ExitWorktree",
                      "Monitor", "NotebookEdit", "SendMessage", "TaskStop", "WebFetch", "WebSearch"})
#: every name a rule may name: the offered tools, their current names and the tools Claude has
#: in other configurations (Glob and Grep with no ripgrep-backed shell, TodoWrite, ...)
KNOWN = frozenset({*OFFERED, *ALIASES, *ALIASES.values(), "Agent", "Glob", "Grep", "LS", "MultiEdit",
                   "NotebookRead", "TodoWrite", "TodoRead", "ExitPlanMode", "EnterPlanMode",
                   "BashOutput", "AskUserQuestion", "SlashCommand", "PowerShell", "Cd",
                   "ListMcpResourcesTool", "ReadMcpResourceTool", "SendUserMessage", "SetGoal"})
#: tools that never ask for permission (Claude answers allow without a rule)
NO_PERMISSION = frozenset({"Read", "Glob", "Grep", "LS", "NotebookRead", "ToolSearch", "TodoWrite",
                           "TodoRead", "Agent", "Task", "ListAgents", "TaskStop", "ExitPlanMode",
                           "EnterPlanMode", "AskUserQuestion", "CronList", "Monitor", "ReportFindings",
                           "Workflow", "ScheduleWakeup", "SendMessage", "Skill", "CronCreate",
                           "CronDelete", "EnterWorktree", "ExitWorktree", "BashOutput"})
NOT_HIDDEN_BY_DENY: frozenset[str] = frozenset()
#: offered only when Bash is not (Claude's search tools stand in for the shell's grep and find)
WITHOUT_BASH = ("Glob", "Grep")
#: offered only with Bash
WITH_BASH = frozenset({"Monitor"})


def canonical(name: str) -> str:
    """The name Claude decides a call under (`Task` is `Agent`)."""
    return ALIASES.get(name, name)


_OFFERED_CANONICAL = frozenset(canonical(n) for n in OFFERED)


class Offer(NamedTuple):
    name: str
    offered: bool
    deferred: bool
    hidden_by: ClaudeRule | None  # the bare deny that removes it


def hiding_rule(settings: ClaudeSettings, name: str) -> ClaudeRule | None:
    """The loaded bare-name deny that removes `name` from what the model is offered, if any."""
    tool = canonical(name)
    if tool in NOT_HIDDEN_BY_DENY:
        return None
    for rule in settings.loaded_rules:
        if rule.behavior == "deny" and rule.content is None and tool_rule_matches(rule.tool, tool):
            return rule
    return None


def is_builtin(settings: ClaudeSettings, name: str) -> bool:
    """Whether `name` (canonical) is one of this session's built-in tools, hidden or not: Glob and
    Grep only when a bare deny removes Bash (`bare-bash-deny-grep-glob`), Monitor only with Bash."""
    if name in WITHOUT_BASH or name in WITH_BASH:
        return (hiding_rule(settings, "Bash") is not None) == (name in WITHOUT_BASH)
    return name in _OFFERED_CANONICAL


def offers(settings: ClaudeSettings, mcp_tools: tuple[str, ...] = ()) -> list[Offer]:
    """Every tool with whether the model is offered it, in the order of Claude's init event (Task
    first, then by name), MCP tools `mcp__server__tool` after the built-in ones."""
    found: list[Offer] = []
    if settings.start_error is not None:
        return found
    bash_hidden = hiding_rule(settings, "Bash")
    builtin = [n for n in OFFERED if not (bash_hidden is not None and n in WITH_BASH)]
    if bash_hidden is not None:
        builtin += [n for n in WITHOUT_BASH if n not in builtin]
    builtin = ["Task", *sorted(n for n in builtin if n != "Task")]
    for name in (*builtin, *mcp_tools):
        rule = hiding_rule(settings, name) if name not in WITH_BASH else bash_hidden
        found.append(Offer(name, rule is None, name in DEFERRED or name.startswith("mcp__"), rule))
    return found


def offered_names(settings: ClaudeSettings, mcp_tools: tuple[str, ...] = ()) -> list[str]:
    return [o.name for o in offers(settings, mcp_tools) if o.offered]


#: each tool's required string inputs (from the package's sdk-tools.d.ts) and minimum lengths the
#: binary was seen to enforce (WebSearch's query: 2)
REQUIRED: dict[str, tuple[str, ...]] = {
    "Bash": ("command",), "Read": ("file_path",), "Edit": ("file_path", "old_string", "new_string"),
    "Write": ("file_path", "content"), "WebFetch": ("url", "prompt"), "WebSearch": ("query",),
    "NotebookEdit": ("notebook_path", "new_source"), "Glob": ("pattern",), "Grep": ("pattern",),
}
MIN_LENGTH: dict[tuple[str, str], int] = {("WebSearch", "query"): 2}
#: tools that refuse a file not read earlier in the session (a decision of one call has read nothing)
READ_FIRST = frozenset({"NotebookEdit"})


def input_problem(tool: str, args: dict[str, object]) -> str | None:
    """Why Claude's input validation refuses the call before any permission is asked, or None."""
    for key in REQUIRED.get(tool, ()):
        value = args.get(key)
        if not isinstance(value, str):
            return f"InputValidationError: {tool} needs the string input {key!r}"
        least = MIN_LENGTH.get((tool, key))
        if least is not None and len(value) < least:
            return f"InputValidationError: {tool}'s {key!r} must be at least {least} characters"
    if tool in READ_FIRST:
        return (f"{tool} refuses a file that has not been read yet in the session (Read it first); "
                "no permission is asked")
    return None
