"""FT105 deny-does-not-hide: a check of the loaded config, run by `check.analysis.analyse`."""

from forge_tools.report.codeinfo import CodeInfo

RULE = CodeInfo(
    code="FT105",
    name="deny-does-not-hide",
    level="info",
    summary="A deny with a specific pattern rejects matching calls but does not hide the tool.",
    help='Nothing to fix if that is intended; use `"*": "deny"` as the last rule to hide the tool.',
    why=(
        "A deny with a specific pattern rejects matching calls, but the model still sees the tool and"
        " may try it. Usually intended, so this hint is off by default: add it (`--extend-select FT105`) "
        "to see where a tool stays visible behind such denies."
    ),
    example='{"permission": {"bash": {"rm *": "deny"}}}',
    default=False,
    kind="context",
    check="forge_tools.check.analysis:specific_denies",
)
