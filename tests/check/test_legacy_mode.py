"""opencode's deprecated top-level `mode.<name>` sections hold rules like `agent.<name>`: check analyses
them (it crashed on a trailing deny there) and diff compares them."""

from __future__ import annotations

import json
from pathlib import Path


def test_mode_sections_are_checked(project: Path, cli) -> None:
    (project / "forge.json").write_text(json.dumps({"mode": {"build": {
        "permission": {"bsh": "deny", "bash": {"git *": "allow", "*": "deny"}},
        "tools": {"read": False}}}}))
    code, out, err = cli("check", "--select", "FT", "--format", "json")
    assert code == 1, err
    found = {(f["code"], tuple(f["location"]["key_path"])) for f in json.loads(out)["findings"]}
    assert ("FT101", ("mode", "build", "permission", "bsh")) in found
    assert ("FT104", ("mode", "build", "permission", "bash", "*")) in found
    assert ("FT107", ("mode", "build", "tools")) in found


def test_mode_section_rules_are_compared(tmp_path: Path, cli) -> None:
    old, new = tmp_path / "old", tmp_path / "new"
    for d in (old, new):
        (d / ".git").mkdir(parents=True)
    (old / "forge.json").write_text("{}")
    (new / "forge.json").write_text(json.dumps({"mode": {"build": {"permission": {"webfetch": "deny"}}}}))
    _code, out, _ = cli("diff", str(old), str(new), "--format", "json")
    data = json.loads(out)
    rules = [(r["scope"], r["change"], r["rule"]) for r in data["rules"]]
    assert rules == [("build", "added", 'webfetch "*" deny')]
    assert [(t["agent"], t["tool"], t["became"]) for t in data["tools"]] == [("build", "webfetch", "hidden")]
