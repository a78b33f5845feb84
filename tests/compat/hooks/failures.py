"""The ways the installed hook is made to fail in the recordings (issue 32 "Done when": each must end in
a deny inside the real binary), shared by the recorders of tests/compat/hooks/: the hook entry's command
with `{hook}` standing for forge-tools' own hook command as `hook install` wrote it."""

from __future__ import annotations

from pathlib import Path

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


def in_own_network(script: str, flag: str) -> int | None:
    """Run the recorder `script` again inside `unshare -n` (a network namespace with loopback only,
    so nothing leaves 127.0.0.1) and return its exit code; once inside (`flag` set), bring loopback
    up and return None."""
    import os
    import subprocess
    import sys

    if os.environ.get(flag) != "1":
        return subprocess.call(["unshare", "-n", sys.executable, script, *sys.argv[1:]],
                               env=dict(os.environ, **{flag: "1"}))
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    return None


def merge_record(out: Path, key: str, value: object) -> None:
    """Put one part of a recording (`failures`, `sandbox`) into the agent's record file."""
    import json

    record = json.loads(out.read_text())
    record[key] = value
    out.write_text(json.dumps(record, indent=2) + "\n")
    print(f"wrote {out}")
