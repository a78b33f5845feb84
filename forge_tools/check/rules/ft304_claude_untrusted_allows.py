"""FT304 claude-untrusted-allows: Claude Code's settings, found by `runtimes/claude/findings.py`
for a project with Claude Code settings (`runtimes/claude/files.findings`, run by
`check.run.runtime_findings`)."""

from forge_tools.report.codeinfo import CodeInfo

RULE = CodeInfo(
    code='FT304',
    name='claude-untrusted-allows',
    level='warning',
    summary=(
        'A Claude Code allow rule of .claude/settings.json that is not loaded: the workspace has '
        'not been trusted (hasTrustDialogAccepted).'
    ),
    help='Accept the trust dialog in Claude Code, or move the rule to .claude/settings.local.json.',
    why=(
        'In a workspace whose trust dialog was not accepted, Claude Code does not load the allow '
        'rules of .claude/settings.json (its deny and ask rules it does load).'
    ),
    example="",
    fixed="",
    kind="source",
    check="forge_tools.runtimes.claude.files:findings",
)
