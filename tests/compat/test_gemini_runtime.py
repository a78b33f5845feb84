"""forge-tools' Gemini CLI runtime gives the answers recorded from Gemini CLI 0.61 itself.

tests/compat/gemini/cases.json holds the configs (settings layers, policy TOML tiers, trust, mode,
headless or not) and the calls; gemini-0.61.0.json what @google/gemini-cli-core's `PolicyEngine` did
with each (allow / ask_user / deny, the rule it names: priority and source) after the CLI's own
settings loader merged the layers, and which tools it keeps from the model (`getExcludedTools`).
record.py + oracle.mjs wrote them; this test needs no Node. Each config is laid out again in a
scratch directory (HOME, project, a system directory named by FORGE_TOOLS_GEMINI_SYSTEM_DIR).

A record forge-tools cannot match yet is an `xfail(strict=True)` in `GAPS` naming the gap.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from forge_tools.runtimes.gemini.engine import Engine
from forge_tools.runtimes.gemini.policy import fmt_priority
from forge_tools.runtimes.gemini.settings import GeminiSettings, read_settings

HERE = Path(__file__).parent / "gemini"
sys.path.insert(0, str(HERE))
from layout import project_dir, same_attempted_path, write_case  # noqa: E402  (tests/compat/gemini is no package)

CASES = {c["name"]: c for c in json.loads((HERE / "cases.json").read_text())["configs"]}
RECORDS = {c["name"]: c for c in json.loads((HERE / "gemini-0.61.0.json").read_text())["configs"]}
#: the real CLI's rule list (`gemini -p "/policies list"`, headless, normal mode) for some configs
CLI_RULES = json.loads((HERE / "gemini-0.61.0-cli-rules.json").read_text())["configs"]

#: (config, call index) -> the exact gap; each is an xfail(strict=True)
GAPS: dict[tuple[str, int], str] = {}
TOOL_GAPS: dict[str, str] = {}


def _settings(name: str, root: Path) -> GeminiSettings:
    case = CASES[name]
    home, project, system = root / "home", root / "project", root / "system"
    write_case(case, home, project, system)
    project = project_dir(case, home, project)
    env = {"HOME": str(home), "FORGE_TOOLS_GEMINI_SYSTEM_DIR": str(system)}
    return read_settings(project, env, mode=case.get("mode", "default"),
                         interactive=case.get("interactive", True))


@pytest.fixture(scope="module")
def laid_out(tmp_path_factory: pytest.TempPathFactory) -> dict[str, GeminiSettings]:
    return {name: _settings(name, tmp_path_factory.mktemp(name)) for name in RECORDS}


def _rule_key(rule: dict[str, Any] | None) -> tuple[str, str] | None:
    if rule is None:
        return None
    return fmt_priority(rule["priority"]), rule["source"]


def test_fatal_settings(laid_out: dict[str, GeminiSettings]) -> None:
    """A settings file the CLI cannot parse stops it; forge-tools says so (and nothing else starts)."""
    for name, record in RECORDS.items():
        assert (laid_out[name].start_error is not None) == ("fatal" in record), name


def _marks(gap: str | None) -> list[Any]:
    return [pytest.mark.xfail(strict=True, reason=gap)] if gap is not None else []


CALLS = [pytest.param(name, i, id=f"{name}-{i}", marks=_marks(GAPS.get((name, i))))
         for name, record in RECORDS.items() for i in range(len(record.get("calls", [])))]


@pytest.mark.parametrize(("name", "index"), CALLS)
def test_call(name: str, index: int, laid_out: dict[str, GeminiSettings]) -> None:
    record = RECORDS[name]["calls"][index]
    call = record["call"]
    engine = Engine(laid_out[name])
    got = engine.check(call[0], call[1], call[2] if len(call) > 2 else None)
    want = (record["decision"], _rule_key(record["rule"]))
    have = (got.decision, _rule_key(got.rule.to_json()) if got.rule is not None else None)
    assert have == want, f"{name} {call}: steps {[(s.subject, s.decision, s.why) for s in got.steps]}"


@pytest.mark.parametrize("name", [pytest.param(n, marks=[pytest.mark.xfail(strict=True, reason=TOOL_GAPS[n])]
                                               if n in TOOL_GAPS else []) for n in RECORDS
                                  if "fatal" not in RECORDS[n]])
def test_tools_offered(name: str, laid_out: dict[str, GeminiSettings]) -> None:
    record = RECORDS[name]
    servers = CASES[name].get("mcp_tools", {})
    engine = Engine(laid_out[name])
    assert engine.excluded_tools(record["tools"], servers) == record["excluded"]


@pytest.mark.parametrize("name", [n for n in RECORDS if "fatal" not in RECORDS[n]])
def test_trust(name: str, laid_out: dict[str, GeminiSettings]) -> None:
    assert laid_out[name].trusted == RECORDS[name]["trusted"]


@pytest.mark.parametrize("name", list(CLI_RULES))
def test_the_rule_list_is_the_clis(name: str, tmp_path: Path) -> None:
    """Every rule the real CLI lists for a headless start (its own settings mapping: tools.exclude
    gains ask_user, policyPaths resolved), in its order, with priority and source."""
    case = dict(CASES[name], interactive=False, mode="default")
    home, project, system = tmp_path / "home", tmp_path / "project", tmp_path / "system"
    write_case(case, home, project, system)
    project = project_dir(case, home, project)
    env = {"HOME": str(home), "FORGE_TOOLS_GEMINI_SYSTEM_DIR": str(system)}
    settings = read_settings(project, env, mode="default", interactive=False)
    if "refused" in CLI_RULES[name]:
        assert settings.start_error is not None and "not trusted" in settings.start_error
        return
    ours = [(r.decision, r.tool_name, fmt_priority(r.priority), r.source) for r in settings.rules
            if not r.modes or "default" in r.modes]
    theirs = [(r["decision"], r["toolName"], fmt_priority(r["priority"]), r["source"])
              for r in CLI_RULES[name]]
    assert ours == theirs


def test_enough_records() -> None:
    """Issue 20's bar: at least 150 recorded calls over at least 20 configs."""
    assert len(RECORDS) >= 20
    assert sum(len(r.get("calls", [])) for r in RECORDS.values()) >= 150


def test_defaults_recorded_from_the_library() -> None:
    from forge_tools.runtimes.gemini.settings import DEFAULTS_FILE

    data = json.loads(DEFAULTS_FILE.read_text())
    assert data["version"] == "0.61.0" and data["recorded_by"].startswith("tests/compat/gemini/record.py")
    assert any(r["source"] == "Default: yolo.toml" and r["toolName"] == "*" for r in data["rules"])


REGISTRY = [pytest.param(name, i, id=f"{name}-{i}") for name, record in RECORDS.items()
            for i, c in enumerate(record.get("calls", [])) if "unregistered" in c or "validation" in c]


@pytest.mark.parametrize(("name", "index"), REGISTRY)
def test_registered_and_validated(name: str, index: int, laid_out: dict[str, GeminiSettings]) -> None:
    """Before the policy engine: an MCP tool Gemini never registers (the CLI's own
    isBlockedBySettings and isEnabled over the merged settings) and an edit's path check (the real
    WriteFileTool / EditTool's validateToolParams): forge-tools refuses the same calls, and the
    runtime's answer is a refusal, not an ask."""
    from forge_tools.runtimes.gemini.registry import path_refusal, unregistered
    from forge_tools.runtimes.gemini.runtime import RUNTIME

    record = RECORDS[name]["calls"][index]
    call = record["call"]
    settings = laid_out[name]
    if "unregistered" in record:
        server = call[2]
        mine = unregistered(settings, server, call[0][len(f"mcp_{server}_"):])
        assert (mine is None) == (record["unregistered"] is None), (mine, record["unregistered"])
        answer = RUNTIME.decide(None, call[0], call[1], settings.cwd, settings=settings)
        hidden = record["unregistered"] is not None or call[0] in RECORDS[name]["excluded"]
        assert ((answer.extra or {}).get("offered") is False) == hidden, answer.reason
        if hidden:
            assert answer.decision.refused is not None
    if "validation" in record:
        want = record["validation"]
        mine = path_refusal(settings, call[0], call[1])
        assert (mine is None) == (want is None or not want.startswith("Path not in workspace")), (mine, want)
        if mine is not None:
            import re

            attempted = [re.search(r'Attempted path "(.*?)"', t).group(1) for t in (want, mine)]  # type: ignore[union-attr]
            assert same_attempted_path(call[1]["file_path"], attempted[0], RECORDS[name]["project"],
                                       attempted[1], settings.cwd), attempted
            answer = RUNTIME.decide(None, call[0], call[1], settings.cwd, settings=settings)
            assert answer.decision.refused is not None and "Path not in workspace" in answer.reason
