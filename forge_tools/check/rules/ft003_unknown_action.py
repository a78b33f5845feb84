"""FT003 unknown-action: a ConfigError raised with this code where a config source is read or loaded."""

from forge_tools.report.codeinfo import CodeInfo

RULE = CodeInfo(
    code="FT003",
    name="unknown-action",
    level="error",
    summary="A permission action is not allow, ask or deny.",
    help="Use one of allow, ask, deny.",
    why="Only allow, ask and deny are actions; a misspelt action makes the config unusable.",
    example='{"permission": {"edit": "allwo"}}',
    fixed='{"permission": {"edit": "allow"}}',
    kind="config",
    check="forge_tools.config.reader:read_source",
)
