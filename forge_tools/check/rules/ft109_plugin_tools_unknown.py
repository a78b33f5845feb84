"""FT109 plugin-tools-unknown: a check of the loaded config, run by `check.analysis.analyse`."""

from forge_tools.report.codeinfo import CodeInfo

RULE = CodeInfo(
    code="FT109",
    name="plugin-tools-unknown",
    level="info",
    summary="Plugin tools are unknown because project code is not loaded.",
    help="Run with --load-code (only on trusted code) to include plugin tools in the checks.",
    why=(
        "Without --load-code, plugins are not run, so the tools they add are not checked and unknown "
        "names may be plugin tools."
    ),
    kind="context",
    check="forge_tools.check.analysis:code_notes",
)
