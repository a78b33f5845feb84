"""FT301 claude-settings-unusable: Claude Code's settings, found by `runtimes/claude/findings.py`
for a project with Claude Code settings (`runtimes/claude/files.findings`, run by
`check.run.runtime_findings`)."""

from forge_tools.report.codeinfo import CodeInfo

RULE = CodeInfo(
    code='FT301',
    name='claude-settings-unusable',
    level='error',
    summary=(
        'A Claude Code settings file or rule that Claude Code cannot use: not strict JSON, a value '
        'of the wrong type, a rule it rejects (`bash(ls)`, `WebFetch(https://...)`), an unknown '
        'mode.'
    ),
    help=(
        'Fix it at the reported position; Claude Code skips it without a word in a non-interactive '
        'session.'
    ),
    why=(
        'Claude Code skips a settings file it cannot parse and a rule it rejects; in a headless '
        'session nobody is told, so the rules meant are silently missing.'
    ),
    example='{"permissions": {"allow": ["bash(ls)"]}}  // .claude/settings.json',
    fixed='{"permissions": {"allow": ["Bash(ls)"]}}',
    kind="source",
    check="forge_tools.runtimes.claude.files:findings",
)
