"""FT302 claude-colon-star-inside: Claude Code's settings, found by `runtimes/claude/findings.py`
for a project with Claude Code settings (`runtimes/claude/files.findings`, run by
`check.run.runtime_findings`)."""

from forge_tools.report.codeinfo import CodeInfo

RULE = CodeInfo(
    code='FT302',
    name='claude-colon-star-inside',
    level='warning',
    summary=(
        'A Claude Code Bash rule whose `:*` is not at the end (a `:` and a wildcard, not a prefix),'
        ' or whose prefix holds a `*` (matched literally): it cannot match as written.'
    ),
    help='Put `:*` at the end, or write the wildcard with a space (`Bash(git push *)`).',
    why=(
        'Claude Code reads `:*` as a prefix only at the very end of a Bash rule; elsewhere it is a '
        '`:` and a wildcard, and a `*` inside a prefix is literal.'
    ),
    example='{"permissions": {"deny": ["Bash(git push:* --force)"]}}',
    fixed='{"permissions": {"deny": ["Bash(git push * --force)"]}}',
    kind="source",
    check="forge_tools.runtimes.claude.files:findings",
)
