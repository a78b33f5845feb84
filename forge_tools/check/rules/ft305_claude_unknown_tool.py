"""FT305 claude-unknown-tool: Claude Code's settings, found by `runtimes/claude/findings.py`
for a project with Claude Code settings (`runtimes/claude/files.findings`, run by
`check.run.runtime_findings`)."""

from forge_tools.report.codeinfo import CodeInfo

RULE = CodeInfo(
    code='FT305',
    name='claude-unknown-tool',
    level='warning',
    summary='A Claude Code rule names a tool Claude Code 2.1.332 does not have: it never applies.',
    help='Fix the tool name (the message suggests the closest one).',
    why=(
        "A rule naming a tool Claude Code does not have (a typo, another agent's name) never "
        'applies.'
    ),
    example='{"permissions": {"deny": ["Webfetch"]}}',
    fixed='{"permissions": {"deny": ["WebFetch"]}}',
    kind="source",
    check="forge_tools.runtimes.claude.files:findings",
)
