"""`check --help` states the exit codes as they are: 3 only when the project directory or the --expect
file cannot be found; a config (or expectations file) that cannot be parsed is a finding (exit 1)."""

from __future__ import annotations

import re
from pathlib import Path


def test_help_states_exit_codes_that_hold(project: Path, cli) -> None:
    _code, out, _ = cli("check", "--help")
    text = re.sub(r"\s+", " ", out)
    assert "3 when the project directory or the --expect file cannot be found" in text
    assert "cannot be read or parsed is such an error" in text
    assert "project cannot be loaded" not in text

    (project / "forge.json").write_text('{"permission": {"bash": "dney"')
    (project / "expect.yaml").write_text("- agent: [\n")
    assert cli("check")[0] == 1
    assert cli("check", "--expect", "expect.yaml")[0] == 1
    assert cli("check", "no-such-dir")[0] == 3
    assert cli("check", "--expect", "missing.yaml")[0] == 3
    assert cli("check", "--format", "nope")[0] == 2
