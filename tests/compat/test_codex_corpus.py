"""forge-tools' Codex runtime against the generated corpus recorded from the Codex CLI binary
(tests/compat/codex/corpus.py: a grammar of rules files and calls, a fixed seed; corpus-<version>.json
holds the cases and the binary's answers). Every call must agree: `policy` calls as `codex execpolicy
check` answered (decision, matched prefixes and resolved programs, or the refused file), `exec`
lines as `codex exec` did with them (run, refused by a rule, refused as needing approval, refused as
`rm -f` style). No Node: the records are the oracle."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from forge_tools.runtimes.codex.config import read_codex
from forge_tools.runtimes.codex.decide import decide
from forge_tools.runtimes.codex.policy import Policy
from forge_tools.runtimes.codex.runtime import VERSION

HERE = Path(__file__).parent / "codex"
CORPORA = {p.stem.removeprefix("corpus-"): json.loads(p.read_text())
           for p in sorted(HERE.glob("corpus-*.json"))}


def _configs(part: str) -> list[Any]:
    return [pytest.param(v, i, id=f"{v}-{c['name']}") for v, corpus in CORPORA.items()
            for i, c in enumerate(corpus[part])]


def test_the_corpus_is_large_enough() -> None:
    corpus = CORPORA[VERSION]
    calls = sum(len(c["calls"]) for part in ("policy", "exec") for c in corpus[part])
    assert calls >= 2000, calls


def _write(folder: Path, files: dict[str, str]) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for name, text in files.items():
        (folder / name).write_text(text)
        out.append(folder / name)
    return out


@pytest.mark.parametrize(("version", "index"), _configs("policy"))
def test_policy_config(version: str, index: int, tmp_path: Path) -> None:
    case = CORPORA[version]["policy"][index]
    policy = Policy.read(_write(tmp_path / "rules", case["rules"]))
    wrong = []
    for argv, decision, matched in case["calls"]:
        if decision == "error":
            refused = policy.error
            if refused is None or refused.path.name != matched:
                mine = refused.path.name if refused else "loads all"
                wrong.append((argv, f"Codex refuses {matched}", mine))
            continue
        if policy.error is not None:
            wrong.append((argv, decision, f"forge-tools refuses {policy.error.path.name}"))
            continue
        got = policy.evaluate(argv, True, cwd=tmp_path)
        mine = sorted([list(m.prefix), m.rule.decision,
                       m.resolved_program.replace(str(tmp_path), "$SCRATCH") if m.resolved_program else None]
                      for m in got.matches)
        if (got.decision, mine) != (decision, sorted(matched)):
            wrong.append((argv, (decision, matched), (got.decision, mine)))
    assert not wrong, wrong


@pytest.mark.parametrize(("version", "index"), _configs("exec"))
def test_exec_config(version: str, index: int, tmp_path: Path) -> None:
    case = CORPORA[version]["exec"][index]
    base = tmp_path / "codex"  # tmp_path/project is the suite's own (a git repository)
    project, home = base / "project", base / "home"
    (project / ".git").mkdir(parents=True)
    _write(home / ".codex" / "rules", case["rules"])
    settings = read_codex(project, {"HOME": str(home), "CODEX_HOME": str(home / ".codex")},
                          overrides=['approval_policy="never"'])  # what codex exec runs with
    wrong = []
    for line, outcome in case["calls"]:
        got = decide(settings, "exec_command", {"cmd": line}, project)
        mine = "ran" if got.outcome == "sandboxed" else got.outcome
        want = "ran" if outcome == "sandboxed" else outcome
        if mine != want:
            wrong.append((line, want, mine, [c.why for c in got.checks]))
    assert not wrong, wrong
