"""FT004 unknown-key: a ConfigError raised with this code where a config source is read or loaded."""

from forge_tools.report.codeinfo import CodeInfo

RULE = CodeInfo(
    code="FT004",
    name="unknown-key",
    level="error",
    summary="A key of one of forge's own config files is not known (opencode's files: FT117).",
    help="Remove the key or fix its spelling (the message suggests the closest known key).",
    why="An unknown key is usually a misspelling: the setting it was meant to be is not set.",
    example='{"permisson": {"bash": "ask"}}',
    fixed='{"permission": {"bash": "ask"}}',
    kind="config",
    check="forge_tools.config.reader:read_source",
)
