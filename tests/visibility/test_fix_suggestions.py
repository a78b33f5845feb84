"""`explain`'s fix suggestion is only useful if applying it makes the tool visible: apply each one."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest


def story(cli: Any, tool: str, *args: str) -> dict[str, Any]:
    code, out, err = cli("explain", tool, *args, "--format", "json")
    assert code == 0, err
    data: dict[str, Any] = json.loads(out)
    return data


@pytest.mark.parametrize(
    ("before", "agent", "tool", "says", "after"),
    [
        # the only hiding rule: removing it is enough (and so is ask)
        ('[permission]\ntodowrite = "deny"\n', "build", "todowrite", "remove the rule",
         '[permission]\n'),
        # an earlier builtin `* deny` would take over: only changing the action helps
        ('[permission]\ntodowrite = "deny"\n', "explore", "todowrite", 'change the action of',
         '[permission]\ntodowrite = "ask"\n'),
        # a wildcard deny: a rule for the tool after it
        ('[permission]\n"*" = "deny"\nread = "allow"\n', "build", "grep", 'permission.grep = "ask"',
         '[permission]\n"*" = "deny"\nread = "allow"\ngrep = "ask"\n'),
        # the one-action form cannot take a key: it becomes a map
        ('permission = "deny"\n', "build", "grep", 'permission = {"*" = "deny", grep = "ask"}',
         'permission = {"*" = "deny", "grep" = "ask"}\n'),
        # a builtin agent rule: a rule in the agent's own config comes after it
        ("", "explore", "todowrite", 'agent.explore.permission.todowrite = "ask"',
         '[agent.explore.permission]\ntodowrite = "ask"\n'),
    ],
)
def test_the_suggested_fix_makes_the_tool_visible(
    cli: Any, project: Path, before: str, agent: str, tool: str, says: str, after: str
) -> None:
    (project / "forge.toml").write_text(before)
    hidden = story(cli, tool, "--agent", agent)
    assert not hidden["visible"]
    assert says in hidden["fix"]
    (project / "forge.toml").write_text(after)
    assert story(cli, tool, "--agent", agent)["visible"]


def test_removal_is_not_offered_when_an_earlier_rule_would_still_hide(cli: Any, project: Path) -> None:
    (project / "forge.toml").write_text('[permission]\ntodowrite = "deny"\n')
    fix = story(cli, "todowrite", "--agent", "explore")["fix"]
    assert "remove" not in fix.split(";")[0]
    assert "builtin agent explore" in fix  # names the rule that would take over
    (project / "forge.toml").write_text("")
    assert not story(cli, "todowrite", "--agent", "explore")["visible"]


@pytest.mark.parametrize(
    ("name", "before", "agent", "tool", "says", "after"),
    [
        # JSON: a key in the same object, after the hiding rule
        ("opencode.json", '{"permission": {"*": "deny", "read": "allow"}}', "build", "grep",
         '"grep": "ask"', '{"permission": {"*": "deny", "read": "allow", "grep": "ask"}}'),
        # JSON: the one-action form becomes an object
        ("opencode.json", '{"permission": "deny"}', "build", "grep",
         '"permission": {"*": "deny", "grep": "ask"}', '{"permission": {"*": "deny", "grep": "ask"}}'),
        # JSONC: JSON syntax too
        ("opencode.jsonc", '// mine\n{"permission": "deny"}', "build", "grep",
         '"permission": {"*": "deny", "grep": "ask"}', '{"permission": {"*": "deny", "grep": "ask"}}'),
        # YAML: the one-action form becomes a flow map
        ("forge.yaml", "permission: deny\n", "build", "grep", 'permission: {"*": deny, grep: ask}',
         'permission: {"*": deny, grep: ask}\n'),
        # a builtin agent rule, the project's config being JSON: nested objects, not a dotted key
        ("opencode.json", "{}", "explore", "todowrite",
         '"agent": {"explore": {"permission": {"todowrite": "ask"}}}',
         '{"agent": {"explore": {"permission": {"todowrite": "ask"}}}}'),
    ],
)
def test_the_fix_is_written_in_the_config_files_syntax(
    cli: Any, project: Path, name: str, before: str, agent: str, tool: str, says: str, after: str
) -> None:
    (project / name).write_text(before)
    hidden = story(cli, tool, "--agent", agent)
    assert not hidden["visible"]
    assert says in hidden["fix"], hidden["fix"]
    assert "permission = " not in hidden["fix"] and "permission." not in hidden["fix"]  # no TOML
    (project / name).write_text(after)
    assert story(cli, tool, "--agent", agent)["visible"]


def _example(fix: str) -> str:
    """The map the reorder fix says to write, as it says to write it."""
    assert "write the map as " in fix, fix
    return fix.split("write the map as ", 1)[1].split(" (the last", 1)[0].split(" in the `", 1)[0]


def _decide(cli: Any, tool: str, args: dict[str, str]) -> str:
    action: str = story(cli, tool, "--call", json.dumps(args))["call"]["action"]
    return action


@pytest.mark.parametrize(
    ("name", "before", "wrap"),
    [
        ("forge.toml", '[permission.grep]\n"src/*" = "allow"\n"*" = "deny"\n', "{}\n"),
        ("forge.toml", '[permission]\ngrep = {"src/*" = "allow", "*" = "deny"}\n', "{}\n"),
        ("opencode.json", '{"permission": {"grep": {"src/*": "allow", "*": "deny"}}}',
         '{{"permission": {{{}}}}}'),
        ("opencode.jsonc", '// policy\n{"permission": {"grep": {"src/*": "allow", "*": "deny",}}}',
         '{{"permission": {{{}}}}}'),
        ("forge.yaml", 'permission:\n  grep:\n    "src/*": allow\n    "*": deny\n', "permission:\n  {}\n"),
    ],
)
def test_a_trailing_deny_after_allows_is_fixed_by_reordering_not_by_loosening(
    cli: Any, project: Path, name: str, before: str, wrap: str
) -> None:
    (project / name).write_text(before)
    hidden = story(cli, "grep")
    assert not hidden["visible"]
    fix = hidden["fix"]
    assert "remove" not in fix and '"ask"' not in fix and "ask (" not in fix
    (project / name).write_text(wrap.format(_example(fix)))
    assert story(cli, "grep")["visible"]
    assert _decide(cli, "grep", {"pattern": "src/main"}) == "allow"
    assert _decide(cli, "grep", {"pattern": "password"}) == "deny"  # the deny still holds elsewhere


def test_the_reorder_keeps_specific_denies_and_asks_in_their_order(cli: Any, project: Path) -> None:
    (project / "forge.toml").write_text(
        '[permission.bash]\n"git *" = "allow"\n"git push *" = "ask"\n"rm *" = "deny"\n"*" = "deny"\n')
    fix = story(cli, "bash")["fix"]
    (project / "forge.toml").write_text(_example(fix) + "\n")
    assert story(cli, "bash")["visible"]
    assert _decide(cli, "bash", {"command": "git status"}) == "allow"
    assert _decide(cli, "bash", {"command": "git push origin"}) == "ask"
    assert _decide(cli, "bash", {"command": "rm -rf build"}) == "deny"
    assert _decide(cli, "bash", {"command": "curl example.com"}) == "deny"


def test_a_trailing_wildcard_deny_after_a_tools_allows_says_to_move_them(cli: Any, project: Path) -> None:
    (project / "forge.toml").write_text('[permission]\ngrep = {"src/*" = "allow"}\n"*" = "deny"\n')
    fix = story(cli, "grep")["fix"]
    assert "move the rules for grep after" in fix and '"ask"' not in fix
    example = fix.split("e.g. ", 1)[1].split(" (the last", 1)[0]
    rule = example.replace("permission.", "")
    (project / "forge.toml").write_text(f'[permission]\n"*" = "deny"\n{rule}\n')
    assert story(cli, "grep")["visible"]
    assert _decide(cli, "grep", {"pattern": "src/x"}) == "allow"
    assert _decide(cli, "grep", {"pattern": "secret"}) == "deny"


def test_without_earlier_allows_the_action_change_is_still_offered(cli: Any, project: Path) -> None:
    (project / "forge.toml").write_text('[permission.grep]\n"src/*" = "deny"\n"*" = "deny"\n')
    assert "change its action" in story(cli, "grep")["fix"]


def test_allows_of_another_level_are_not_taken_as_the_agents_intent(cli: Any, project: Path) -> None:
    # the build agent denies bash outright: a top-level `git *` allow must not be offered back to it
    (project / "forge.toml").write_text(
        '[permission.bash]\n"git *" = "allow"\n\n[agent.build.permission]\nbash = "deny"\n')
    fix = story(cli, "bash")["fix"]
    assert "write the map as" not in fix and "git" not in fix
