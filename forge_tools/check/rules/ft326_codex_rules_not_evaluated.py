"""FT326 codex-rules-not-evaluated: Codex CLI's files, found by `runtimes/codex/findings.py` for a
project with Codex CLI files (`runtimes/codex/files.findings`, run by `check.run.runtime_findings`)."""

from forge_tools.report.codeinfo import CodeInfo

RULE = CodeInfo(
    code='FT326',
    name='codex-rules-not-evaluated',
    level='warning',
    summary=(
        'A Codex CLI rules file that forge-tools does not evaluate (Starlark beyond literal values, '
        'top-level names and `+` of lists): its rules are left out of every Codex answer.'
    ),
    help='Write the rules with literal values, or check them with `codex execpolicy check`.',
    why=(
        'forge-tools reads rules files from their syntax tree and never runs them; Codex runs the '
        'whole Starlark program, so its answer may differ.'
    ),
    example='for p in ["git", "hg"]:\n    prefix_rule(pattern=[p, "push"], decision="forbidden")',
    fixed='prefix_rule(pattern=[["git", "hg"], "push"], decision="forbidden")',
    kind="source",
    check="forge_tools.runtimes.codex.files:findings",
)
