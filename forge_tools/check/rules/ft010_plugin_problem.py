"""FT010 plugin-problem: a problem of project code loaded with --load-code."""

from forge_tools.report.codeinfo import CodeInfo

RULE = CodeInfo(
    code="FT010",
    name="plugin-problem",
    level="error",
    summary="A plugin cannot be loaded or misbehaves (checked with --load-code).",
    help=(
        "Fix the plugin at the reported location; until then forge-tools runs without it, and "
        "without hooks of it that would block calls."
    ),
    why=(
        "A plugin that fails to load or misbehaves is left out; its tools and hooks are missing from "
        "the pipeline."
    ),
    kind="code",
    check="forge_tools.check.code_problems:problem_findings",
)
