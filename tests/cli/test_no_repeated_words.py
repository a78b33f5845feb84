"""Issue 33 item 6: no output line repeats a word ("asked asked") or a bracketed note
("[modelled...] ... [modelled...]").

Configs are made from a small grammar (each agent's files, each action on a bash pattern and on
edit), and every text command is asked about each: `layers`, `explain` (visibility and a call),
`rules`, `check` (with and without `--fix --diff`), `run` under `--yes`. Each line is cut at runs of
two or more spaces (table columns repeat values by design) and every cell is checked.
"""

from __future__ import annotations

import itertools
import json
import re
from pathlib import Path

import pytest

ACTIONS = ("allow", "ask", "deny")
AGENTS = ("opencode", "claude", "codex", "gemini")
REPEAT = re.compile(r"\b([A-Za-z][A-Za-z'-]+)\s+\1\b", re.I)
NOTE = re.compile(r"\[[a-z][a-z ]+[:\]][^\]]*\]?")  # a note in words: [modelled: ...]


def repeats(text: str) -> list[str]:
    bad = []
    for line in text.splitlines():
        for cell in re.split(r" {2,}", line):
            if REPEAT.search(cell):
                bad.append(line)
                break
        notes = [n.group(0) for n in NOTE.finditer(line)]
        if len(notes) != len(set(notes)):
            bad.append(line)
    return bad


def write_agent(project: Path, agent: str, bash: str, edit: str) -> None:
    if agent == "opencode":
        (project / "opencode.json").write_text(json.dumps({"permission": {
            "bash": {"*": "ask", "git *": bash, "rm *": "deny"}, "edit": {"*": "allow", "secret/*": edit}}}))
    elif agent == "claude":
        key = {"allow": "allow", "ask": "ask", "deny": "deny"}
        (project / ".claude").mkdir(exist_ok=True)
        (project / ".claude" / "settings.json").write_text(json.dumps({"permissions": {
            key[bash]: ["Bash(git *)"],
            "deny": ["Bash(rm:*)"] + (["Edit(secret/**)"] if edit == "deny" else [])}}))
    elif agent == "codex":
        decision = {"allow": "allow", "ask": "prompt", "deny": "forbidden"}[bash]
        (project / ".codex" / "rules").mkdir(parents=True, exist_ok=True)
        (project / ".codex" / "rules" / "default.rules").write_text(
            f'prefix_rule(pattern=["git", "push"], decision="{decision}")\n'
            'prefix_rule(pattern=["rm"], decision="forbidden")\n')
    else:
        decision = {"allow": "allow", "ask": "ask_user", "deny": "deny"}[bash]
        (project / ".gemini" / "policies").mkdir(parents=True, exist_ok=True)
        (project / ".gemini" / "policies" / "p.toml").write_text(
            f'[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = "git push"\ndecision = "{decision}"\n'
            'priority = 100\n')


CASES = [(agents, bash, edit) for agents in [*((a,) for a in AGENTS), ("opencode", "claude"),
                                             ("opencode", "codex", "gemini")]
         for bash, edit in itertools.product(ACTIONS, ("allow", "deny"))]

COMMANDS = [
    ("layers",), ("rules",), ("check",), ("check", "--fix", "--diff"), ("explain", "bash"),
    ("explain", "edit"),
    ("explain", "bash", "--call", json.dumps({"command": "git push origin main"})),
    ("explain", "bash", "--call", json.dumps({"command": "rm -rf build"}), "--runtime", "all"),
    ("run", "bash", "--yes", "--no-sandbox", "--args", json.dumps({"command": "git status; rm x"})),
]


@pytest.mark.parametrize(("agents", "bash", "edit"), CASES,
                         ids=[f"{'+'.join(a)}-bash_{b}-edit_{e}" for a, b, e in CASES])
def test_no_line_repeats_a_word_or_a_note(project: Path, cli, agents: tuple[str, ...], bash: str,  # type: ignore[no-untyped-def]
                                          edit: str) -> None:
    for agent in agents:
        write_agent(project, agent, bash, edit)
    bad: list[str] = []
    for command in COMMANDS:
        _code, out, err = cli(*command)
        bad += [f"{' '.join(command[:2])}: {line}" for line in repeats(out + "\n" + err)]
    assert not bad, "\n".join(bad)


def test_the_check_catches_what_it_is_meant_to() -> None:
    assert repeats("forge-tools: bash 'x': asked asked by --yes")
    assert repeats("allows `a` ([modelled: x]); `b` ([modelled: x])")
    assert not repeats("bash    keep   keep   keep")  # table columns
    assert not repeats("rule bash '*' ask, asked")
