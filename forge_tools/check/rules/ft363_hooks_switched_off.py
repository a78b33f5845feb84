"""FT363 hooks-switched-off: a setting that keeps the agent's hooks from running (Claude Code's
`disableAllHooks` / `allowManagedHooksOnly`, Gemini CLI's `hooksConfig.enabled = false`), found by
`check/hook_findings.py`."""

from forge_tools.report.codeinfo import CodeInfo

RULE = CodeInfo(
    code='FT363',
    name='hooks-switched-off',
    level='warning',
    summary="A setting that keeps the agent's hooks, forge-tools' included, from running.",
    help=('Remove the setting, or put the forge-tools hook in the managed settings where only managed '
          'hooks run.'),
    why=("With hooks off the agent decides by its own rules alone, and a deny its own reading lets "
         "through (FT116, FT307, FT327) is not caught."),
    kind="source",
    check="forge_tools.check.hook_findings:hook_findings",
)
