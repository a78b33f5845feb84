"""`hook install` / `status` / `uninstall` round-trip for all four agents and both scopes, keeping
the files' comments and layout (issue 32 item 4)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from forge_tools.runtimes.hooks import entries, hook_file

CLAUDE_TEXT = '{\n  // the team\'s rules\n  "permissions": {"deny": ["Bash(rm:*)"]}\n}\n'


@pytest.mark.parametrize("scope", ["project", "user"])
@pytest.mark.parametrize("agent", ["claude", "codex", "gemini", "opencode"])
def test_install_status_uninstall_round_trip(cli, project: Path, agent: str, scope: str) -> None:  # type: ignore[no-untyped-def]
    path = hook_file(agent, scope, project)
    if agent != "opencode":
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(CLAUDE_TEXT if agent != "codex" else '{\n  "description": "ours"\n}\n')
    before = path.read_text() if path.exists() else ""
    code, out, err = cli("hook", "install", "--runtime", agent, "--scope", scope)
    assert code == 0, err
    assert out.startswith(f"{path}: installed")
    first = path.read_text()
    code, out, _ = cli("hook", "install", "--runtime", agent, "--scope", scope)
    assert "already installed" in out and path.read_text() == first  # idempotent
    if agent != "opencode":
        assert first.startswith(before.rstrip().rstrip("}").rstrip())  # everything before kept as written
        (entry,) = [e for e in entries(agent, path) if e.ours]
        assert entry.command.endswith(f"hook --runtime {agent}") and entry.command.startswith("/")
        assert entry.program_exists()
        if agent == "claude":
            assert entry.on_failure == "block" and entry.matcher == "*"
        if agent == "gemini":
            assert json.loads(path.read_text().replace("// the team's rules", ""))["hooks"]["BeforeTool"][0][
                "hooks"][0]["timeout"] == 30000
    else:
        assert "tool.execute.before" in first and "DEADLINE_MS" in first
    code, out, _ = cli("hook", "status", "--runtime", agent, "--format", "json")
    rows = {r["scope"]: r for r in json.loads(out)["hooks"]}
    assert rows[scope]["installed"] and not rows[{"project": "user", "user": "project"}[scope]]["installed"]
    assert rows[scope]["entries"][0]["origin"]["line"] >= 1
    if agent == "codex":
        assert any("/hooks" in p for p in rows[scope]["problems"])
        assert "review" in cli("hook", "install", "--runtime", agent, "--scope", scope)[1]
    code, out, _ = cli("hook", "uninstall", "--runtime", agent, "--scope", scope)
    assert "removed" in out
    if agent == "opencode":
        assert not path.exists()
    else:
        assert not [e for e in entries(agent, path) if e.ours]
        assert "Bash(rm:*)" in path.read_text() or "ours" in path.read_text()


def test_install_keeps_another_hook_and_replaces_an_old_forge_entry(cli, project: Path) -> None:  # type: ignore[no-untyped-def]
    path = project / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text(json.dumps({"hooks": {"PreToolUse": [
        {"matcher": "Bash", "hooks": [{"type": "command", "command": "audit.sh"}]},
        {"matcher": "*", "hooks": [{"type": "command", "command": "/old/forge-tools hook --runtime claude"}]},
    ]}}, indent=2))
    assert cli("hook", "install", "--runtime", "claude")[0] == 0
    commands = [e.command for e in entries("claude", path)]
    assert commands[0] == "audit.sh" and len(commands) == 2 and not commands[1].startswith("/old/")
    cli("hook", "uninstall", "--runtime", "claude")
    assert [e.command for e in entries("claude", path)] == ["audit.sh"]
