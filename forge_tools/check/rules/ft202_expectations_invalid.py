"""FT202 expectations-invalid: the --expect file."""

from forge_tools.report.codeinfo import CodeInfo

RULE = CodeInfo(
    code="FT202",
    name="expectations-invalid",
    level="error",
    summary=(
        "The --expect file cannot be used, or an assertion names an unknown agent or tool, or "
        "gives call arguments that do not fit the tool."
    ),
    help="Fix the file at the reported location; see the `--expect` forms in docs/check-and-diff.md.",
    why="An assertion that cannot be evaluated checks nothing, so the file is refused at the problem.",
    kind="expect",
    check="forge_tools.check.expect:read_expectations",
)
