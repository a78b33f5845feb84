"""FT107 legacy-tools-map: a check of the loaded config, run by `check.analysis.analyse`."""

from forge_tools.report.codeinfo import CodeInfo

RULE = CodeInfo(
    code="FT107",
    name="legacy-tools-map",
    level="info",
    summary="A legacy `tools` map is used.",
    help="Replace it with the `permission` form shown in the message (same meaning, one vocabulary).",
    why=(
        "The legacy `tools: {name: bool}` map still works, but mixing it with `permission` makes the "
        "order of rules hard to see; `permission` says the same in one vocabulary."
    ),
    example='{"tools": {"webfetch": false}}',
    fixed='{"permission": {"webfetch": "deny"}}',
    default=False,
    kind="context",
    check="forge_tools.check.analysis:legacy_tools",
    fixer="forge_tools.check.fix:tools_to_permission",
)
