"""forge-tools' Codex runtime gives the answers recorded from the Codex CLI 0.171.0 binary (and
0.169.0's where the two agree).

tests/compat/codex/cases.json holds the configs; codex-<version>.json what each binary said
(`record.py`, run by hand). forge-tools answers as 0.171.0 (`runtimes.codex.runtime.VERSION`); a
0.169.0 record whose answer differs from 0.171.0's is listed in `DIFFERS_0_169` (checked to be
exactly those), the facts a `codex@0.169.0` runtime has to answer differently. `policy` configs: rule
files and argv put to `codex execpolicy check`
(matched rules, decision, or the file Codex refused). `layout` configs: a HOME and a project with
config.toml and rules/ files, trust, `-c` flags; the binary's prompt (`codex debug prompt-input`)
gives sandbox_mode, the approval policy, the approved prefixes (the allow rules of every layer Codex
loaded), the tools offered, or the error it stopped with. Each is laid out again in a scratch
directory and put to `runtimes.codex`. No Node, no network: the records are the oracle.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from forge_tools.runtimes.codex.config import read_codex
from forge_tools.runtimes.codex.decide import CODE_MODE_TOOLS, decide
from forge_tools.runtimes.codex.launch import CodexLaunch
from forge_tools.runtimes.codex.policy import Policy
from forge_tools.runtimes.codex.runtime import VERSION

HERE = Path(__file__).parent / "codex"
CASES = {c["name"]: c for c in json.loads((HERE / "cases.json").read_text())["configs"]}
BY_VERSION = {v: {c["name"]: c for c in json.loads((HERE / f"codex-{v}.json").read_text())["configs"]}
              for v in ("0.171.0", "0.169.0")}
RECORDS = BY_VERSION[VERSION]
#: the 0.169.0 records whose answer is not 0.171.0's: (config, call index or None for a layout) -> what
DIFFERS_0_169: dict[tuple[str, int | None], str] = {}


def _answer(record: dict[str, Any]) -> Any:
    """What of a record is Codex's answer (not the output's timings, ids or the recorded date)."""
    if record["kind"] == "layout":
        return {k: v for k, v in record.items() if k not in ("tools",)}
    if record["kind"] == "exec":
        return record["outcome"], record.get("error", "").splitlines()[:1]
    return record


def _differs() -> dict[tuple[str, int | None], bool]:
    new, old = BY_VERSION["0.171.0"], BY_VERSION["0.169.0"]
    out: dict[tuple[str, int | None], bool] = {}
    for name, rec in old.items():
        if name not in new:
            continue
        if rec["kind"] == "layout":
            out[(name, None)] = _answer(rec) != _answer(new[name])
        else:
            for i, (a, b) in enumerate(zip(rec["calls"], new[name]["calls"], strict=True)):
                out[(name, i)] = _answer(dict(a, kind=rec["kind"])) != _answer(dict(b, kind=rec["kind"]))
    return out


def _params(kind: str) -> list[Any]:
    out = []
    for version, records in BY_VERSION.items():
        for name, r in records.items():
            if r["kind"] != kind:
                continue
            for i in (range(len(r["calls"])) if kind != "layout" else [None]):
                if version != VERSION and (name, i) in DIFFERS_0_169:
                    continue
                out.append(pytest.param(version, name, i, id=f"{version}-{name}[{i}]"))
    return out


def _policy_calls() -> list[Any]:
    return _params("policy")


def _exec_calls() -> list[Any]:
    return _params("exec")


def _layouts() -> list[Any]:
    return _params("layout")


def test_the_versions_differ_where_listed() -> None:
    """Exactly the listed 0.169.0 records differ from 0.171.0's (a re-recording's reviewed diff)."""
    assert {k for k, v in _differs().items() if v} == set(DIFFERS_0_169)


def _write(root: Path, files: dict[str, str], base: Path) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text.replace("$PROJECT", str(base / "project")).replace("$HOME", str(base / "home"))
                        .replace("$PYTHON", sys.executable).replace("$COMPAT", str(HERE.parent / "claude")))


@pytest.mark.parametrize(("version", "config", "index"), _exec_calls())
def test_exec_call_matches_binary(version: str, config: str, index: int, tmp_path: Path) -> None:
    """`codex exec` (approval never) with the user's rules: what Codex did with one exec_command."""
    case, record = CASES[config], BY_VERSION[version][config]["calls"][index]
    base = tmp_path / "codex"
    project, home = base / "project", base / "home"
    (project / ".git").mkdir(parents=True)
    _write(home / ".codex" / "rules", case["rules"], base)
    _write(home, case.get("home_files", {}), base)
    _write(project, case.get("project_files", {}), base)
    _write(home / ".codex", {"config.toml": case.get("config", "")}, base)
    settings = read_codex(project, {"HOME": str(home), "CODEX_HOME": str(home / ".codex")},
                          overrides=['approval_policy="never"'])  # what codex exec runs with
    got = decide(settings, "exec_command", record["call"], project)
    want, why = record["outcome"], [c.why for c in got.checks]
    if want == "error":  # Codex stopped before the model was asked: no call runs
        assert not got.offered and got.behavior == "deny", why
        assert settings.start_error is not None and record["error"].splitlines()[0] in settings.start_error
        return
    if want == "ran":  # run, in the sandbox or not: nothing it wrote was refused
        assert got.outcome in ("ran", "sandboxed"), why
    else:
        assert got.outcome == want, why


def test_records_are_enough() -> None:
    calls = sum(len(r["calls"]) for r in RECORDS.values() if r["kind"] == "policy")
    assert calls >= 150 and len(RECORDS) >= 20
    assert set(RECORDS) == set(CASES) and set(BY_VERSION["0.169.0"]) == set(CASES)


@pytest.mark.parametrize(("version", "config", "index"), _policy_calls())
def test_policy_call_matches_binary(version: str, config: str, index: int, tmp_path: Path) -> None:
    case, record = CASES[config], BY_VERSION[version][config]["calls"][index]
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


def _outside_any_repository(tmp_path: Path) -> Iterator[Path]:
    """A fresh folder no `.git` is at or above (Codex takes the nearest as the project root): the
    test's own temp folder when none is above it, else one in the first system temp folder that has
    none, so the machine's folders cannot change the answer (the recorder ran outside any repository)."""
    import shutil
    import tempfile

    def in_a_repository(folder: Path) -> bool:
        return any((d / ".git").exists() for d in (folder, *folder.parents))

    if not in_a_repository(tmp_path):
        yield tmp_path
        return
    for candidate in (tempfile.gettempdir(), "/tmp", "/var/tmp", "/dev/shm"):
        place = Path(candidate)
        if place.is_dir() and os.access(place, os.W_OK) and not in_a_repository(place):
            made = Path(tempfile.mkdtemp(prefix="forge-codex-", dir=place))
            try:
                yield made
            finally:
                shutil.rmtree(made, ignore_errors=True)
            return
    pytest.skip("every temp folder of this machine is inside a git repository")


@pytest.mark.parametrize(("version", "config", "index"), _layouts())
def test_layout_matches_binary(version: str, config: str, index: None, tmp_path: Path) -> None:
    case = CASES[config]
    if case.get("git", True):
        _layout_matches(version, config, tmp_path)
        return
    for outside in _outside_any_repository(tmp_path):
        _layout_matches(version, config, outside)


def _layout_matches(version: str, config: str, tmp_path: Path) -> None:
    case, record = CASES[config], BY_VERSION[version][config]
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
    launch = _launch(case.get("global_flags", []), case.get("flags", []))
    got = read_codex(cwd, env, overrides=list(launch.overrides), profile=launch.profile)
    if "error" in record:
        stop = record["error"].splitlines()[0]
        assert got.start_error is not None, f"Codex stops ({stop}); forge-tools not"
        legacy = re.match(r"Error: (legacy `profile = .*? instead|--profile `\w+` cannot be used while )",
                          stop)
        if legacy is not None:
            assert _normalised(got.start_error, base).startswith(legacy.group(1)), got.start_error
        where = re.match(r"Error: (\$\w+/\S+?):(\d+):(\d+):", record["error"])
        if where is not None:
            path = where.group(1).replace("$PROJECT", str(project)).replace("$HOME", str(home))
            assert got.start_error_origin is not None
            assert (got.start_error_origin.path, got.start_error_origin.line) == (path, int(where.group(2)))
        return
    if got.start_error is not None and got.start_error.startswith("Error loading rules"):
        # `debug prompt-input` renders the prompt with no rule at all; `codex exec` stops (exec-bad-*)
        assert record["approved_prefixes"] == [], record
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


def _normalised(text: str, base: Path) -> str:
    return text.replace(str(base / "project"), "$PROJECT").replace(str(base / "home"), "$HOME")


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


def _launch(global_flags: list[str], flags: list[str]) -> CodexLaunch:
    """The recorded command line (`codex GLOBAL debug prompt-input hi FLAGS`) read by forge-tools' Codex
    launch grammar as `--launch 'codex GLOBAL FLAGS'`: every record with flags is a record of them."""
    from forge_tools.runtimes.launch import parse_launch

    options: CodexLaunch = parse_launch(shlex.join(["codex", *global_flags, *flags])).options
    return options


def test_the_tool_lists_differ_by_one_tool() -> None:
    """0.171.0 offers the model one top-level tool 0.169.0 does not (`send_message_to_user_async`);
    code mode's nested tools (`CODE_MODE_TOOLS`, `clock__curr_time` among them: Codex's own, there
    with no MCP server) are the same in both."""
    for name, new in BY_VERSION["0.171.0"].items():
        old = BY_VERSION["0.169.0"][name]
        if new["kind"] != "layout" or "tools" not in new:
            continue
        assert set(new["tools"]) - set(old["tools"]) == {"send_message_to_user_async"}, name
        assert set(old["tools"]) <= set(new["tools"]) and new["nested_tools"] == old["nested_tools"], name
