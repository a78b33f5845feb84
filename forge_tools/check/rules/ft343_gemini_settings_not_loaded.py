"""FT343 gemini-settings-not-loaded: Gemini CLI's settings and policy files, found by
`runtimes/gemini/findings.py` for a project with Gemini CLI files (`runtimes/gemini/files.findings`,
run by `check.run.runtime_findings`)."""

from forge_tools.report.codeinfo import CodeInfo
from forge_tools.runtimes.gemini.codes import FIXES

RULE = CodeInfo(
    code='FT343',
    name='gemini-settings-not-loaded',
    level='warning',
    summary=(
        "A Gemini CLI settings or policy file that exists but is not loaded: the workspace's "
        '.gemini/settings.json in an untrusted folder, a system file or admin policy directory that '
        "is not root's or is writable by others, adminPolicyPaths while the admin directory has "
        'policies, ~/.gemini/policies replaced by policyPaths.'
    ),
    help=FIXES["FT343"],
    why=(
        'Folder trust is on by default and a folder with no entry is untrusted: Gemini then ignores '
        "the project's settings altogether, its tools.exclude and tools.allowed included."
    ),
    example='',
    fixed='',
    kind='source',
    check='forge_tools.runtimes.gemini.files:findings',
)
