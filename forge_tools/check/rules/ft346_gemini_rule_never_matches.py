"""FT346 gemini-rule-never-matches: Gemini CLI's settings and policy files, found by
`runtimes/gemini/findings.py` for a project with Gemini CLI files (`runtimes/gemini/files.findings`,
run by `check.run.runtime_findings`)."""

from forge_tools.report.codeinfo import CodeInfo
from forge_tools.runtimes.gemini.codes import FIXES

RULE = CodeInfo(
    code='FT346',
    name='gemini-rule-never-matches',
    level='warning',
    summary=(
        'A Gemini CLI policy rule that cannot match as written: a commandPrefix written as a glob '
        '(`git push*`) or ending in punctuation or a blank (a prefix needs a blank after it: `npm '
        'run test:` does not match `npm run test:unit`), a commandPrefix or commandRegex on a tool '
        'other than run_shell_command, a commandRegex anchored with `^`, an mcpName = "*" with a '
        'tool name.'
    ),
    help=FIXES["FT346"],
    why=(
        'Gemini turns commandPrefix into a regular expression that needs a blank, a quote or the end '
        'after the prefix and escapes `*`; commandRegex is placed after `"command":"`, so `^` can '
        'never match there; mcpName = "*" with a tool gives the name mcp_*_tool, which no tool has.'
    ),
    example=(
        '[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = "git push*"\ndecision = '
        '"deny"\npriority = 100'
    ),
    fixed=(
        '[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = "git push"\ndecision = '
        '"deny"\npriority = 100'
    ),
    kind='source',
    check='forge_tools.runtimes.gemini.files:findings',
)
