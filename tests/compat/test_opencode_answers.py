"""forge-tools' answers for opencode.json-only projects against what opencode 1.18.33 answered.

The records in fixtures/<case>/opencode-1.18.33.json were made by running the real opencode on the
same opencode.json (see fixtures/README.md); nothing here runs opencode or needs the network.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

FIXTURES = Path(__file__).parent / "fixtures"
VERSION = "1.18.33"
CASES = sorted(p.name for p in FIXTURES.iterdir() if (p / f"opencode-{VERSION}.json").is_file())
LOADABLE = [c for c in CASES
            if "error" not in json.loads((FIXTURES / c / f"opencode-{VERSION}.json").read_text())]
REFUSED = [c for c in CASES if c not in LOADABLE]

# Agents opencode keeps for its own housekeeping: hidden primaries, modelled (issue 30).
OPENCODE_INTERNAL_AGENTS: set[str] = set()
HIDDEN_AGENTS = {"compaction", "summary", "title"}
# opencode 1.18.33 registers no `list` tool; SPEC 2 keeps it as a builtin.
FORGE_ONLY_BUILTINS = {"list"}
TRUNC, HOME_REL = "<truncation dir>", "<home, relative to the project>"
OPENCODE_TMP = "<opencode tmp>"  # opencode's global temp dir glob, `/tmp/opencode/*` where recorded
# forge-tools' own plan files: plan may write them too (README: opencode projects)
FORGE_PLANS = ".forge/plans/*.md"


def _paths(pattern: str) -> str:
    """opencode's plans dir relative to the project (`../../home/...` where it was recorded)."""
    return re.sub(r"^(\.\./)+home/", HOME_REL + "/", pattern)


def record(case: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((FIXTURES / case / f"opencode-{VERSION}.json").read_text())
    return data


def agent_cases() -> list[tuple[str, str]]:
    return [(case, name) for case in LOADABLE for name in record(case)["debug_agent"]
            if name not in OPENCODE_INTERNAL_AGENTS]


@pytest.fixture
def case_project(project: Path) -> Any:
    def copy(case: str) -> Path:
        shutil.copy(FIXTURES / case / "opencode.json", project / "opencode.json")
        if (FIXTURES / case / ".opencode").is_dir():  # e.g. opencode's own TypeScript tools
            shutil.copytree(FIXTURES / case / ".opencode", project / ".opencode")
        return project
    return copy


def json_out(cli: Any, *args: str) -> Any:
    code, out, err = cli(*args, "--format", "json")
    assert code == 0, err
    return json.loads(out)


def opencode_rules(rules: list[dict[str, str]]) -> list[tuple[str, str, str]]:
    """opencode's rules with its machine paths named."""
    out = []
    for r in rules:
        pattern = r["pattern"]
        if pattern.startswith("$HOME/.local/share/opencode/tool-output/"):
            pattern = TRUNC
        elif pattern == "/tmp/opencode/*":
            pattern = OPENCODE_TMP
        out.append((r["permission"], _paths(pattern), r["action"]))
    return out


def forge_rules(rules: list[dict[str, Any]], home: Path) -> list[tuple[str, str, str]]:
    from forge_tools.permission.agents import opencode_tmp_glob

    out = []
    for r in rules:
        pattern = r["pattern"]
        if pattern.endswith("/tool-output/*"):
            pattern = TRUNC
        elif pattern == opencode_tmp_glob():
            pattern = OPENCODE_TMP
        elif pattern == FORGE_PLANS:
            continue
        pattern = pattern.replace(str(home), "$HOME")
        out.append((r["permission"], _paths(pattern), r["action"]))
    return out


@pytest.mark.parametrize("case", LOADABLE)
def test_the_same_agents(case: str, case_project: Any, cli: Any) -> None:
    case_project(case)
    theirs = {a["name"]: a["mode"] for a in record(case)["agent_list"]
              if a["name"] not in OPENCODE_INTERNAL_AGENTS}
    ours = {a["name"]: a["mode"] for a in json_out(cli, "agents")["agents"] if not a["disabled"]}
    assert ours == theirs


@pytest.mark.parametrize("case", LOADABLE)
def test_the_hidden_builtin_agents_are_opencode_s(case: str, case_project: Any, cli: Any) -> None:
    """compaction, summary and title: hidden primaries in opencode's `agent list` order (by name)."""
    case_project(case)
    ours = {a["name"]: a for a in json_out(cli, "agents")["agents"]}
    for name in HIDDEN_AGENTS:
        theirs = record(case)["debug_agent"][name]
        assert (ours[name]["mode"], ours[name]["hidden"]) == (theirs["mode"], theirs["hidden"]) == (
            "primary", True)
    order = [a["name"] for a in record(case)["agent_list"]]
    assert [a["name"] for a in json_out(cli, "agents")["agents"] if not a["disabled"]] == order


@pytest.mark.parametrize(("case", "agent"), agent_cases())
def test_the_same_rules_in_the_same_order(case: str, agent: str, case_project: Any, cli: Any,
                                          isolated_env: dict[str, Path]) -> None:
    case_project(case)
    theirs = opencode_rules(record(case)["debug_agent"][agent]["permission"])
    ours = forge_rules(json_out(cli, "rules", "--agent", agent)["rules"], isolated_env["home"])
    assert ours == theirs


@pytest.mark.parametrize(("case", "agent"), agent_cases())
def test_the_same_tools_are_hidden(case: str, agent: str, case_project: Any, cli: Any) -> None:
    """Every tool opencode lists for the agent has the same fate; the others are ours alone."""
    case_project(case)
    theirs: dict[str, bool] = record(case)["debug_agent"][agent]["tools"]
    layers = json_out(cli, "layers", "--agent", agent)
    ours = {t["id"]: t for t in layers["tools"]}
    assert {tool_id: ours[tool_id]["visible"] for tool_id in theirs} == theirs
    for tool_id, verdict in ours.items():
        if tool_id not in theirs:
            # opencode leaves out of its listing what the model layer drops; `list` is ours alone
            assert tool_id in FORGE_ONLY_BUILTINS or verdict["hidden_at"] == "model", tool_id


@pytest.mark.parametrize(("case", "agent"), agent_cases())
def test_explain_names_the_rule_opencode_hides_by(case: str, agent: str, case_project: Any,
                                                  cli: Any) -> None:
    """For a tool opencode hides, `explain` quotes the last rule for its permission: `* deny`."""
    from forge_tools.names import permission_name
    from forge_tools.permission.wildcard import wildcard_match

    case_project(case)
    agent_record = record(case)["debug_agent"][agent]
    hidden = [t for t, shown in agent_record["tools"].items() if not shown]
    theirs = opencode_rules(agent_record["permission"])
    for tool_id in hidden:
        story = json_out(cli, "explain", tool_id, "--agent", agent)
        rule = story["deciding_rule"]
        last = [r for r in theirs if wildcard_match(permission_name(tool_id), r[0])][-1]
        assert (rule["permission"], rule["pattern"], rule["action"]) == last == (last[0], "*", "deny")


@pytest.mark.parametrize("case", REFUSED)
@pytest.mark.parametrize("command", [("agents",), ("layers",), ("explain", "bash"),
                                     ("explain", "bash", "--call", '{"command": "ls"}'),
                                     ("check", "--expect", "expect.yaml")])
def test_configs_opencode_refuses_are_refused(case: str, command: tuple[str, ...], case_project: Any,
                                              cli: Any) -> None:
    """opencode's record: `Configuration is invalid at PATH` and the key it refused. forge-tools'
    commands asked about opencode say it does not start, at that key's line (exit 3)."""
    refused = record(case)["error"]
    assert refused[0] == "Error: Configuration is invalid at $PROJECT/opencode.json"
    key = refused[1].rsplit(" ", 1)[1]  # `permission.todowrite`
    project = case_project(case)
    (project / "expect.yaml").write_text('- {call: {tool: bash, args: {command: "ls"}}, expect: allow}\n')
    code, out, err = cli(*command)
    assert code == 3, (out, err)
    line = next(n for n, text in enumerate((project / "opencode.json").read_text().splitlines(), 1)
                if f'"{key.rsplit(".", 1)[1]}"' in text)
    assert f"opencode.json:{line}:" in err and f"`{key}`" in err
    assert "opencode 1.18.33 does not start with this config" in err and "Traceback" not in err


def test_check_still_reports_the_refusal_as_a_finding(case_project: Any, cli: Any) -> None:
    """Plain `check` is about the files, not about a turn: the refusal is FT111 there, not an exit 3."""
    case_project(REFUSED[0])
    code, out, _ = cli("check", "--format", "json")
    assert code in (0, 1) and "FT111" in out


def call_records() -> list[tuple[str, dict[str, Any]]]:
    found = []
    for path in sorted(FIXTURES.glob(f"*/calls-{VERSION}.json")):
        for call in json.loads(path.read_text())["calls"]:
            found.append((path.parent.name, call))
    return found


@pytest.mark.parametrize(("case", "call"), call_records())
def test_explain_call_denies_what_opencode_refused(case: str, call: dict[str, Any], case_project: Any,
                                                   cli: Any) -> None:
    """opencode's debug run refuses a call only on deny, so `deny` must match exactly."""
    case_project(case)
    story = json_out(cli, "explain", call["tool"], "--agent", call["agent"],
                     "--call", json.dumps(call["params"]))
    assert (story["call"]["action"] == "deny") == (call["opencode"] == "denied")
