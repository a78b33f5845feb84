"""Every bad-input case of the config is a located finding, and all bad files are reported at once."""

from __future__ import annotations

import json
from pathlib import Path


def codes_at(out: str) -> set[tuple[str, str, int]]:
    data = json.loads(out)
    return {(f["code"], f["location"]["path"], f["location"]["line"]) for f in data["findings"]}


def test_every_bad_file_is_reported_in_one_run(project: Path, cli) -> None:
    (project / "forge.json").write_text(
        '{\n'
        '  "permision": {"bash": "allow"},\n'                               # FT004 line 2
        '  "permission": {"bash": {"git *": "alow"}, "read": 3},\n'       # FT003, FT002 line 3
        '  "agent": {"plan": {"prompt": "{file:missing.txt}"}}\n'         # FT005 line 4
        '}\n')
    forge = project / ".forge"
    forge.mkdir()
    (forge / "forge.toml").write_text('model = "a/b"\npermission = {\n')  # FT001 TOML
    opencode = project / ".opencode"
    opencode.mkdir()
    (opencode / "forge.yaml").write_text("permission:\n  bash: allow\n  bash: deny\n")  # FT007 YAML line 3
    code, out, err = cli("check", "--format", "json")
    assert code == 1, err
    found = codes_at(out)
    assert ("FT004", "forge.json", 2) in found
    assert ("FT003", "forge.json", 3) in found
    assert ("FT002", "forge.json", 3) in found
    assert ("FT005", "forge.json", 4) in found
    assert any(c == "FT001" and p == ".forge/forge.toml" for c, p, _ in found)
    assert ("FT007", ".opencode/forge.yaml", 3) in found
    assert "Traceback" not in out + err


def test_json_syntax_error_has_line_and_column(project: Path, cli) -> None:
    (project / "forge.json").write_text('{\n  "permission": {\n    "bash": "allow",,\n  }\n}\n')
    code, out, _ = cli("check", "--format", "json")
    assert code == 1
    finding = json.loads(out)["findings"][0]
    assert finding["code"] == "FT001"
    assert finding["location"]["line"] == 3 and finding["location"]["column"] is not None


def test_yaml_syntax_error(project: Path, cli) -> None:
    (project / "forge.yaml").write_text("permission:\n  bash: [allow\n")
    code, out, _ = cli("check", "--format", "json")
    assert code == 1
    assert [f["code"] for f in json.loads(out)["findings"]] == ["FT001"]


def test_unreadable_file_and_duplicate_json_key(project: Path, cli) -> None:
    (project / "forge.json").mkdir()  # a directory where a file should be
    (project / "opencode.json").write_text('{"model": "a/b", "model": "c/d"}')
    code, out, _ = cli("check", "--format", "json")
    assert code == 1
    found = codes_at(out)
    assert ("FT006", "forge.json", 1) in found
    assert ("FT007", "opencode.json", 1) in found


def test_not_utf8_is_unreadable(project: Path, cli) -> None:
    (project / "forge.json").write_bytes(b'{"model": "\xff\xfe"}')
    code, out, _ = cli("check", "--format", "json")
    assert code == 1
    assert [f["code"] for f in json.loads(out)["findings"]] == ["FT006"]


def test_config_overlay_errors_are_findings(project: Path, cli) -> None:
    overlay = project / "extra.json"
    overlay.write_text('{"permission": {"bash": "maybe"}}')
    code, out, _ = cli("check", "--config", str(overlay), "--format", "json")
    assert code == 1
    assert codes_at(out) == {("FT003", "extra.json", 1)}


def test_missing_project_exits_3(tmp_path: Path, cli) -> None:
    code, _out, err = cli("check", str(tmp_path / "nope"))
    assert code == 3
    assert "not a directory" in err and "Traceback" not in err


def test_no_config_at_all_is_clean(project: Path, cli) -> None:
    code, out, _ = cli("check")
    assert code == 0, out


def test_failed_substitution_is_reported_once(project: Path, cli) -> None:
    """An action taken from a missing `{file:}` is one FT005, not also an unknown action."""
    (project / "forge.json").write_text('{"permission": {"read": "{file:./nope.txt}"}}')
    _code, out, _ = cli("check", "--format", "json")
    assert [f["code"] for f in json.loads(out)["findings"]] == ["FT005"]
