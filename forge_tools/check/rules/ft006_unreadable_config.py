"""FT006 unreadable-config: a ConfigError raised with this code."""

from forge_tools.report.codeinfo import CodeInfo

RULE = CodeInfo(
    code="FT006",
    name="unreadable-config",
    level="error",
    summary="A config file cannot be read.",
    help="Check that the path exists, is a regular UTF-8 text file and is readable.",
    why="A config file that cannot be read (permissions, not UTF-8, not a regular file) cannot be applied.",
    kind="config",
    check="forge_tools.config.reader:read_source",
)
