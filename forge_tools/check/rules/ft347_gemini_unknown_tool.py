"""FT347 gemini-unknown-tool: Gemini CLI's settings and policy files, found by
`runtimes/gemini/findings.py` for a project with Gemini CLI files (`runtimes/gemini/files.findings`,
run by `check.run.runtime_findings`)."""

from forge_tools.report.codeinfo import CodeInfo
from forge_tools.runtimes.gemini.codes import FIXES

RULE = CodeInfo(
    code='FT347',
    name='gemini-unknown-tool',
    level='warning',
    summary=(
        'A Gemini CLI policy rule or settings entry naming a tool Gemini does not have (`run_shell`, '
        '`read`, `Bash`): it matches nothing.'
    ),
    help=FIXES["FT347"],
    why=(
        'Gemini CLI warns only for a name within three edits of a built-in one, and loads the rule '
        'anyway; it never matches a call.'
    ),
    example='[[rule]]\ntoolName = "shell"\ndecision = "deny"\npriority = 100',
    fixed='[[rule]]\ntoolName = "run_shell_command"\ndecision = "deny"\npriority = 100',
    kind='source',
    check='forge_tools.runtimes.gemini.files:findings',
)
