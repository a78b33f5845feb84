"""FT324 codex-rule-never-decides: Codex CLI's files, found by `runtimes/codex/findings.py` for a project
with Codex CLI files (`runtimes/codex/files.findings`, run by `check.run.runtime_findings`)."""

from forge_tools.report.codeinfo import CodeInfo

RULE = CodeInfo(
    code='FT324',
    name='codex-rule-never-decides',
    level='warning',
    summary='A Codex CLI rule that never decides: a stricter rule matches every command it matches.',
    help='Remove one of the two rules, or narrow the stricter one.',
    why=(
        'Codex collects every matching rule and takes the strictest decision (forbidden > prompt '
        '> allow), whatever the file or order.'
    ),
    example='prefix_rule(pattern=["git"], decision="prompt")\nprefix_rule(pattern=["git", "status"])',
    fixed='prefix_rule(pattern=["git", "push"], decision="prompt")\nprefix_rule(pattern=["git", "status"])',
    kind="source",
    check="forge_tools.runtimes.codex.files:findings",
)
