"""`forge-tools verify` (check/verify.py): the agents' own offline checkers asked about a project's
rules and FT116's spellings, compared with forge-tools' reading.

Without Node (CI): the comparison against recorded outputs, `codex execpolicy check`'s from the
Codex records in tests/compat/codex (every policy call of codex-0.171.0.json agrees; one planted
answer disagrees) and opencode's `debug config` / `debug agent build` recorded from opencode 1.18.33
in a scratch HOME (fixtures/verify/opencode-1.18.33.json); and the command itself with a stand-in
`codex` on PATH whose answer is planted. With the real binaries (FORGE_TOOLS_TEST_CODEX /
FORGE_TOOLS_TEST_OPENCODE, else PATH; skipped when absent or when `unshare -n` is not available, as
agents are only run offline here): each agrees about a project, and a planted disagreement (the
binary given a different rules file or config than forge-tools reads) is reported.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest

from forge_tools.check.verify import (
    Disagreement,
    compare_codex,
    compare_config,
    compare_rulesets,
    parse_codex_output,
    report_lines,
    ruleset_of,
    run_binary,
    verify,
    verify_codex,
)
from forge_tools.runtimes.codex.policy import Policy

COMPAT = Path(__file__).parents[1] / "compat" / "codex"
FIXTURE = Path(__file__).parent / "fixtures" / "verify" / "opencode-1.18.33.json"


def _records() -> list[dict]:
    cases = {c["name"]: c for c in json.loads((COMPAT / "cases.json").read_text())["configs"]}
    records = json.loads((COMPAT / "codex-0.171.0.json").read_text())["configs"]
    return [dict(r, rules=cases[r["name"]]["rules"], resolve=cases[r["name"]]["resolve_host_executables"])
            for r in records if r["kind"] == "policy"]


def _output(record: dict, base: Path) -> tuple[int, str, str]:
    """What `execpolicy check` printed for a recorded call (the record keeps it in parts)."""
    if record["decision"] == "error":
        return 1, "", record["error"].replace("$SCRATCH", str(base))
    decided = {"decision": record["decision"]} if record["decision"] else {}
    data = {"matchedRules": record["matched"], **decided}
    return 0, json.dumps(data), ""


def test_codex_comparison_agrees_with_every_recorded_answer(tmp_path: Path) -> None:
    asked = 0
    for config in _records():
        folder = tmp_path / config["name"]
        (folder / "rules").mkdir(parents=True)
        for name, text in config["rules"].items():
            (folder / "rules" / name).write_text(text)
        policy = Policy.read([folder / "rules" / n for n in config["rules"]])
        for call in config["calls"]:
            from forge_tools.check.verify import codex_answer

            theirs = parse_codex_output(*_output(call, folder))
            found = compare_codex(call["argv"], config["name"], theirs,
                                  codex_answer(policy, call["argv"], folder, config["resolve"]))
            assert found is None, found
            asked += 1
    assert asked > 150


def test_a_planted_codex_answer_is_a_disagreement(tmp_path: Path) -> None:
    from forge_tools.check.verify import codex_answer

    (tmp_path / "a.rules").write_text('prefix_rule(pattern=["git", "push"], decision="forbidden")\n')
    policy = Policy.read([tmp_path / "a.rules"])
    match = {"prefixRuleMatch": {"matchedPrefix": ["git", "push"], "decision": "prompt"}}
    planted = json.dumps({"matchedRules": [match], "decision": "prompt"})
    found = compare_codex(["git", "push"], "a.rules:1:1", parse_codex_output(0, planted, ""),
                          codex_answer(policy, ["git", "push"], tmp_path))
    assert found == Disagreement("git push", "prompt (git push (prompt))", "forbidden (git push (forbidden))",
                                 "a.rules:1:1")
    refused = parse_codex_output(1, "", f"Error: failed to parse policy at {tmp_path}/a.rules\n")
    assert compare_codex(["ls"], "x", refused, codex_answer(policy, ["ls"], tmp_path)) is not None


def _fixture(env: Mapping[str, str], project: Path) -> dict:
    text = FIXTURE.read_text().replace("$HOME", env["HOME"]).replace("$PROJECT", str(project))
    return json.loads(text)


def test_opencode_comparison_against_its_recorded_answers(isolated_env: dict[str, Path]) -> None:
    from forge_tools.cli.common import load
    from forge_tools.permission.agents import load_agents

    project = isolated_env["project"]
    recorded = _fixture(os.environ, project)
    (project / "opencode.json").write_text(json.dumps(recorded["config"]))
    loaded = load(None, None)
    build = load_agents(loaded)["build"].ruleset
    theirs = [(p, pat.replace("/tmp/opencode/", os.path.join(_system_tmp(), "opencode") + "/"), a)
              for p, pat, a in ruleset_of(recorded["debug_agent_build"])]
    assert compare_rulesets("build", theirs, build, os.environ) == []
    assert compare_config(recorded["debug_config"], loaded.tree.plain()) == []
    planted = [(p, pat, "allow" if pat == "rm *" else a) for p, pat, a in theirs]
    found = compare_rulesets("build", planted, build, os.environ)
    assert [(d.theirs, d.ours) for d in found] == [("bash 'rm *': allow", "bash 'rm *': deny")]
    changed = dict(recorded["debug_config"], permission={"bash": {"*": "allow"}})
    assert [d.subject for d in compare_config(changed, loaded.tree.plain())] == ["config permission"]


def _system_tmp() -> str:
    from forge_tools.paths import system_temp_dir

    return system_temp_dir().rstrip("/")


def _stand_in(folder: Path, answer: str) -> Path:
    """A `codex` on PATH whose every `execpolicy check` answer is `answer` (a planted disagreement)."""
    folder.mkdir(parents=True, exist_ok=True)
    script = folder / "codex"
    script.write_text(f"#!/bin/sh\ncat <<'EOF'\n{answer}\nEOF\n")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return script


def _codex_project(isolated_env: dict[str, Path]) -> Path:
    home, project = isolated_env["home"], isolated_env["project"]
    (home / ".codex").mkdir(parents=True, exist_ok=True)
    (home / ".codex" / "config.toml").write_text(f'[projects."{project}"]\ntrust_level = "trusted"\n')
    (project / ".codex" / "rules").mkdir(parents=True)
    (project / ".codex" / "rules" / "default.rules").write_text(
        'prefix_rule(pattern=["git", "push"], decision="forbidden")\n'
        'prefix_rule(pattern=["npm", ["test", "run"]])\n')
    return project


def test_the_command_reports_a_planted_disagreement_and_what_it_could_not_verify(
        cli, isolated_env: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    _codex_project(isolated_env)
    bin_dir = isolated_env["home"] / "bin"
    _stand_in(bin_dir, '{"matchedRules":[]}')  # Codex "says" no rule matches anything
    monkeypatch.setenv("PATH", f"{bin_dir}:/usr/bin:/bin")
    monkeypatch.delenv("FORGE_TOOLS_CODEX", raising=False)
    monkeypatch.setenv("FORGE_TOOLS_OPENCODE", str(bin_dir / "no-opencode"))
    code, out, _ = cli("verify")
    assert code == 1, out
    assert "Codex CLI" in out and "DISAGREEMENT" in out
    assert "  git push: Codex CLI says no decision (no rule); forge-tools says forbidden" in out
    assert "opencode: NOT VERIFIED: `opencode` is not installed (not on $FORGE_TOOLS_OPENCODE)" in out
    code, out, _ = cli("verify", "--format", "json", "--only", "codex")
    data = json.loads(out)["agents"]
    assert code == 1 and [a["agent"] for a in data] == ["codex"] and data[0]["disagreements"]
    code, _, err = cli("verify", "--only", "claude")
    assert code == 2 and "--only claude" in err


def test_nothing_to_ask_is_said_plainly(cli, isolated_env: dict[str, Path],
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    bin_dir = isolated_env["home"] / "bin"
    _stand_in(bin_dir, '{"matchedRules":[]}')
    monkeypatch.setenv("PATH", f"{bin_dir}:/usr/bin:/bin")
    code, out, _ = cli("verify", "--only", "codex")
    assert code == 0 and "NOT VERIFIED: no rules file Codex reads here" in out


# ---- the real binaries ---------------------------------------------------------------------------

def _binary(agent: str) -> Path | None:
    named = os.environ.get(f"FORGE_TOOLS_TEST_{agent.upper()}")
    found = named or shutil.which(agent)
    return Path(found) if found and Path(found).is_file() else None


def _offline() -> bool:
    try:
        return subprocess.run(["unshare", "-n", "true"], capture_output=True, timeout=10).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def _needs(agent: str) -> Path:
    binary = _binary(agent)
    if binary is None:
        pytest.skip(f"no {agent} binary (FORGE_TOOLS_TEST_{agent.upper()} or PATH)")
    with binary.open("rb") as f:
        node_script = b"node" in f.readline()
    if node_script and shutil.which("node") is None:
        pytest.skip(f"{binary} is a Node script and Node is not installed")
    if not _offline():
        pytest.skip("`unshare -n` is not available: agents are only run offline here")
    return binary


def offline(argv: Sequence[str], cwd: Path, env: Mapping[str, str], timeout: float) -> tuple[int, str, str]:
    return run_binary(["unshare", "-n", *argv], cwd, env, timeout)


def test_real_codex_agrees_and_a_planted_disagreement_is_reported(isolated_env: dict[str, Path]) -> None:
    from forge_tools.runtimes.codex.config import read_codex

    binary = _needs("codex")
    project = _codex_project(isolated_env)
    env = dict(os.environ)
    settings = read_codex(project, env)
    agreed = verify_codex(settings, binary, env, offline, timeout=120)
    assert agreed.not_verified is None and agreed.asked > 10 and agreed.disagreements == [], agreed
    planted = project.parent / "planted.rules"  # Codex is given this file instead of the project's
    planted.write_text('prefix_rule(pattern=["git", "push"], decision="prompt")\n'
                       'prefix_rule(pattern=["npm", ["test", "run"]])\n')

    def swapped(argv: Sequence[str], cwd: Path, env: Mapping[str, str],
                timeout: float) -> tuple[int, str, str]:
        real = str(project / ".codex" / "rules" / "default.rules")
        return offline([str(planted) if a == real else a for a in argv], cwd, env, timeout)

    found = verify_codex(settings, binary, env, swapped, timeout=120)
    assert found.disagreements
    assert all("forbidden" in d.ours and "prompt" in d.theirs for d in found.disagreements)
    assert any(d.subject == "git push" for d in found.disagreements)


def test_real_opencode_agrees_and_a_planted_disagreement_is_reported(isolated_env: dict[str, Path]) -> None:
    from forge_tools.cli.common import load

    binary = _needs("opencode")
    project = isolated_env["project"]
    config = project / "opencode.json"
    config.write_text('{"permission": {"bash": {"*": "allow", "rm *": "deny", "git push": "ask"}, '
                      '"edit": "ask"}}\n')
    before = config.read_bytes()
    loaded = load(None, None)
    env = {**os.environ, "FORGE_TOOLS_OPENCODE": str(binary)}
    [agreed] = verify(loaded, env, agents=["opencode"], run=offline, timeout=180)
    assert agreed.not_verified is None and agreed.disagreements == [], report_lines([agreed])
    assert config.read_bytes() == before  # opencode's `$schema` line was put back

    def planted(argv: Sequence[str], cwd: Path, env: Mapping[str, str],
                timeout: float) -> tuple[int, str, str]:
        extra = {"OPENCODE_CONFIG_CONTENT": '{"permission": {"bash": {"rm *": "allow"}}}'}
        return offline(argv, cwd, {**env, **extra}, timeout)

    [found] = verify(loaded, env, agents=["opencode"], run=planted, timeout=180)
    lines = report_lines([found])
    assert found.disagreements, lines
    assert any(d.subject == "agent build: bash rm x" and d.theirs == "allow" and d.ours == "deny"
               for d in found.disagreements), lines
