"""forge-tools' answers for whole opencode setups (global dir, ~/.opencode, nested .opencode/ dirs,
Markdown agents, OPENCODE_* variables, substitution) against what opencode 1.18.33 answered.

Each folder of layouts/ holds a `project/` tree, an optional `home/` tree and `case.json`; the
records in `opencode-1.18.33.json` were made by running the real opencode on the same trees
(layouts/generate.py, see fixtures/README.md). Nothing here runs opencode or needs the network.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from test_opencode_answers import OPENCODE_INTERNAL_AGENTS, VERSION, forge_rules, opencode_rules

LAYOUTS = Path(__file__).parent / "layouts"
CASES = sorted(p.name for p in LAYOUTS.iterdir() if (p / f"opencode-{VERSION}.json").is_file())


def record(case: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((LAYOUTS / case / f"opencode-{VERSION}.json").read_text())
    return data


@pytest.fixture
def setup(project: Path, isolated_env: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> Any:
    """Copy a case's trees into the test's project and home, set its variables, enter its cwd."""
    home = isolated_env["home"]

    def apply(case: str) -> tuple[Path, Path]:
        here = LAYOUTS / case
        spec = json.loads((here / "case.json").read_text())
        here = LAYOUTS / spec.get("tree", case)  # `"tree": OTHER`: that case's trees
        shutil.copytree(here / "project", project, dirs_exist_ok=True)
        if not spec.get("git", True):  # recorded outside any git repo: walk up to / as opencode does
            shutil.rmtree(project / ".git")
        if (here / "home").is_dir():
            shutil.copytree(here / "home", home, dirs_exist_ok=True)
        for name, value in spec.get("env", {}).items():
            monkeypatch.setenv(name, value.replace("$PROJECT", str(project)).replace("$HOME", str(home)))
        monkeypatch.chdir(project / spec.get("cwd", "."))
        return project, home
    return apply


def json_out(cli: Any, *args: str) -> Any:
    code, out, err = cli(*args, "--format", "json")
    assert code == 0, err
    return json.loads(out)


def agent_cases() -> list[tuple[str, str]]:
    return [(case, name) for case in CASES for name in record(case)["debug_agent"]]


def call_cases() -> list[tuple[str, dict[str, Any]]]:
    return [(case, call) for case in CASES for call in record(case).get("calls", [])]


@pytest.mark.parametrize("case", CASES)
def test_the_same_agents(case: str, setup: Any, cli: Any) -> None:
    setup(case)
    theirs = {a["name"]: a["mode"] for a in record(case)["agent_list"]
              if a["name"] not in OPENCODE_INTERNAL_AGENTS}
    listed = [a for a in json_out(cli, "agents")["agents"] if not a["disabled"]]
    ours = {a["shown_name"]: a["mode"] for a in listed}
    assert ours == theirs
    # in opencode's order too
    order = [a["name"] for a in record(case)["agent_list"] if a["name"] not in OPENCODE_INTERNAL_AGENTS]
    assert [a["shown_name"] for a in listed] == order


@pytest.mark.parametrize(("case", "agent"), agent_cases())
def test_the_same_rules_in_the_same_order(case: str, agent: str, setup: Any, cli: Any) -> None:
    project, home = setup(case)
    theirs = opencode_rules(record(case)["debug_agent"][agent]["permission"])
    ours = [(p, pattern.replace(str(project), "$PROJECT"), a)
            for p, pattern, a in forge_rules(json_out(cli, "rules", "--agent", agent)["rules"], home)]
    assert skill_dirs_sorted(ours) == skill_dirs_sorted(theirs)


def skill_dirs_sorted(rules: list[tuple[str, str, str]]) -> list[tuple[str, str, str]]:
    """The rules with each run of skill-folder allows sorted: opencode scans each skills folder in the
    order the file system lists its entries, which no copy of the tree keeps."""
    def skill_dir(rule: tuple[str, str, str]) -> bool:
        return rule[0] == "external_directory" and rule[2] == "allow" and (
            "/skills/" in rule[1] or "/skill/" in rule[1])
    out: list[tuple[str, str, str]] = []
    run: list[tuple[str, str, str]] = []
    for rule in [*rules, ("", "", "")]:
        if skill_dir(rule):
            run.append(rule)
            continue
        out += sorted(run)
        run = []
        out.append(rule)
    return out[:-1]


@pytest.mark.parametrize(("case", "agent"), agent_cases())
def test_the_same_tools_are_hidden(case: str, agent: str, setup: Any, cli: Any) -> None:
    setup(case)
    theirs: dict[str, bool] = record(case)["debug_agent"][agent]["tools"]
    ours = {t["id"]: t["visible"] for t in json_out(cli, "layers", "--agent", agent)["tools"]}
    assert {tool_id: ours[tool_id] for tool_id in theirs} == theirs


@pytest.mark.parametrize(("case", "call"), call_cases())
def test_explain_call_denies_what_opencode_refused(case: str, call: dict[str, Any], setup: Any,
                                                   cli: Any) -> None:
    project, home = setup(case)
    params = json.dumps(call["params"]).replace("$PROJECT", str(project)).replace("$HOME", str(home))
    story = json_out(cli, "explain", call["tool"], "--agent", call["agent"], "--call", params)
    # opencode's answer is the runtime's (the flat `action` is the gate's, which may be stricter:
    # `cd .` under `"cd *": "deny"` runs in opencode, the gate checks it)
    answer = story["call"].get("runtime", story["call"])["action"]
    assert (answer == "deny") == (call["opencode"] == "denied")


def skill_cases() -> list[str]:
    return [case for case in CASES if "skills" in record(case)]


def _skills_here(project: Path) -> Any:
    import forge_tools
    from forge_tools.config.skills import discover

    loaded = forge_tools.load_project(project)
    return loaded, discover(loaded.config_dirs, loaded.skill_roots, loaded.skill_paths)[0]


@pytest.mark.parametrize("case", skill_cases())
def test_the_same_skills(case: str, setup: Any) -> None:
    """`opencode debug skill`: every skill opencode found (the built-in one, `.claude`/`.agents` in
    the home and the project, the config dirs, `skills.paths`), none without front matter, with the
    same descriptions and files; the `OPENCODE_DISABLE_*` cases find fewer."""
    project, home = setup(case)
    _, skills = _skills_here(project)

    def where(path: Path) -> str:
        return str(path).replace(str(project), "$PROJECT").replace(str(home), "$HOME")
    ours = {s.name: (s.description, where(s.path)) for s in skills.values()}
    theirs = {s["name"]: (s.get("description") or "", s["location"]) for s in record(case)["skills"]}
    # a name two SKILL.md files give is whichever opencode parsed last (it reads them all at once):
    # `dup-skill` was the home copy for `debug skill` and the project's for the `skill` call
    racy = {"dup-skill"}
    assert set(ours) == set(theirs)
    assert {k: v for k, v in ours.items() if k not in racy} == {
        k: v for k, v in theirs.items() if k not in racy}


@pytest.mark.parametrize(("case", "call"), [(case, call) for case, call in call_cases()
                                            if call["tool"] == "skill" and "output" in call])
def test_the_skill_tool_says_what_opencode_says(case: str, call: dict[str, Any], setup: Any) -> None:
    from forge_tools.tools.builtins import skill
    from forge_tools.tools.contract import ToolContext

    project, home = setup(case)
    loaded, _ = _skills_here(project)
    ctx = ToolContext(project_root=project, extra={"config_dirs": list(loaded.config_dirs), "loaded": loaded})
    result = skill.execute(skill.SkillArgs(**call["params"]), ctx)
    said = result.output.replace(str(project), "$PROJECT").replace(str(home), "$HOME")
    if call["opencode"] == "ran":
        assert not result.is_error and said == call["output"]
    elif call["opencode"] == "failed":  # printed as "Error: Unexpected error", a blank line, the text
        assert result.is_error and said == call["output"].split("\n\n", 1)[1]


@pytest.mark.parametrize("case", [case for case in CASES if "config" in record(case)])
def test_the_same_merged_config(case: str, setup: Any) -> None:
    """`opencode debug config`: `instructions` joined without repeats, each plugin (a `[spec, options]`
    pair too) at its last place, `theme`/`keybinds`/`tui` dropped, `opencode.jsonc` over
    `opencode.json` in one folder."""
    import forge_tools

    project, _ = setup(case)
    theirs = record(case)["config"]
    tree = forge_tools.load_project(project).tree
    for key in ("instructions", "plugin", "permission"):
        node = tree.get(key)
        assert (node.plain() if node is not None else None) == theirs.get(key), key
    for key in ("theme", "keybinds", "tui"):
        assert key not in theirs and tree.get(key) is None
