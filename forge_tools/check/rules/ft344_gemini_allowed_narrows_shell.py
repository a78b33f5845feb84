"""FT344 gemini-allowed-narrows-shell: Gemini CLI's settings and policy files, found by
`runtimes/gemini/findings.py` for a project with Gemini CLI files (`runtimes/gemini/files.findings`,
run by `check.run.runtime_findings`)."""

from forge_tools.report.codeinfo import CodeInfo
from forge_tools.runtimes.gemini.codes import FIXES

RULE = CodeInfo(
    code='FT344',
    name='gemini-allowed-narrows-shell',
    level='warning',
    summary=(
        'A tools.allowed entry that gives the shell tool arguments (run_shell_command(npm test)): '
        'Gemini adds a deny of every other shell call at priority 4.29, above every user policy '
        "allow, so commands the user's policies allow are denied."
    ),
    help=FIXES["FT344"],
    why=(
        'Gemini compiles tools.allowed into user-tier rules at 4.3 and, for a shell entry with '
        "arguments, a 'narrowing enforcement' deny of the shell tool at 4.29; a TOML allow of "
        'priority below 290 never decides again.'
    ),
    example='{"tools": {"allowed": ["run_shell_command(npm test)"]}}',
    fixed=(
        '[[rule]] toolName = "run_shell_command", commandPrefix = "npm test", decision = "allow", '
        'priority = 100'
    ),
    kind='source',
    check='forge_tools.runtimes.gemini.files:findings',
)
