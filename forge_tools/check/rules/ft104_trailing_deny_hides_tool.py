"""FT104 trailing-deny-hides-tool: a check of the loaded config, run by `check.analysis.analyse`."""

from forge_tools.report.codeinfo import CodeInfo

RULE = CodeInfo(
    code="FT104",
    name="trailing-deny-hides-tool",
    level="warning",
    summary='A last `"*": "deny"` after specific allows hides the whole tool.',
    help=(
        'Put the `"*": "deny"` first and the allows after it: the last matching rule wins, and a '
        "tool whose last rule is `* deny` is removed from the model's tool list."
    ),
    why=(
        'A tool whose last rule is `"*": "deny"` is removed from the model\'s tool list, so the allows'
        " written before it can never be used: the agent cannot even call the tool."
    ),
    example='{"permission": {"webfetch": {"https://docs.example.com/*": "allow", "*": "deny"}}}',
    fixed='{"permission": {"webfetch": {"*": "deny", "https://docs.example.com/*": "allow"}}}',
    kind="context",
    check="forge_tools.check.analysis:trailing_deny",
    fixer="forge_tools.check.fix:deny_first",
)
