"""FT321 codex-rules-refused: Codex CLI's files, found by `runtimes/codex/findings.py` for a project
with Codex CLI files (`runtimes/codex/files.findings`, run by `check.run.runtime_findings`)."""

from forge_tools.report.codeinfo import CodeInfo

RULE = CodeInfo(
    code='FT321',
    name='codex-rules-refused',
    level='error',
    summary=(
        'A Codex CLI rules file Codex refuses at load (an unknown decision, a pattern that is not'
        ' a non-empty list, an unknown argument, a match or not_match example that does not '
        'hold).'
    ),
    help='Fix the rule or its example at the reported position.',
    why=(
        'Codex validates every rule and its examples when it loads rules/*.rules; one refused '
        'file it reads stops it from starting (`Error loading rules: ...`), so no call runs.'
    ),
    example='prefix_rule(pattern=["ls"], match=["cat x"])',
    fixed='prefix_rule(pattern=["ls"], match=["ls -l"])',
    kind="source",
    check="forge_tools.runtimes.codex.files:findings",
)
