"""FT322 codex-rule-never-matches: Codex CLI's files, found by `runtimes/codex/findings.py` for a project
with Codex CLI files (`runtimes/codex/files.findings`, run by `check.run.runtime_findings`)."""

from forge_tools.report.codeinfo import CodeInfo

RULE = CodeInfo(
    code='FT322',
    name='codex-rule-never-matches',
    level='warning',
    summary=(
        'A Codex CLI prefix rule with a token that can never match as written: a `*`, `?` or `[` '
        '(Codex patterns have no wildcards) or a program holding a space.'
    ),
    help='Drop the wildcard (a prefix already matches longer commands) or list alternatives.',
    why=(
        'Codex compares each token of a command with the pattern\'s as exact strings: `"test*"` '
        'matches only the word test*.'
    ),
    example='prefix_rule(pattern=["npm", "run", "test*"])',
    fixed='prefix_rule(pattern=["npm", "run", ["test", "test:unit"]])',
    kind="source",
    check="forge_tools.runtimes.codex.files:findings",
)
