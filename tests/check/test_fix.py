"""Issue 11: `check --fix` makes the fixable findings go away in every format, keeps comments, and the
effective rules afterwards are what each fix said; `--diff` shows the change and writes nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

JSONC = """{
  // team policy: reviewed by security
  "permission": {
    "webfetch": {"https://docs.example.com/*": "allow", /* docs only */ "*": "deny"},
    "grpe": "deny", // searching is not for agents
    "write": "ask",
    "bash": {"rm *": "deny"} // forge-tools: ignore FT105 -- rm stays visible
  },
  "agent": {
    "build": {"tools": {"todowrite": false, "patch": true}} // legacy form
  }
}
"""
YAML = """\
# team policy: reviewed by security
permission:
  webfetch:
    "https://docs.example.com/*": allow  # docs only
    '*': deny
  grpe: deny  # searching is not for agents
  write: ask
  bash: {"rm *": deny}  # forge-tools: ignore FT105 -- rm stays visible
agent:
  build:
    tools: {todowrite: false, patch: true}  # legacy form
"""
TOML = """\
# team policy: reviewed by security
[permission]
grpe = "deny" # searching is not for agents
write = "ask"
bash = {"rm *" = "deny"} # forge-tools: ignore FT105 -- rm stays visible

[permission.webfetch]
"https://docs.example.com/*" = "allow" # docs only
"*" = "deny"

[agent.build.tools] # legacy form
todowrite = false
patch = true
"""
CASES = {"forge.jsonc": JSONC, "forge.yaml": YAML, "forge.toml": TOML}
FIXED_CODES = {"FT101", "FT104", "FT107", "FT110"}


def codes(cli) -> list[str]:
    code, out, err = cli("check", "--select", "FT", "--format", "json")
    assert code in (0, 1), err
    return [f["code"] for f in json.loads(out)["findings"]]


def rules(cli, agent: str) -> list[tuple[str, str, str]]:
    code, out, err = cli("rules", "--agent", agent, "--format", "json")
    assert code == 0, err
    return [(r["permission"], r["pattern"], r["action"]) for r in json.loads(out)["rules"]
            if r["origin"]["kind"] == "file"]


@pytest.mark.parametrize("name", list(CASES))
def test_fix_makes_check_clean_keeps_comments_and_does_what_it_said(project: Path, cli, name: str) -> None:
    path = project / name
    path.write_text(CASES[name])
    assert set(codes(cli)) >= FIXED_CODES
    before = {agent: rules(cli, agent) for agent in ("build", "plan")}

    code, out, err = cli("check", "--select", "FT", "--fix", "--format", "json")
    assert code == 0, (out, err)
    for said in ("renamed 'grpe' to 'grep'", "renamed 'write' to 'edit'",
                 'moved permission.webfetch."*" = deny first', "replaced agent.build.tools with "
                 "agent.build.permission"):
        assert said in err
    assert not set(codes(cli)) & FIXED_CODES
    assert not [f for f in json.loads(out)["findings"] if f["code"] in FIXED_CODES]

    text = path.read_text()
    for comment in ("team policy: reviewed by security", "searching is not for agents", "docs only",
                    "legacy form", "forge-tools: ignore FT105 -- rm stays visible"):
        assert comment in text, text
    assert "FT114" not in codes(cli)  # the suppression still suppresses

    def renamed(rule: tuple[str, str, str]) -> tuple[str, str, str]:
        return ({"grpe": "grep", "write": "edit"}.get(rule[0], rule[0]), rule[1], rule[2])

    for agent, old in before.items():
        expected = [renamed(r) for r in old]
        docs = ("webfetch", "https://docs.example.com/*", "allow")
        hide = ("webfetch", "*", "deny")
        i, j = expected.index(docs), expected.index(hide)
        expected[i], expected[j] = hide, docs  # the deny first, then the allow
        assert rules(cli, agent) == expected
    # the legacy tools map became the same rules in permission form (patch is checked as edit)
    assert ("todowrite", "*", "deny") in rules(cli, "build") and ("edit", "*", "allow") in rules(cli, "build")


def test_fix_keeps_the_untouched_text_byte_for_byte_in_jsonc(project: Path, cli) -> None:
    (project / "forge.jsonc").write_text(JSONC)
    cli("check", "--select", "FT", "--fix")
    new = (project / "forge.jsonc").read_text()
    assert new.splitlines()[:3] == JSONC.splitlines()[:3]
    assert '"webfetch": {"*": "deny", /* docs only */ "https://docs.example.com/*": "allow"},' in new
    assert '"grep": "deny", // searching is not for agents' in new
    assert '"build": {"permission": {"todowrite": "deny", "edit": "allow"}} // legacy form' in new


def test_diff_shows_the_change_and_writes_nothing(project: Path, cli) -> None:
    path = project / "forge.yaml"
    path.write_text(YAML)
    code, out, _ = cli("check", "--select", "FT", "--fix", "--diff")
    assert code == 1
    assert "--- a/forge.yaml" in out and "-  grpe: deny" in out and "+  grep: deny" in out
    assert path.read_text() == YAML
    assert cli("check", "--diff")[0] == 2  # --diff needs --fix


def test_unsafe_renames_are_not_made(project: Path, cli) -> None:
    original = ('{"permission": {"webfech": "deny", "grpe": "deny", "grep": "allow", '
                '"write": "ask", "edit": "deny"}}\n')
    (project / "forge.json").write_text(original)
    code, _, _ = cli("check", "--select", "FT", "--fix")
    assert code == 1
    assert (project / "forge.json").read_text() == original  # two suggestions, or the key exists
    found = codes(cli)
    assert found.count("FT101") == 2 and "FT110" in found and "FT007" not in found


def test_tools_map_merging_with_permission_is_left_alone(project: Path, cli) -> None:
    original = '{"tools": {"bash": false}, "permission": {"edit": "ask"}}\n'
    (project / "forge.json").write_text(original)
    cli("check", "--select", "FT", "--fix")
    assert (project / "forge.json").read_text() == original
    assert "FT107" in codes(cli)


def test_files_outside_the_project_are_not_edited(project: Path, cli, isolated_env) -> None:
    global_dir = isolated_env["home"] / ".config" / "forge"
    global_dir.mkdir(parents=True)
    original = '{"permission": {"grpe": "deny"}}\n'
    (global_dir / "forge.json").write_text(original)
    outside = project.parent / "elsewhere.json"
    outside.write_text('{"permission": {"write": "ask"}}\n')
    (project / "forge.json").symlink_to(outside)
    code, _, err = cli("check", "--select", "FT", "--fix")
    assert (global_dir / "forge.json").read_text() == original
    assert outside.read_text() == '{"permission": {"write": "ask"}}\n'
    assert err.count("outside the project") == 2 and code == 1
