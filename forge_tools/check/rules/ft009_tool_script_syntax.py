"""FT009 tool-script-syntax: a scan of each config file or config directory, before the config is loaded."""

from forge_tools.report.codeinfo import CodeInfo

RULE = CodeInfo(
    code="FT009",
    name="tool-script-syntax",
    level="warning",
    summary="A config-dir tool script cannot be parsed (or, with --load-code, imported).",
    help="Fix the script's syntax; until then it fails to import and registers no tool.",
    why=(
        "A tool script in a config directory that does not parse registers no tool, so the tool the "
        "agent expects is missing."
    ),
    kind="source",
    check="forge_tools.sources.static_scripts:scan_static_scripts",
)
