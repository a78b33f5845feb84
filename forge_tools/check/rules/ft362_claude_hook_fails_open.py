"""FT362 claude-hook-fails-open: forge-tools' Claude Code hook without `"onFailure": "block"`, found by
`check/hook_findings.py`."""

from forge_tools.report.codeinfo import CodeInfo

RULE = CodeInfo(
    code='FT362',
    name='claude-hook-fails-open',
    level='warning',
    summary='The forge-tools hook of Claude Code has no `"onFailure": "block"`.',
    help='Add `"onFailure": "block"` to the entry, or run `forge-tools hook install --runtime claude`.',
    why=('Without it Claude Code runs the call when the hook crashes, times out or cannot be started; '
         'with it every such failure is a deny.'),
    kind="source",
    check="forge_tools.check.hook_findings:hook_findings",
)
