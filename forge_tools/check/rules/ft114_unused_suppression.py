"""FT114 unused-suppression: the inline `forge-tools: ignore` comments."""

from forge_tools.report.codeinfo import CodeInfo

RULE = CodeInfo(
    code="FT114",
    name="unused-suppression",
    level="warning",
    summary=(
        "A `forge-tools: ignore` comment suppressed nothing, names no finding code, or writes its "
        "reason without `--` (then it suppresses nothing)."
    ),
    help=(
        "Remove the comment (the problem it was for is gone), fix the code it names, or put ` -- ` "
        "between the codes and the reason."
    ),
    why=(
        "A suppression comment outlives the problem it was for, and would hide the next problem of "
        "that code on its line."
    ),
    example='{"permission": {"grep": "deny"}}  // forge-tools: ignore FT101 -- no FT101 here',
    fixed='{"permission": {"grep": "deny"}}',
    kind="suppression",
    check="forge_tools.check.select:apply",
)
