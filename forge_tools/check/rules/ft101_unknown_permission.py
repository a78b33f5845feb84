"""FT101 unknown-permission: a check of the loaded config, run by `check.analysis.analyse`."""

from forge_tools.report.codeinfo import CodeInfo

RULE = CodeInfo(
    code="FT101",
    name="unknown-permission",
    level="error",
    summary=(
        "A permission name matches no tool and no known permission (a warning while plugin tools "
        "are unknown, i.e. plugins are configured and --load-code is not given)."
    ),
    help="Fix the spelling (the message suggests close names) or remove the rule.",
    why=(
        "A permission name that matches no tool never applies: the tool it was meant for keeps its "
        "default action."
    ),
    example='{"permission": {"grpe": "deny"}}',
    fixed='{"permission": {"grep": "deny"}}',
    kind="context",
    check="forge_tools.check.analysis:unknown_permissions",
    fixer="forge_tools.check.fix:rename_permission",
)
