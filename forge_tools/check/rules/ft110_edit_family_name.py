"""FT110 edit-family-name: a check of the loaded config, run by `check.analysis.analyse`."""

from forge_tools.report.codeinfo import CodeInfo

RULE = CodeInfo(
    code="FT110",
    name="edit-family-name",
    level="warning",
    summary="A rule names write, apply_patch, multiedit or patch, but those tools are checked as `edit`.",
    help="Use `edit` as the permission name; a rule for the other names never matches a call.",
    why=(
        "write, apply_patch, multiedit and patch ask the `edit` permission; a rule under their own "
        "names never matches a call."
    ),
    example='{"permission": {"write": "deny"}}',
    fixed='{"permission": {"edit": "deny"}}',
    kind="context",
    check="forge_tools.check.analysis:unknown_permissions",
    fixer="forge_tools.check.fix:rename_edit_family",
)
