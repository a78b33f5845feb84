"""FT345 gemini-core-beats-deny: Gemini CLI's settings and policy files, found by
`runtimes/gemini/findings.py` for a project with Gemini CLI files (`runtimes/gemini/files.findings`,
run by `check.run.runtime_findings`)."""

from forge_tools.report.codeinfo import CodeInfo
from forge_tools.runtimes.gemini.codes import FIXES

RULE = CodeInfo(
    code='FT345',
    name='gemini-core-beats-deny',
    level='warning',
    summary=(
        'A user policy deny that a tools.core entry overrides: tools.core allows at priority 4.25, '
        'so a deny of the same tool (or command) written at a TOML priority below 250 never decides.'
    ),
    help=FIXES["FT345"],
    why=(
        "tools.core is an allow-list compiled to allow rules at 4.25; Gemini's first-match-wins "
        'order puts it above user TOML rules of priority 0-249, denies included.'
    ),
    example='{"tools": {"core": ["run_shell_command(git)"]}} with a user deny of `git push` at priority 200',
    fixed='the deny at priority 300',
    kind='source',
    check='forge_tools.runtimes.gemini.files:findings',
)
