"""FT303 claude-write-path-rule: Claude Code's settings, found by `runtimes/claude/findings.py`
for a project with Claude Code settings (`runtimes/claude/files.findings`, run by
`check.run.runtime_findings`)."""

from forge_tools.report.codeinfo import CodeInfo

RULE = CodeInfo(
    code='FT303',
    name='claude-write-path-rule',
    level='warning',
    summary='A Claude Code `Write(path)` rule: Claude Code never consults Write rules for paths.',
    help='Write `Edit(path)`: Edit rules decide Edit, Write and NotebookEdit.',
    why=(
        'Claude Code decides its file-writing tools by Edit(...) rules; a Write(path) rule is never'
        ' consulted, so a deny there protects nothing.'
    ),
    example='{"permissions": {"deny": ["Write(.env)"]}}',
    fixed='{"permissions": {"deny": ["Edit(.env)"]}}',
    kind="source",
    check="forge_tools.runtimes.claude.files:findings",
)
