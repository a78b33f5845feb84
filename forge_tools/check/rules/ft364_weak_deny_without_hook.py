"""FT364 weak-deny-without-hook: a deny the agent's own reading lets through (FT116, FT307, FT327) in a
project where no forge-tools hook is installed for that agent, found by `check/hook_findings.py`."""

from forge_tools.report.codeinfo import CodeInfo

RULE = CodeInfo(
    code='FT364',
    name='weak-deny-without-hook',
    level='warning',
    summary="A deny the agent lets spellings through, and no forge-tools hook to hold it.",
    help='Run `forge-tools hook install --runtime NAME` (docs/hooks.md).',
    why=('The hook decides every call with forge-tools\' gate before the agent does, so `/bin/rm`, '
         '`sudo rm` and `bash -c "rm ..."` are refused under a deny of `rm` whatever the agent\'s own '
         'reading.'),
    kind="source",
    check="forge_tools.check.hook_findings:hook_findings",
)
