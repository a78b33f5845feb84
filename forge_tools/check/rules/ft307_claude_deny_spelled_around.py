"""FT307 claude-deny-spelled-around: Claude Code's settings, found by `runtimes/claude/findings.py`
for a project with Claude Code settings (`runtimes/claude/files.findings`, run by
`check.run.runtime_findings`)."""

from forge_tools.report.codeinfo import CodeInfo

RULE = CodeInfo(
    code='FT307',
    name='claude-deny-spelled-around',
    level='warning',
    summary=(
        'A Claude Code Bash deny or ask rule that another spelling of the same command gets around '
        "under Claude Code's lowering (options before a subcommand, `builtin`, `eval`, ...): the "
        'spelling runs unasked.'
    ),
    help=(
        "Deny the spellings too, or make Bash an allow-list; forge-tools' gate resolves most of "
        'them.'
    ),
    why=(
        "Claude Code 2.1.332 matches a Bash deny against the command's forms (quotes removed, "
        "`VAR=x`, `env`, `timeout` removed, the program's path reduced), but not options before a "
        'subcommand, `builtin`, `eval` or `$(echo rm)`; under a broad allow those spellings run '
        'unasked. `check` decides each with the claude runtime, runs nothing.'
    ),
    example='{"permissions": {"allow": ["Bash(git *)"], "deny": ["Bash(git push *)"]}}',
    fixed='{"permissions": {"allow": ["Bash(git status)", "Bash(git log *)"]}}',
    kind="source",
    check="forge_tools.runtimes.claude.files:findings",
)
