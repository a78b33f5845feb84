"""FT341 gemini-file-unusable: Gemini CLI's settings and policy files, found by
`runtimes/gemini/findings.py` for a project with Gemini CLI files (`runtimes/gemini/files.findings`,
run by `check.run.runtime_findings`)."""

from forge_tools.report.codeinfo import CodeInfo
from forge_tools.runtimes.gemini.codes import FIXES

RULE = CodeInfo(
    code='FT341',
    name='gemini-file-unusable',
    level='error',
    summary=(
        'A Gemini CLI settings or policy file, or one of its rules, that Gemini cannot use: a '
        'settings file that is not JSON with comments (Gemini does not start), a policy file that '
        'does not parse or breaks the schema (the whole file is skipped), a rule whose argsPattern '
        'JavaScript refuses or finds unsafe (the rule is dropped).'
    ),
    help=FIXES["FT341"],
    why=(
        'Gemini CLI skips a policy file with one bad rule (a missing priority, an unknown decision) '
        'and drops a rule whose regular expression has nested quantifiers, so the rules a team wrote '
        'are silently not there; a settings file with a trailing comma stops the CLI from starting '
        'at all.'
    ),
    example=(
        '[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = "git push"\ndecision = "deny"   # no '
        'priority: the whole file is skipped'
    ),
    fixed=(
        '[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = "git push"\ndecision = '
        '"deny"\npriority = 200'
    ),
    kind='source',
    check='forge_tools.runtimes.gemini.files:findings',
)
