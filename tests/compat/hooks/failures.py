"""The ways the installed hook is made to fail in the recordings (issue 32 "Done when": each must end in
a deny inside the real binary), shared by the recorders of tests/compat/hooks/: the hook entry's command
with `{hook}` standing for forge-tools' own hook command as `hook install` wrote it."""

from __future__ import annotations

FAILURES = {
    "forced internal error": "env FORGE_TOOLS_HOOK_TEST_FAULT=raise {hook}",
    "garbage on stdin": "sh -c 'cat >/dev/null; echo \"not json {{\" | {hook}'",
    "truncated payload": "sh -c 'head -c 40 | {hook}'",
    "deadline passed": "env FORGE_TOOLS_HOOK_TEST_FAULT=sleep {hook} --deadline 1",
}


def failing(how: str, hook: str) -> str:
    """The hook entry's command made to fail `how` (a template of FAILURES)."""
    return how.format(hook=hook)


def shown(how: str, agent: str) -> str:
    """The failing command as the record shows it (forge-tools by name, not its install path)."""
    return failing(how, f"forge-tools hook --runtime {agent}")
