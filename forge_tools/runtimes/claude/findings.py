"""`check`'s findings about a project's Claude Code settings that Claude's own tools do not give
(FT301-FT307), each at the rule's file:line:col. Nothing is run: every command a finding names is
decided by the claude runtime (`decide.py`), as Claude Code 2.1.332 would decide it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from forge_tools.report.findings import Finding
from forge_tools.runtimes.claude.rules import (
    PATH_TOOLS,
    bash_matches,
    bash_pattern,
    colon_star_inside,
    tool_rule_matches,
)
from forge_tools.runtimes.claude.tools import KNOWN

if TYPE_CHECKING:
    from forge_tools.runtimes.claude.settings import ClaudeRule, ClaudeSettings


def claude_findings(settings: ClaudeSettings) -> list[Finding]:
    found: list[Finding] = []
    for origin, message in settings.problems:
        found.append(Finding("FT301", "error", f"Claude Code settings: {message}",
                             "fix the file or the rule at the reported position; until then Claude Code "
                             "skips it without a word in a non-interactive session", origin))
    for rule in settings.rules:
        if rule.spec.problem is not None:
            continue
        found += _rule_findings(settings, rule)
    found += _dead_allows(settings)
    found += _spelled_around(settings)
    return found


def _rule_findings(settings: ClaudeSettings, rule: ClaudeRule) -> list[Finding]:
    out: list[Finding] = []
    tool, content = rule.tool, rule.content
    if tool == "Bash" and content is not None:
        kind, text = bash_pattern(content)
        if kind == "prefix" and "*" in text:
            out.append(Finding("FT302", "warning",
                               f"Claude Code rule {rule.text!r}: a `*` before the trailing `:*` is matched "
                               "as a literal `*` (a prefix is never a wildcard), so this rule can only "
                               "match a command that contains a `*` there",
                               f"write it as a wildcard: Bash({text.replace(':*', '')} *)", rule.origin))
        elif colon_star_inside(content):
            out.append(Finding("FT302", "warning",
                               f"Claude Code rule {rule.text!r}: `:*` is a prefix only at the end of the "
                               "rule; here it is a `:` followed by a wildcard, so `"
                               f"{content.replace(':*', ' ')}` is not matched",
                               "put `:*` at the end, or write the wildcard with a space: `cmd *`",
                               rule.origin))
    if tool == "Write" and content is not None:
        out.append(Finding("FT303", "warning",
                           f"Claude Code rule {rule.text!r}: Write(path) rules are never consulted for "
                           "paths; Claude Code decides Write by Edit(...) rules",
                           f"write Edit({content}) instead", rule.origin))
    if rule.why_not is not None and "trusted" in rule.why_not:
        out.append(Finding("FT304", "warning",
                           f"Claude Code ignores the allow rule {rule.text!r}: this workspace has not been "
                           "trusted (hasTrustDialogAccepted), so the allow rules of .claude/settings.json "
                           "are not loaded; deny and ask rules are",
                           "accept the workspace's trust dialog in Claude Code, or move the rule to "
                           ".claude/settings.local.json (loaded untrusted)", rule.origin))
    if not tool.startswith("mcp__") and "*" not in tool and tool not in KNOWN:
        from forge_tools.visibility.call_decision import did_you_mean

        out.append(Finding("FT305", "warning",
                           f"Claude Code rule {rule.text!r}: {tool!r} is not a tool of Claude Code 2.1.332"
                           f"{did_you_mean(tool, sorted(KNOWN))}, so the rule never applies",
                           "fix the tool name", rule.origin))
    return out


def _covers(strict: ClaudeRule, allow: ClaudeRule) -> bool:
    """Whether the deny/ask rule `strict` decides every call the allow rule `allow` would."""
    if not tool_rule_matches(strict.tool, allow.tool) and not (
            strict.tool == "Edit" and allow.tool in ("Write", "NotebookEdit")):
        return False
    if strict.content is None:
        return True
    if allow.content is None:
        return False
    if strict.tool == "Bash":
        kind, text = bash_pattern(allow.content)
        if kind == "exact":
            return bash_matches(strict.content, text)
        if kind == "prefix":
            skind, stext = bash_pattern(strict.content)
            return (skind == "prefix" and (text == stext or text.startswith(stext + " "))) or (
                skind == "wildcard" and bash_matches(strict.content, text) and
                bash_matches(strict.content, text + " x"))
        return strict.content == allow.content
    if strict.tool in PATH_TOOLS or strict.tool == "WebFetch":
        return strict.content == allow.content
    return False


def _dead_allows(settings: ClaudeSettings) -> list[Finding]:
    out: list[Finding] = []
    rules = settings.loaded_rules
    for allow in (r for r in rules if r.behavior == "allow"):
        strict = next((r for r in rules if r.behavior in ("deny", "ask") and _covers(r, allow)), None)
        if strict is None:
            continue
        out.append(Finding("FT306", "warning",
                           f"Claude Code allow rule {allow.text!r} can never decide: the {strict.behavior} "
                           f"rule {strict.text!r} ({strict.origin}) covers every call it allows, and in "
                           "Claude Code deny > ask > allow whatever the file",
                           "remove the allow rule, or narrow the deny/ask rule if the allow was meant to "
                           "win (Claude Code has no allow-exception inside a deny)", allow.origin))
    return out


def _spelled_around(settings: ClaudeSettings) -> list[Finding]:
    """FT307: each Bash deny/ask rule's command written the other known ways, decided by Claude; the
    spellings Claude then runs unasked are listed (the FT116 idea under Claude's lowering)."""
    from forge_tools.runtimes.claude.decide import decide
    from forge_tools.tools.spellings import example_command, other_spellings

    out: list[Finding] = []
    for rule in settings.loaded_rules:
        if rule.tool != "Bash" or rule.behavior == "allow" or rule.content is None:
            continue
        kind, text = bash_pattern(rule.content)
        command = text if kind == "prefix" else example_command(rule.content)
        if command is None or not command.strip():
            continue
        if decide(settings, "Bash", {"command": command}).behavior != rule.behavior:
            continue  # the rule does not decide its own command (another rule does)
        through = [form for form in other_spellings(command)
                   if decide(settings, "Bash", {"command": form}).behavior == "allow"]
        if not through:
            continue
        shown = ", ".join(f"`{f}`" for f in through[:8]) + (" ..." if len(through) > 8 else "")
        out.append(Finding("FT307", "warning",
                           f"Claude Code {rule.behavior} rule {rule.text!r} is got around: Claude Code "
                           f"2.1.332 runs {shown} without asking",
                           "deny the spellings too, or make Bash an allow-list (allow only the commands "
                           "meant); forge-tools' gate (`forge-tools run`) resolves most of them",
                           rule.origin, data={"forms": through}))
    return out
