"""FT342 gemini-workspace-policies-ignored: Gemini CLI's settings and policy files, found by
`runtimes/gemini/findings.py` for a project with Gemini CLI files (`runtimes/gemini/files.findings`,
run by `check.run.runtime_findings`)."""

from forge_tools.report.codeinfo import CodeInfo
from forge_tools.runtimes.gemini.codes import FIXES

RULE = CodeInfo(
    code='FT342',
    name='gemini-workspace-policies-ignored',
    level='warning',
    summary=(
        "A policy file in the project's .gemini/policies: Gemini CLI 0.61 does not load the "
        'workspace tier (disableWorkspacePolicies in its released code), so none of its rules apply.'
    ),
    help=FIXES["FT342"],
    why=(
        'The documentation describes a workspace policy tier, but the released CLI turns it off: a '
        "team's deny rules committed to .gemini/policies protect nothing."
    ),
    example='.gemini/policies/team.toml with a deny of `git push`',
    fixed='~/.gemini/policies/team.toml (or tools.exclude in .gemini/settings.json)',
    kind='source',
    check='forge_tools.runtimes.gemini.files:findings',
)
