"""forge-tools' Codex runtime gives the answers recorded from the Codex CLI 0.169.0 binary.

tests/compat/codex/cases.json holds the configs; codex-0.169.0.json what the binary said
(`record.py`, run by hand). `policy` configs: rule files and argv put to `codex execpolicy check`
(matched rules, decision, or the file Codex refused). `layout` configs: a HOME and a project with
config.toml and rules/ files, trust, `-c` flags; the binary's prompt (`codex debug prompt-input`)
gives sandbox_mode, the approval policy, the approved prefixes (the allow rules of every layer Codex
loaded), the tools offered, or the error it stopped with. Each is laid out again in a scratch
directory and put to `runtimes.codex`. No Node, no network: the records are the oracle.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from forge_tools.runtimes.codex.config import read_codex
from forge_tools.runtimes.codex.decide import CODE_MODE_TOOLS, decide
from forge_tools.runtimes.codex.policy import Policy

HERE = Path(__file__).parent / "codex"
CASES = {c["name"]: c for c in json.loads((HERE / "cases.json").read_text())["configs"]}
RECORDS = {c["name"]: c for c in json.loads((HERE / "codex-0.169.0.json").read_text())["configs"]}


def _policy_calls() -> list[Any]:
    return [pytest.param(name, i, id=f"{name}[{i}]") for name, r in RECORDS.items() if r["kind"] == "policy"
            for i in range(len(r["calls"]))]


def _exec_calls() -> list[Any]:
    return [pytest.param(name, i, id=f"{name}[{i}]") for name, r in RECORDS.items() if r["kind"] == "exec"
            for i in range(len(r["calls"]))]


def _layouts() -> list[str]:
    return [name for name, r in RECORDS.items() if r["kind"] == "layout"]


def _write(root: Path, files: dict[str, str], base: Path) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text.replace("$PROJECT", str(base / "project")).replace("$HOME", str(base / "home"))
                        .replace("$PYTHON", sys.executable).replace("$COMPAT", str(HERE.parent / "claude")))


@pytest.mark.parametrize(("config", "index"), _exec_calls())
def test_exec_call_matches_binary(config: str, index: int, tmp_path: Path) -> None:
    """`codex exec` (approval never) with the user's rules: what Codex did with one exec_command."""
    case, record = CASES[config], RECORDS[config]["calls"][index]
    base = tmp_path / "codex"
    project, home = base / "project", base / "home"
    (project / ".git").mkdir(parents=True)
    _write(home / ".codex" / "rules", case["rules"], base)
    (home / ".codex" / "config.toml").write_text(case.get("config", ""))
    settings = read_codex(project, {"HOME": str(home), "CODEX_HOME": str(home / ".codex")},
                          overrides=['approval_policy="never"'])  # what codex exec runs with
    got = decide(settings, "exec_command", record["call"], project)
    want, why = record["outcome"], [c.why for c in got.checks]
    if want == "ran":  # run, in the sandbox or not: nothing it wrote was refused
        assert got.outcome in ("ran", "sandboxed"), why
    else:
        assert got.outcome == want, why


def test_records_are_enough() -> None:
    calls = sum(len(r["calls"]) for r in RECORDS.values() if r["kind"] == "policy")
    assert calls >= 150 and len(RECORDS) >= 20
    assert set(RECORDS) == set(CASES)


@pytest.mark.parametrize(("config", "index"), _policy_calls())
def test_policy_call_matches_binary(config: str, index: int, tmp_path: Path) -> None:
    case, record = CASES[config], RECORDS[config]["calls"][index]
    (tmp_path / "rules").mkdir()
    _write(tmp_path / "rules", case["rules"], tmp_path)
    policy = Policy.read([tmp_path / "rules" / n for n in case["rules"]])
    if record["decision"] == "error":
        refused = policy.error
        assert refused is not None, "Codex refuses a file; forge-tools loads them all"
        named = re.search(r"failed to parse policy at \$SCRATCH/rules/(\S+)", record["error"])
        assert named is not None and refused.path.name == named.group(1)
        return
    assert policy.error is None, policy.error.error if policy.error else None
    got = policy.evaluate(record["argv"], case["resolve_host_executables"], cwd=tmp_path)
    assert got.decision == record["decision"]
    want = [(m["prefixRuleMatch"]["matchedPrefix"], m["prefixRuleMatch"]["decision"],
             m["prefixRuleMatch"].get("justification"), m["prefixRuleMatch"].get("resolvedProgram"))
            for m in record["matched"]]
    mine = [(list(m.prefix), m.rule.decision, m.rule.justification,
             m.resolved_program.replace(str(tmp_path), "$SCRATCH") if m.resolved_program else None)
            for m in got.matches]
    assert sorted(mine, key=str) == sorted(want, key=str)


@pytest.mark.parametrize("config", _layouts())
def test_layout_matches_binary(config: str, tmp_path: Path) -> None:
    case, record = CASES[config], RECORDS[config]
    base = tmp_path / "codex"  # tmp_path/project is the suite's own (a git repository)
    project, home = base / "project", base / "home"
    project.mkdir(parents=True, exist_ok=True)
    if case.get("git", True):
        (project / ".git").mkdir(exist_ok=True)
    (home / ".codex").mkdir(parents=True, exist_ok=True)
    _write(home, case["home_files"], base)
    _write(project, case["project_files"], base)
    cwd = project / case.get("cwd", ".")
    cwd.mkdir(parents=True, exist_ok=True)
    env = {"HOME": str(home), "CODEX_HOME": str(home / ".codex")}
    got = read_codex(cwd, env, overrides=_overrides(case.get("flags", [])))
    if "error" in record:
        stop = record["error"].splitlines()[0]
        assert got.start_error is not None, f"Codex stops ({stop}); forge-tools not"
        where = re.match(r"Error: (\$\w+/\S+?):(\d+):(\d+):", record["error"])
        if where is not None:
            path = where.group(1).replace("$PROJECT", str(project)).replace("$HOME", str(home))
            assert got.start_error_origin is not None
            assert (got.start_error_origin.path, got.start_error_origin.line) == (path, int(where.group(2)))
        return
    assert got.start_error is None, got.start_error
    assert got.sandbox_mode == record["sandbox_mode"]
    assert got.approval_policy in _approval(record["approval_text"])
    approved = sorted(r.text() for r in got.policy.rules if r.decision == "allow")
    assert approved == sorted(json.dumps(p) for p in _prefixes(record["approved_prefixes"]))
    assert set(record["nested_tools"]) == set(CODE_MODE_TOOLS)
    if "mcp_servers" in record:
        servers = got.mcp_servers()
        assert sorted((n, s.get("enabled", True) is not False) for n, s in servers.items()) == sorted(
            (s["name"], s["enabled"]) for s in record["mcp_servers"])


def _approval(text: str) -> set[str]:
    """The approval policies the prompt's paragraph can stand for (on-request and on-failure share
    theirs)."""
    if text.startswith("Approval policy is currently never"):
        return {"never"}
    if "`approval_policy` is `unless-trusted`" in text:
        return {"unless-trusted"}
    assert text.startswith("# Escalation Requests"), text
    return {"on-request", "on-failure"}


def _prefixes(recorded: list[list[str]]) -> list[list[Any]]:
    """`["git", "[status|log]"]` (how Codex prints alternatives) as the pattern it came from."""
    out = []
    for prefix in recorded:
        out.append([t[1:-1].split("|") if t.startswith("[") and t.endswith("]") and "|" in t else t
                    for t in prefix])
    return out


def _overrides(flags: list[str]) -> list[str]:
    return [flags[i + 1] for i, f in enumerate(flags) if f == "-c" and i + 1 < len(flags)]
