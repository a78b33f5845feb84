"""Issue 33 item 2: every command warns the same way, from one place (`sources.config_warnings`):
a mistyped top-level key (with did-you-mean), a local opencode plugin forge-tools skips, an MCP server
with an empty name. One located `warning:` line each in layers, explain and run; a finding in check.
FT323 never names `None` as a reason."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest

COMMANDS = {
    "layers": ("layers",),
    "explain": ("explain", "bash"),
    "run": ("run", "bash", "--yes", "--no-sandbox", "--args", json.dumps({"command": "true"})),
}


@pytest.fixture
def odd_project(project: Path) -> Path:
    (project / "opencode.json").write_text(
        '{"permision": {"bash": "deny"},\n'
        ' "mcp": {"": {"type": "local", "command": ["x"], "enabled": false}}}')
    (project / ".opencode" / "plugin").mkdir(parents=True)
    (project / ".opencode" / "plugin" / "p.ts").write_text("export default {}\n")
    return project


EXPECTED = [
    ("opencode.json:1:2: ", "unknown top-level key 'permision' (did you mean 'permission'?)"),
    ("p.ts:1:1: ", "local plugin p.ts is opencode's (ts): forge-tools does not load it"),
    ("opencode.json:2:10: ", "an MCP server with an empty name"),
]


@pytest.mark.parametrize("command", list(COMMANDS))
def test_each_warning_is_one_located_line(odd_project: Path, cli, command: str) -> None:  # type: ignore[no-untyped-def]
    code, _out, err = cli(*COMMANDS[command])
    assert code == 0, err
    warnings = [line for line in err.splitlines() if line.startswith("forge-tools: warning: ")]
    for place, text in EXPECTED:
        hits = [line for line in warnings if text in line]
        assert len(hits) == 1, (text, err)
        assert place in hits[0], hits[0]


def test_check_reports_the_same_warnings_as_findings(odd_project: Path, cli) -> None:  # type: ignore[no-untyped-def]
    _code, out, _err = cli("check", "--format", "json")
    found = [(f["code"], f["message"]) for f in json.loads(out)["findings"]]
    assert ("FT117", EXPECTED[0][1]) in found
    assert sum(1 for c, m in found if c == "FT119" and EXPECTED[1][1] in m) == 1
    assert sum(1 for c, m in found if c == "FT119" and EXPECTED[2][1] in m) == 1
    _code, out, _err = cli("check", "--load-code", "--format", "json")  # no second copy with code loaded
    assert sum(1 for f in json.loads(out)["findings"] if f["code"] == "FT119") == 2


CODEX_CASES = [*itertools.product([False, True], [False, True], [False, True],
                                  [None, "trusted", "untrusted"]),
               # Codex does not start (a bad value): the rules files are not read, and say why
               (True, "bad", True, "trusted"), (True, "bad", True, None), (False, "bad", True, "untrusted")]


@pytest.mark.parametrize(("user_file", "project_config", "rules", "trust"), CODEX_CASES)
def test_ft323_never_says_none(project: Path, cli, user_file: bool, project_config: object, rules: bool,  # type: ignore[no-untyped-def]
                               trust: str | None) -> None:
    import os

    home = Path(os.environ["HOME"])
    if user_file or trust:
        (home / ".codex").mkdir(parents=True, exist_ok=True)
        entry = f'[projects."{project.resolve()}"]\ntrust_level = "{trust}"\n' if trust else ""
        (home / ".codex" / "config.toml").write_text(entry)
    (project / ".codex").mkdir()
    if project_config:
        bad = 'sandbox_mode = "bogus"\n' if project_config == "bad" else ""
        (project / ".codex" / "config.toml").write_text('approval_policy = "never"\n' + bad)
    if rules:
        (project / ".codex" / "rules").mkdir()
        (project / ".codex" / "rules" / "x.rules").write_text(
            'prefix_rule(pattern=["rm"], decision="forbidden")\n')
    for command in (("check",), ("layers",), ("rules",), ("agents", "--runtimes"), ("config",)):
        _code, out, err = cli(*command)
        assert "None" not in out + err, out + err
