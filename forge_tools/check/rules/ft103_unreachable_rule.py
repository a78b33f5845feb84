"""FT103 unreachable-rule: a check of the loaded config, run by `check.analysis.analyse`."""

from forge_tools.report.codeinfo import CodeInfo

RULE = CodeInfo(
    code="FT103",
    name="unreachable-rule",
    level="warning",
    summary="A rule can never decide: a later rule of the same ruleset covers all its names and patterns.",
    help="Remove the earlier rule, or move it after the broader rule if it was meant to win.",
    why=(
        "The last matching rule decides, so an earlier rule that a later one fully covers never "
        "decides anything: it reads as a restriction that does not exist."
    ),
    example='{"permission": {"edit": {"src/generated/*": "deny", "src/*": "allow"}}}',
    fixed='{"permission": {"edit": {"src/*": "allow", "src/generated/*": "deny"}}}',
    kind="context",
    check="forge_tools.check.analysis:unreachable_rules",
)
