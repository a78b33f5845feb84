"""`check` knows about hooks (issue 32 item 5): FT361-FT364 at file:line."""

from __future__ import annotations

import json
from pathlib import Path


def codes(cli) -> dict[str, list[dict]]:  # type: ignore[no-untyped-def]
    _, out, _ = cli("check", "--format", "json")
    found: dict[str, list[dict]] = {}
    for f in json.loads(out)["findings"]:
        found.setdefault(f["code"], []).append(f)
    return found


def test_a_hook_whose_program_is_missing_and_one_without_on_failure(cli, project: Path) -> None:  # type: ignore[no-untyped-def]
    (project / ".claude").mkdir()
    command = "/nonexistent/forge-tools hook --runtime claude"
    (project / ".claude" / "settings.json").write_text(json.dumps({"hooks": {"PreToolUse": [
        {"matcher": "*", "hooks": [{"type": "command", "command": command}]}]}}, indent=2))
    found = codes(cli)
    (missing,) = found["FT361"]
    assert missing["location"]["line"] == 7 and "does not exist" in missing["message"]
    (open_,) = found["FT362"]
    assert open_["location"]["line"] == 7


def test_disable_all_hooks_is_said_at_its_line(cli, project: Path) -> None:  # type: ignore[no-untyped-def]
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text('{\n  "disableAllHooks": true\n}\n')
    (finding,) = codes(cli)["FT363"]
    assert finding["location"]["line"] == 2 and "disableAllHooks = true" in finding["message"]


def test_a_weak_deny_without_a_hook_and_with_one(cli, project: Path) -> None:  # type: ignore[no-untyped-def]
    rules = {"permission": {"bash": {"*": "allow", "rm *": "deny"}}}
    (project / "opencode.json").write_text(json.dumps(rules, indent=2))
    found = codes(cli)
    assert "FT116" in found
    (weak,) = found["FT364"]
    assert weak["location"] == found["FT116"][0]["location"]
    assert "hook install --runtime opencode" in (weak["hint"] or "")
    assert cli("hook", "install", "--runtime", "opencode")[0] == 0
    assert "FT364" not in codes(cli)
