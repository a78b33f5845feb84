"""FT001 config-syntax: a ConfigError raised with this code where a config source is read or loaded."""

from forge_tools.report.codeinfo import CodeInfo

RULE = CodeInfo(
    code="FT001",
    name="config-syntax",
    level="error",
    summary="A config file cannot be parsed.",
    help="Fix the syntax at the reported line and column (JSON/JSONC, TOML or YAML).",
    why=(
        "A file that cannot be parsed gives no rules at all, so every permission it meant to set "
        "falls back to the defaults (often `ask`, sometimes `allow`)."
    ),
    example='{"permission": {"bash" "ask"}}',
    fixed='{"permission": {"bash": "ask"}}',
    kind="config",
    check="forge_tools.config.reader:read_source",
)
