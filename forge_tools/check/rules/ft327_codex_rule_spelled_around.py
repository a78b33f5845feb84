"""FT327 codex-rule-spelled-around: Codex CLI's files, found by `runtimes/codex/findings.py` for a
project with Codex CLI files (`runtimes/codex/files.findings`, run by `check.run.runtime_findings`)."""

from forge_tools.report.codeinfo import CodeInfo

RULE = CodeInfo(
    code='FT327',
    name='codex-rule-spelled-around',
    level='warning',
    summary=(
        'A Codex CLI forbidden or prompt rule that another spelling of its command gets around '
        '(`FOO=1 git push`, `env git push`, `\'git\' push`): Codex checks such a line whole, and no '
        'rule of the program matches it.'
    ),
    help='Rely on the sandbox for what no rule allows, and write the rules as the commands allowed.',
    why=(
        'Codex splits a shell line into commands only when it is plain words; any other line is one '
        'command, `bash -lc LINE`, which a prefix rule for the program does not match (recorded '
        'with codex exec).'
    ),
    example='prefix_rule(pattern=["git", "push"], decision="forbidden")',
    fixed='prefix_rule(pattern=["git", ["status", "log", "diff"]])',
    kind="source",
    check="forge_tools.runtimes.codex.files:findings",
)
