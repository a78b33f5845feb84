"""FT005 file-reference: a ConfigError raised with this code where a config source is read or loaded."""

from forge_tools.report.codeinfo import CodeInfo

RULE = CodeInfo(
    code="FT005",
    name="file-reference",
    level="error",
    summary="A {file:...} substitution names a file that cannot be read.",
    help="Create the file or fix the path; it is relative to the config file that names it.",
    why=(
        "`{file:path}` is replaced by the file's text when the config loads; a missing file makes the"
        " config unusable."
    ),
    example='{"model": "{file:./model.txt}"}  // no model.txt',
    kind="config",
    check="forge_tools.config.reader:read_source",
)
