"""FT002 config-type: a ConfigError raised with this code where a config source is read or loaded."""

from forge_tools.report.codeinfo import CodeInfo

RULE = CodeInfo(
    code="FT002",
    name="config-type",
    level="error",
    summary="A config value has the wrong type.",
    help="Give the value the type the message names (e.g. a permission is an action or a map).",
    why="A value of the wrong type is refused when the config loads, so the agent does not start with it.",
    example='{"permission": {"bash": true}}',
    fixed='{"permission": {"bash": "allow"}}',
    kind="config",
    check="forge_tools.config.reader:read_source",
)
