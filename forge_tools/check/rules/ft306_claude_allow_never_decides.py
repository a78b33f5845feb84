"""FT306 claude-allow-never-decides: Claude Code's settings, found by `runtimes/claude/findings.py`
for a project with Claude Code settings (`runtimes/claude/files.findings`, run by
`check.run.runtime_findings`)."""

from forge_tools.report.codeinfo import CodeInfo

RULE = CodeInfo(
    code='FT306',
    name='claude-allow-never-decides',
    level='warning',
    summary=(
        'A Claude Code allow rule that a deny or ask rule covers: deny > ask > allow whatever the '
        'file, so it never decides.'
    ),
    help=(
        'Remove the allow rule, or narrow the deny/ask rule (Claude Code has no allow-exception '
        'inside a deny).'
    ),
    why=(
        "Claude Code merges every file's rules and a deny or ask always beats an allow, so an allow"
        " inside a broader deny never decides (unlike opencode's last match)."
    ),
    example='{"permissions": {"deny": ["Bash(git *)"], "allow": ["Bash(git status)"]}}',
    fixed='{"permissions": {"deny": ["Bash(git push *)"], "allow": ["Bash(git status)"]}}',
    kind="source",
    check="forge_tools.runtimes.claude.files:findings",
)
