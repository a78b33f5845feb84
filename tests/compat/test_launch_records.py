"""Issue 28 item 4: forge-tools' launch grammars (`--launch`, `runtimes/<agent>/launch.py`) accept the
command lines each agent's binary accepts and refuse those it refuses, as recorded by
tests/compat/launch_grammar.py (`<agent>/launch-grammar-<version>.json`); a flag the binary has whose
effect forge-tools does not model is refused as "not modelled", never taken silently."""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

import pytest

from forge_tools.errors import UsageError
from forge_tools.runtimes.launch import parse_launch

HERE = Path(__file__).parent
FILES = sorted(HERE.glob("*/launch-grammar-*.json"))


def _records() -> list[tuple[str, dict[str, Any]]]:
    out = []
    for path in FILES:
        data = json.loads(path.read_text())
        out += [(data["agent"], r) for r in data["records"]]
    return out


RECORDS = _records()


@pytest.mark.parametrize(("agent", "record"), RECORDS,
                         ids=[f"{a}:{' '.join(r['argv'])}" for a, r in RECORDS])
def test_the_launch_grammar_is_the_binarys(agent: str, record: dict[str, Any]) -> None:
    text = shlex.join([agent, *record["argv"]])
    try:
        parse_launch(text)
    except UsageError as e:
        said = e.one_line()
        if record["accepted"]:
            assert "is not modelled by forge-tools" in said, (said, record)
        return
    assert record["accepted"], f"{text}: the binary refuses it ({record['message']}); forge-tools takes it"


def test_every_agent_is_recorded() -> None:
    agents = {json.loads(p.read_text())["agent"] for p in FILES}
    assert agents == {"claude", "codex", "gemini"}
    for agent in agents:
        mine = [r for a, r in RECORDS if a == agent]
        assert len(mine) >= 40 and any(not r["accepted"] for r in mine) and any(r["accepted"] for r in mine)


CODEX = HERE / "codex"


def _codex_effects(kind: str = "layout") -> list[tuple[dict[str, Any], dict[str, Any]]]:
    cases = {c["name"]: c for c in json.loads((CODEX / "launch-cases.json").read_text())["configs"]}
    out = []
    for path in sorted(CODEX.glob("launch-[0-9]*.json")):
        out += [(cases[r["name"]], r) for r in json.loads(path.read_text())["configs"]
                if cases[r["name"]]["kind"] == kind]
    return out


def _codex_exec_calls() -> list[Any]:
    return [pytest.param(case, i, id=f"{case['name']}[{i}]") for case, record in _codex_effects("exec")
            for i in range(len(record["calls"]))]


@pytest.mark.parametrize(("case", "index"), _codex_exec_calls())
def test_codex_exec_flags_answer_as_the_binary(case: dict[str, Any], index: int, tmp_path: Path) -> None:
    """`--launch 'codex GLOBAL exec FLAGS'`: what `codex exec` did with one exec_command (codex/launch.py,
    record.py's stand-in model): forbidden rules and the `rm -f` check refuse under any sandbox flag,
    and `-a on-request` before `exec` still asks nobody."""
    from forge_tools.runtimes.codex.config import read_codex
    from forge_tools.runtimes.codex.decide import decide
    from forge_tools.runtimes.launch import launched

    record = next(r for c, r in _codex_effects("exec") if c["name"] == case["name"])["calls"][index]
    project, home = tmp_path / "cx" / "project", tmp_path / "cx" / "home"
    (project / ".git").mkdir(parents=True)
    (home / ".codex" / "rules").mkdir(parents=True)
    for name, text in case["rules"].items():
        (home / ".codex" / "rules" / name).write_text(text)
    env = {"HOME": str(home), "CODEX_HOME": str(home / ".codex")}
    text = shlex.join(["codex", *case["global_flags"], "exec", *case["exec_flags"]])
    with launched(parse_launch(text)):
        settings = read_codex(project, env)
    got = decide(settings, "exec_command", record["call"], project)
    why = [c.why for c in got.checks]
    if record["outcome"] == "ran":
        assert got.outcome in ("ran", "sandboxed"), why
    else:
        assert got.outcome == record["outcome"], why


@pytest.mark.parametrize(("case", "record"), _codex_effects(), ids=lambda v: v.get("name", ""))
def test_codex_flags_set_what_the_binary_sets(case: dict[str, Any], record: dict[str, Any],
                                              tmp_path: Path) -> None:
    """`--launch 'codex FLAGS'`: the sandbox and approval policy Codex CLI's own prompt says
    (`codex FLAGS debug prompt-input`, codex/launch.py), with the config files of the record."""
    from forge_tools.runtimes.codex.config import read_codex
    from forge_tools.runtimes.launch import launched

    base = tmp_path / "codex"
    project, home = base / "project", base / "home"
    (project / ".git").mkdir(parents=True)
    for root, files in ((home, case["home_files"]), (project, case["project_files"])):
        for rel, text in files.items():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(text.replace("$PROJECT", str(project)).replace("$HOME", str(home)))
    env = {"HOME": str(home), "CODEX_HOME": str(home / ".codex")}
    with launched(parse_launch(shlex.join(["codex", *case["global_flags"]]))):
        got = read_codex(project, env)
    assert got.start_error is None, got.start_error
    assert got.sandbox_mode == record["sandbox_mode"]
    never = record["approval_text"].startswith("Approval policy is currently never")
    assert (got.approval_policy == "never") == never, (got.approval_policy, record["approval_text"])


GEMINI = HERE / "gemini"


def _gemini_effects() -> list[dict[str, Any]]:
    out = []
    for path in sorted(GEMINI.glob("launch-[0-9]*.json")):
        out += json.loads(path.read_text())["configs"]
    return out


@pytest.mark.parametrize("record", _gemini_effects(), ids=lambda r: r["name"])
def test_gemini_flags_do_what_the_binary_does(record: dict[str, Any], tmp_path: Path) -> None:
    """`--launch "gemini -p '/policies list' FLAGS"` (gemini/launch.py): a headless run in a folder
    that is not trusted does not start unless `--skip-trust`; an approval mode there is overridden to
    default; `-y` is yolo."""
    from forge_tools.runtimes.gemini.settings import read_settings
    from forge_tools.runtimes.launch import launched

    home, project = tmp_path / "gemini-home", tmp_path / "gemini-project"
    (home / ".gemini").mkdir(parents=True)
    (project / ".git").mkdir(parents=True)
    trust_on = {"security": {"folderTrust": {"enabled": True}}}
    (home / ".gemini" / "settings.json").write_text(json.dumps(trust_on))
    if record["trusted"]:
        (home / ".gemini" / "trustedFolders.json").write_text(json.dumps({str(project): "TRUST_FOLDER"}))
    env = {"HOME": str(home), "FORGE_TOOLS_GEMINI_SYSTEM_DIR": str(tmp_path / "no-system")}
    launch = parse_launch(shlex.join(["gemini", "-p", "/policies list", *record["flags"]]))
    with launched(launch):
        got = read_settings(project, env)
    assert (got.start_error is None) == record["started"], got.start_error
    notices = " ".join(record["notices"])
    if not record["started"]:
        assert "not running in a trusted directory" in notices and "--skip-trust" in (got.start_error or "")
        return
    if "Approval mode overridden to \"default\"" in notices:
        assert got.mode == "default"
    elif "YOLO mode is enabled" in notices:
        assert got.mode == "yolo"
    else:
        assert got.mode == (launch.options.mode or "default")
