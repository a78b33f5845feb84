"""FT112 (issue 9): project config cannot quietly loosen the person's rules. A project file or project
Markdown agent that turns a deny of the global config into ask or allow is a warning with both
locations, and `explain` says which global rule the project overrode. Each positive case is also
checked for its effect: the call the global deny covers really is no longer denied."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest


@pytest.fixture
def global_dir(isolated_env: dict[str, Path]) -> Path:
    d = isolated_env["home"] / ".config" / "forge"
    d.mkdir(parents=True)
    return d


def write(path: Path, data: dict[str, Any]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2) + "\n")
    return path


def line_of(path: Path, needle: str) -> int:
    return next(i for i, line in enumerate(path.read_text().splitlines(), 1) if needle in line)


def ft112(cli: Any) -> list[dict[str, Any]]:
    code, out, err = cli("check", "--format", "json")
    assert code in (0, 1), err
    return [f for f in json.loads(out)["findings"] if f["code"] == "FT112"]


def call_action(cli: Any, tool: str, args: dict[str, Any], agent: str = "build") -> str:
    code, out, err = cli("explain", tool, "--agent", agent, "--call", json.dumps(args), "--format", "json")
    assert code == 0, err
    return str(json.loads(out)["call"]["action"])


GLOBAL = {"permission": {"bash": {"*": "allow", "rm *": "deny"}, "webfetch": {"*evil.example*": "deny"}}}

LOOSENING = [
    # (project config, a call the global deny covers, the action it gets now)
    ({"permission": {"bash": {"rm -rf build/*": "allow"}}}, ("bash", {"command": "rm -rf build/x"}), "allow"),
    ({"permission": {"bash": {"rm *": "ask"}}}, ("bash", {"command": "rm x"}), "ask"),
    ({"permission": {"bash": "allow"}}, ("bash", {"command": "rm x"}), "allow"),
    ({"permission": {"*": "allow"}}, ("bash", {"command": "rm x"}), "allow"),
    ({"permission": "ask"}, ("bash", {"command": "rm x"}), "ask"),
    ({"permission": {"webfetch": {"https://*": "allow"}}},
     ("webfetch", {"url": "https://evil.example/x"}), "allow"),
    ({"agent": {"build": {"permission": {"bash": {"rm *.log": "allow"}}}}},
     ("bash", {"command": "rm a.log"}), "allow"),
]


@pytest.mark.parametrize("project_config,call,now", LOOSENING)
@pytest.mark.parametrize("name", ["forge.json", ".forge/forge.json", "opencode.json"])
def test_a_project_rule_that_loosens_a_global_deny_is_ft112(
    cli: Any, project: Path, global_dir: Path, project_config: dict[str, Any], call: Any, now: str,
    name: str,
) -> None:
    glob = write(global_dir / "forge.json", GLOBAL)
    proj = write(project / name, project_config)
    tool, args = call
    assert call_action(cli, tool, args) == now  # the loosening is real
    found = ft112(cli)
    assert found, "no FT112"
    f = found[0]
    assert f["level"] == "warning"
    assert f["location"]["path"].endswith(name) and f["location"]["line"] >= 1
    assert f["related"][0]["label"] == "global deny"
    assert f["related"][0]["location"]["path"] == str(glob)
    deny = f["data"]["global_rule"]
    assert deny["action"] == "deny"
    assert line_of(glob, json.dumps(deny["pattern"])) == f["related"][0]["location"]["line"]
    assert f["data"]["project_rule"]["origin"]["path"] == str(proj)


def test_a_project_markdown_agent_that_loosens_a_global_deny(cli: Any, project: Path,
                                                            global_dir: Path) -> None:
    write(global_dir / "forge.json", GLOBAL)
    agent = project / ".forge" / "agents" / "cleaner.md"
    agent.parent.mkdir(parents=True)
    agent.write_text('---\ndescription: cleans\npermission:\n  bash:\n    "rm *": allow\n---\nClean up.\n')
    assert call_action(cli, "bash", {"command": "rm x"}, agent="cleaner") == "allow"
    found = ft112(cli)
    assert len(found) == 1
    assert found[0]["location"]["path"].endswith("cleaner.md") and found[0]["location"]["line"] == 5
    assert found[0]["data"]["agents"] == ["cleaner"]


def test_forge_config_is_the_persons_too(cli: Any, project: Path, tmp_path: Path,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    mine = write(tmp_path / "mine.json", {"permission": {"read": {"*.pem": "deny"}}})
    monkeypatch.setenv("FORGE_CONFIG", str(mine))
    write(project / "forge.json", {"permission": {"read": "allow"}})
    found = ft112(cli)
    assert [f["related"][0]["location"]["path"] for f in found] == [str(mine)]


HOLDING = [
    {"permission": {"bash": {"git *": "allow"}}},  # does not overlap `rm *`
    {"permission": {"bash": {"rm -rf /": "deny"}}},  # a stricter project rule
    {"permission": {"bash": {"*": "ask"}}},  # takes the `*` key's place, before `rm *`: the deny holds
    {"permission": {"read": "allow", "edit": {"*": "ask"}}},  # other permissions
    {"tools": {"bash": True}},  # legacy booleans come before the permission keys: the deny holds
    {},
]


@pytest.mark.parametrize("project_config", HOLDING)
def test_no_finding_when_the_global_deny_still_holds(cli: Any, project: Path, global_dir: Path,
                                                    project_config: dict[str, Any]) -> None:
    write(global_dir / "forge.json", GLOBAL)
    write(project / "forge.json", project_config)
    assert call_action(cli, "bash", {"command": "rm x"}) == "deny"
    assert ft112(cli) == []


def test_no_finding_without_a_global_deny(cli: Any, project: Path, global_dir: Path) -> None:
    write(global_dir / "forge.json", {"permission": {"bash": {"rm *": "ask"}}})
    write(project / "forge.json", {"permission": {"bash": "allow"}})
    assert ft112(cli) == []


def test_no_finding_for_a_global_rule_the_person_loosened_themself(cli: Any, project: Path,
                                                                   global_dir: Path) -> None:
    write(global_dir / "forge.json", {"permission": {"bash": {"rm *": "deny"}}})
    write(global_dir / "forge.yaml", GLOBAL | {"permission": {"bash": {"rm *": "allow"}}})
    write(project / "forge.json", {"permission": {"bash": {"rm -rf x": "allow"}}})
    assert ft112(cli) == []


def test_explain_names_the_global_rule_the_project_overrode(cli: Any, project: Path,
                                                           global_dir: Path) -> None:
    glob = write(global_dir / "forge.json", GLOBAL)
    proj = write(project / "forge.json", {"permission": {"bash": {"rm -rf build/*": "allow"}}})
    code, out, err = cli("explain", "bash", "--call", '{"command": "rm -rf build/x"}')
    assert code == 0, err
    notes = [line for line in out.splitlines() if "overrides the global deny" in line]
    assert len(notes) == 1
    assert f"{proj}:{line_of(proj, 'rm -rf build')}" in notes[0]
    assert f"{glob}:{line_of(glob, 'rm *')}" in notes[0] and "'rm *'" in notes[0]
    code, out, _ = cli("explain", "bash", "--format", "json")
    overrides = json.loads(out)["overrides"]
    assert [o["global_rule"]["pattern"] for o in overrides] == ["rm *"]
    code, out, _ = cli("explain", "read")  # another permission: nothing to say
    assert "overrides the global deny" not in out


def test_the_deny_index_keeps_every_deny_a_rule_can_overlap() -> None:
    """FT112 asks only the denies `_DenyIndex` returns (issue 31): on generated patterns, every deny
    whose pattern overlaps the rule's is among them, in the denies' order."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from forge_tools.origin import Origin
    from forge_tools.permission.overrides import _DenyIndex
    from forge_tools.permission.wildcard import patterns_overlap
    from forge_tools.rule import Rule

    where = Origin("file", path="x.json", line=1, column=1)
    patterns = st.text(alphabet="ab/*? ", max_size=6)

    @settings(max_examples=300, deadline=None)
    @given(denies=st.lists(patterns, max_size=30), pattern=patterns)
    def check(denies: list[str], pattern: str) -> None:
        rules = [Rule("bash", p, "deny", where) for p in denies]
        rule = Rule("bash", pattern, "allow", where)
        got = _DenyIndex(rules).candidates(rule)
        assert [d for d in rules if patterns_overlap(d.pattern, pattern)] == [
            d for d in got if patterns_overlap(d.pattern, pattern)]
        assert got == [d for d in rules if d in got]  # the denies' order

    check()
