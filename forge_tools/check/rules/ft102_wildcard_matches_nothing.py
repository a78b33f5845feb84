"""FT102 wildcard-matches-nothing: a check of the loaded config, run by `check.analysis.analyse`."""

from forge_tools.report.codeinfo import CodeInfo

RULE = CodeInfo(
    code="FT102",
    name="wildcard-matches-nothing",
    level="warning",
    summary="A wildcard permission name matches no tool and no known permission.",
    help="Fix the wildcard or remove the rule; it never applies.",
    why="A wildcard name that matches nothing never applies.",
    example='{"permission": {"mcp_gihub_*": "deny"}}',
    fixed='{"permission": {"mcp_github_*": "deny"}}',
    kind="context",
    check="forge_tools.check.analysis:unknown_permissions",
)
