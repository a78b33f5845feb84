"""FT007 duplicate-key: a ConfigError raised with this code where a config source is read or loaded."""

from forge_tools.report.codeinfo import CodeInfo

RULE = CodeInfo(
    code="FT007",
    name="duplicate-key",
    level="error",
    summary="A key appears twice in the same mapping.",
    help="Keep one of the two keys; order matters in permission maps, so merge them deliberately.",
    why=(
        "A repeated key keeps only one of its values in most readers; in a permission map that "
        "silently drops a rule, so forge-tools refuses it."
    ),
    example='{"permission": {"bash": "ask", "bash": "allow"}}',
    fixed='{"permission": {"bash": "allow"}}',
    kind="config",
    check="forge_tools.config.reader:read_source",
)
