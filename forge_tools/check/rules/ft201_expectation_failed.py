"""FT201 expectation-failed: the --expect file."""

from forge_tools.report.codeinfo import CodeInfo

RULE = CodeInfo(
    code="FT201",
    name="expectation-failed",
    level="error",
    summary="A --expect assertion does not hold.",
    help="Change the config so the assertion holds, or update the expectation if the change was meant.",
    why=(
        "An assertion of the --expect file states what the team relies on (a tool hidden, a call "
        "denied); a config change broke it."
    ),
    kind="expect",
    check="forge_tools.check.expect:check_expectations",
)
