"""FT116 deny-rule-spelled-around: a check of the loaded config, run by `check.analysis.analyse`."""

from forge_tools.report.codeinfo import CodeInfo

RULE = CodeInfo(
    code="FT116",
    name="deny-rule-spelled-around",
    level="warning",
    summary=(
        "A bash deny or ask rule is got around by another spelling of the same command "
        "(`/bin/rm`, `command rm`, `env rm`, `bash -c 'rm ...'`, ...) under the agent's runtime: "
        "it matches the rule's text, not the program."
    ),
    help=(
        'Make the bash rules an allow-list (`"*": "deny"` first, then the allowed commands), or run '
        "the agent's calls through forge-tools, whose gate resolves these spellings."
    ),
    why=(
        'opencode 1.18.33 matches a bash rule against each command\'s text as written, so `"rm *": '
        "\"deny\"` does not stop `/bin/rm x`, `command rm x`, `env rm x`, `bash -c 'rm x'`, `'rm' x` or"
        ' `FOO=1 rm x`: they run rm and opencode allows them under `"*": "allow"`. `check` writes the'
        " rule's command each known other way (path-qualified names, wrappers, nested shells, `eval`,"
        " quoting, `$(...)`, options before a subcommand) and decides each with the agent's runtime, "
        "without running anything; each spelling that gets through is listed. An allow-list has "
        "nothing to get around: what is not listed is denied."
    ),
    example='{"permission": {"bash": {"*": "allow", "rm *": "deny"}}}',
    fixed='{"permission": {"bash": {"*": "deny", "ls *": "allow", "git status": "allow"}}}',
    kind="context",
    check="forge_tools.check.deny_strength:deny_strength",
)
