"""FT111: an opencode.json that forge-tools accepts but opencode 1.18.33 refuses (tests/compat has the
recorded refusal for `todowrite`)."""

from __future__ import annotations

import json
from pathlib import Path


def findings(cli, *args: str) -> tuple[int, list[dict]]:
    code, out, err = cli("check", *args, "--format", "json")
    assert "Traceback" not in err
    return code, json.loads(out)["findings"]


def test_pattern_map_for_an_action_only_permission_in_opencode_json(project: Path, cli) -> None:
    (project / "opencode.json").write_text(
        '{\n  "permission": {\n    "webfetch": {"*": "ask", "https://docs.*": "allow"},\n'
        '    "bash": {"*": "ask"}\n  },\n'
        '  "agent": {"build": {"permission": {"todowrite": {"*": "deny"}}}}\n}\n')
    _code, found = findings(cli)
    ft111 = [f for f in found if f["code"] == "FT111"]
    assert [(f["location"]["line"], f["location"]["column"]) for f in ft111] == [(3, 5), (6, 38)]
    assert "webfetch" in ft111[0]["message"] and "todowrite" in ft111[1]["message"]
    assert all(f["level"] == "warning" for f in ft111)


def test_the_same_map_in_a_forge_file_is_fine(project: Path, cli) -> None:
    (project / "forge.json").write_text('{"permission": {"webfetch": {"*": "ask", "https://x/*": "allow"}}}')
    code, found = findings(cli)
    assert code == 0
    assert not [f for f in found if f["code"] == "FT111"]


def test_recorded_opencode_refusal_is_reported(project: Path, cli) -> None:
    case = Path(__file__).resolve().parents[1] / "compat" / "fixtures" / "invalid-pattern-map"
    (project / "opencode.json").write_text((case / "opencode.json").read_text())
    _code, found = findings(cli)
    assert any(f["code"] == "FT111" and "todowrite" in f["message"] for f in found)
