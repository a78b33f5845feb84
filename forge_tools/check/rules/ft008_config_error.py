"""FT008 config-error: a ConfigError raised with this code where a config source is read or loaded."""

from forge_tools.report.codeinfo import CodeInfo

RULE = CodeInfo(
    code="FT008",
    name="config-error",
    level="error",
    summary="The config cannot be used.",
    help="Follow the message; the location points at the value concerned.",
    why="The config parses and has the right types but cannot be used as written.",
    kind="config",
    check="forge_tools.config.reader:read_source",
)
