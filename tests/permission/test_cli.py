"""`forge-tools agents` and `forge-tools rules` on real project files (JSON, TOML, YAML)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

FILES = {
    "opencode.json": """{
  "$schema": "https://opencode.ai/config.json",
  "permission": {
    "bash": {"*": "ask", "rm *": "deny"}
  },
  "agent": {
    "plan": {"permission": {"webfetch": "deny"}},
    "reviewer": {"mode": "subagent", "description": "Reviews diffs", "tools": {"write": false}}
  }
}
""",
    "forge.toml": """[permission.bash]
"*" = "ask"
"rm *" = "deny"

[agent.plan.permission]
webfetch = "deny"

[agent.reviewer]
mode = "subagent"
description = "Reviews diffs"
tools = { write = false }
""",
    "forge.yaml": """permission:
  bash:
    "*": ask
    "rm *": deny
agent:
  plan:
    permission:
      webfetch: deny
  reviewer:
    mode: subagent
    description: Reviews diffs
    tools:
      write: false
""",
}

# (line, column) of the `reviewer` key and of the plan's file rules `bash *`, `bash rm *`, `webfetch`
REVIEWER_AT = {"opencode.json": (8, 5), "forge.toml": (8, 2), "forge.yaml": (9, 3)}
PLAN_RULES_AT = {
    "opencode.json": [(4, 14), (4, 26), (7, 29)],
    "forge.toml": [(2, 1), (3, 1), (6, 1)],
    "forge.yaml": [(3, 5), (4, 5), (8, 7)],
}


@pytest.fixture(params=sorted(FILES))
def configured(request: pytest.FixtureRequest, project: Path) -> str:
    name = str(request.param)
    (project / name).write_text(FILES[name])
    return name


def test_agents_text(cli, configured: str) -> None:
    code, out, err = cli("agents")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].split() == ["AGENT", "MODE", "STATUS", "ORIGIN", "DESCRIPTION"]
    names = [line.split()[0] for line in lines[1:]]
    # opencode agent list's order; an opencode project has opencode's hidden agents too
    hidden = ["compaction", "summary", "title"] if configured.startswith("opencode") else []
    assert names == [*sorted(["build", "explore", "general", "plan", *hidden]), "reviewer"]
    build = lines[1]
    assert "primary" in build and "default" in build and "builtin" in build
    reviewer = lines[names.index("reviewer") + 1]
    assert "subagent" in reviewer and configured in reviewer and "Reviews diffs" in reviewer


def test_agents_json(cli, configured: str) -> None:
    code, out, _ = cli("agents", "--format", "json")
    assert code == 0
    data = json.loads(out)
    assert data["default_agent"] == "build"
    by_name = {a["name"]: a for a in data["agents"]}
    assert by_name["reviewer"]["mode"] == "subagent" and not by_name["reviewer"]["builtin"]
    assert by_name["plan"]["config_origin"]["path"].endswith(configured)
    # the same origin object as `rules` and `layers` (kind, path, line, column, description)
    code, out, _ = cli("rules", "--agent", "reviewer", "--format", "json")
    rule_origin = json.loads(out)["rules"][-2]["origin"]
    for agent in data["agents"]:
        assert set(agent["origin"]) == set(rule_origin)
        assert agent["config_origin"] is None or set(agent["config_origin"]) == set(rule_origin)
    assert by_name["build"]["origin"]["kind"] == "builtin-agent"
    assert by_name["build"]["origin"]["description"] == "builtin agent build"
    reviewer = by_name["reviewer"]["origin"]
    assert reviewer["kind"] == "file" and reviewer["path"].endswith(configured)
    assert configured in reviewer["description"]
    # where `reviewer` is written in each fixture (TOML: the table header's name)
    assert (reviewer["line"], reviewer["column"]) == REVIEWER_AT[configured]


def test_rules_plan_in_order_with_origins(cli, configured: str) -> None:
    code, out, err = cli("rules", "--agent", "plan", "--format", "json")
    assert code == 0, err
    rules = json.loads(out)["rules"]
    triples = [(r["permission"], r["pattern"], r["action"]) for r in rules]
    file_rules = [
        (t, r["origin"]) for t, r in zip(triples, rules, strict=True) if r["origin"]["kind"] == "file"
    ]
    assert [t for t, _ in file_rules] == [
        ("bash", "*", "ask"), ("bash", "rm *", "deny"), ("webfetch", "*", "deny")
    ]
    for _, origin in file_rules:
        assert origin["path"].endswith(configured)
    # each rule points at its own pattern key in the fixture text
    assert [(o["line"], o["column"]) for _, o in file_rules] == PLAN_RULES_AT[configured]
    assert triples.index(("edit", "*", "deny")) < triples.index(("bash", "*", "ask"))
    assert rules[-1]["permission"] == "external_directory"
    assert [r["index"] for r in rules] == list(range(1, len(rules) + 1))


def test_rules_text_names_origins(cli, configured: str) -> None:
    code, out, _ = cli("rules", "--agent", "reviewer")
    assert code == 0
    assert out.startswith("Answering: ") and out.splitlines()[1].startswith("agent reviewer (subagent)")
    edit_line = next(line for line in out.splitlines() if line.split()[1:4] == ["edit", "*", "deny"])
    assert configured in edit_line
    assert "builtin agent" not in out


def test_rules_default_agent_from_config(cli, project: Path) -> None:
    (project / "forge.json").write_text('{"default_agent": "plan"}')
    code, out, _ = cli("rules")
    assert code == 0 and out.splitlines()[1].startswith("agent plan (primary)")


def test_rules_without_any_config(cli) -> None:
    code, out, _ = cli("rules")
    assert code == 0
    assert "builtin agent build" in out and "default (truncation directory)" in out


def test_unknown_agent_did_you_mean(cli) -> None:
    code, out, err = cli("rules", "--agent", "pln")
    assert code == 1 and out == ""
    assert "unknown agent 'pln'" in err and "'plan'" in err and "Traceback" not in err


def test_disabled_agent_is_listed(cli, project: Path) -> None:
    (project / "forge.json").write_text('{"agent": {"general": {"disable": true}}}')
    code, out, _ = cli("agents")
    assert code == 0
    general = next(line for line in out.splitlines() if line.startswith("general"))
    assert "disabled" in general


def test_bad_format_is_a_usage_error(cli) -> None:
    code, _, err = cli("agents", "--format", "xml")
    assert code == 2 and "--format" in err


def test_bad_default_agent_is_a_config_error_where_the_default_is_needed(cli, project: Path) -> None:
    """issue 17: like opencode 1.18.33 (tests/compat/layouts/agent-files), `agents` still lists the
    agents and warns; a command that runs as the default agent stops."""
    (project / "forge.json").write_text('{\n  "default_agent": "explore"\n}\n')
    code, out, err = cli("agents", "--format", "json")
    assert code == 0 and "forge.json:2:" in err and "subagent" in err
    assert json.loads(out)["default_agent"] is None and "subagent" in json.loads(out)["default_agent_problem"]
    code, _, err = cli("layers")
    assert code == 3
    assert "forge.json:2:" in err and "subagent" in err


def test_rules_text_quotes_patterns_a_plain_cell_would_hide(cli, project: Path) -> None:  # type: ignore[no-untyped-def]
    (project / "forge.json").write_text(json.dumps(
        {"permission": {"bash": {"git ": "allow", "": "deny", "a\nb": "ask", "ls *": "allow"}}}))
    code, out, err = cli("rules")
    assert code == 0, err
    lines = out.splitlines()[1:]  # after who answers
    assert all(line.split()[0].isdigit() for line in lines[2:])  # one line per rule, newline or not
    bash = [line.split(None, 2)[2] for line in lines[2:] if line.split()[1] == "bash"]
    assert [cell.split("  ")[0] for cell in bash] == ['"git "', '""', '"a\\nb"', "ls *"]


@pytest.mark.parametrize(
    ("name", "text", "line", "says"),
    [
        ("s.yaml", "modle: acme/x\npermission:\n  bash: ask\n", 1, "did you mean 'model'?"),
        ("s.json", '{"permission": {"bash": "ask"},\n "permision": {}}', 2, "did you mean 'permission'?"),
        ("s.toml", '[permission]\nbash = "ask"\n\n[agent.build]\nmode = "primary"\n', 4, "--agent"),
        ("s.yaml", "model: acme/x\npermission:\n  bash: ask\n", 1, "--model"),
    ],
)
@pytest.mark.parametrize("command", [("layers",), ("explain", "bash"), ("run", "bash")])
def test_a_session_file_with_anything_but_permission_is_a_located_error(
    cli, project: Path, name: str, text: str, line: int, says: str, command: tuple[str, ...]
) -> None:
    overlay = project / name
    overlay.write_text(text)
    extra = ("--args", '{"command": "true"}', "--yes") if command[0] == "run" else ()
    code, out, err = cli(*command, "--session-permission", str(overlay), *extra)
    assert code == 3, (out, err)
    assert f"{overlay}:{line}:" in err and says in err and "only a `permission` map" in err
    assert "Traceback" not in err and out == ""


def test_a_session_files_bad_action_is_located_with_did_you_mean(cli, project: Path) -> None:
    overlay = project / "s.yaml"
    overlay.write_text("permission:\n  bash:\n    'git *': alow\n")
    code, _, err = cli("layers", "--session-permission", str(overlay))
    assert code == 3 and f"{overlay}:3:" in err and "did you mean 'allow'?" in err


def test_a_session_file_with_only_permission_still_applies(cli, project: Path) -> None:
    overlay = project / "s.toml"
    overlay.write_text('"$schema" = "x"\n[permission]\nbash = "deny"\n')
    code, out, err = cli("explain", "bash", "--session-permission", str(overlay), "--format", "json")
    assert code == 0, err
    data = json.loads(out)
    assert data["visible"] is False and data["deciding_rule"]["origin"]["path"] == str(overlay)
