"""FT108 external-read-asks: nothing any more: retired."""

from forge_tools.report.codeinfo import CodeInfo

RULE = CodeInfo(
    code="FT108",
    name="external-read-asks",
    level="info",
    summary=(
        "Retired: `read` allows for absolute paths are reported as FT113 (they never match, since"
        " read patterns are relative to the project root)."
    ),
    help="See FT113.",
    why=(
        "Reads outside the project also need an `external_directory` allow; without it the read allow"
        " is never enough and every such read asks."
    ),
    example='{"permission": {"read": {"/opt/docs/*": "allow"}}}',
    fixed=(
        '{"permission": {"read": {"/opt/docs/*": "allow"}, "external_directory": {"/opt/docs/*": "allow"}}}'
    ),
    default=False,
    kind="retired",
)
