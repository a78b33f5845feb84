"""FT113 path-pattern-never-matches: a check of the loaded config, run by `check.analysis.analyse`."""

from forge_tools.report.codeinfo import CodeInfo

RULE = CodeInfo(
    code="FT113",
    name="path-pattern-never-matches",
    level="warning",
    summary=(
        "A `read` or `edit` rule has an absolute or ~/ pattern: those calls are checked against "
        "the path relative to the project root (as opencode does), so the rule never matches."
    ),
    help=(
        "Use an `external_directory` rule for a directory outside the project, or write the pattern "
        "relative to the project root."
    ),
    kind="context",
    check="forge_tools.check.path_patterns:absolute_path_patterns",
)
