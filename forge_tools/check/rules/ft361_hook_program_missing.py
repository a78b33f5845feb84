"""FT361 hook-program-missing: an agent's pre-tool hook entry whose program does not exist, found by
`check/hook_findings.py` (run by `check.run`)."""

from forge_tools.report.codeinfo import CodeInfo

RULE = CodeInfo(
    code='FT361',
    name='hook-program-missing',
    level='error',
    summary="A pre-tool hook entry whose program does not exist.",
    help=('Fix the path, or run `forge-tools hook install --runtime NAME` again (it writes an absolute '
          'path to forge-tools).'),
    why=('Claude Code (without `"onFailure": "block"`) and Codex CLI run every call as if the hook had '
         'no opinion when its program is missing; Gemini CLI refuses every call instead.'),
    kind="source",
    check="forge_tools.check.hook_findings:hook_findings",
)
