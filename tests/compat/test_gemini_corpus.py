"""forge-tools' Gemini CLI runtime against the generated corpus recorded from Gemini CLI 0.61's own
library and settings loader (tests/compat/gemini/corpus.py: settings, policy TOML, modes, trust and
calls from a fixed seed; corpus-0.61.0.json holds each case and Gemini's answers). Every call must
agree: the decision and the priority and source of the rule Gemini names, whether an MCP tool is
registered at all, an edit's path check; and per config the tools Gemini keeps from the model. No
Node: the records are the oracle."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from forge_tools.runtimes.gemini.engine import Engine
from forge_tools.runtimes.gemini.policy import fmt_priority
from forge_tools.runtimes.gemini.settings import read_settings

HERE = Path(__file__).parent / "gemini"
sys.path.insert(0, str(HERE))
from layout import project_dir, same_attempted_path, write_case  # noqa: E402

CORPUS = json.loads((HERE / "corpus-0.61.0.json").read_text()) if (HERE / "corpus-0.61.0.json").is_file() \
    else {"configs": []}
#: the built-in tools the oracle lists (every record's tool list less its MCP tools)
BUILTIN = [t for t in next(c for c in json.loads((HERE / "gemini-0.61.0.json").read_text())["configs"]
                           if c["name"] == "defaults-interactive")["tools"] if not t.startswith("mcp_")]


def test_the_corpus_is_large_enough() -> None:
    assert sum(len(c["case"]["calls"]) for c in CORPUS["configs"]) >= 2000


@pytest.mark.parametrize("index", range(len(CORPUS["configs"])))
def test_corpus_config(index: int, tmp_path: Path) -> None:
    from forge_tools.runtimes.gemini.registry import path_refusal, unregistered

    record = CORPUS["configs"][index]
    case: dict[str, Any] = record["case"]
    home, project, system = tmp_path / "home", tmp_path / "project", tmp_path / "system"
    write_case(case, home, project, system)
    project = project_dir(case, home, project)
    env = {"HOME": str(home), "FORGE_TOOLS_GEMINI_SYSTEM_DIR": str(system)}
    settings = read_settings(project, env, mode=case.get("mode", "default"),
                             interactive=case.get("interactive", True))
    if "fatal" in record:
        assert settings.start_error is not None
        return
    assert settings.trusted == record["trusted"]
    engine = Engine(settings)
    wrong = []
    for call, answer in zip(case["calls"], record["answers"], strict=True):
        decision, priority, source, *checks = answer
        got = engine.check(call[0], call[1], call[2] if len(call) > 2 else None)
        mine = (got.decision, fmt_priority(got.rule.priority) if got.rule else None,
                got.rule.source if got.rule else None)
        if mine != (decision, fmt_priority(priority) if priority is not None else None, source):
            wrong.append((call, answer, mine))
        for check in checks:
            if "unregistered" in check:
                server = call[2]
                why = unregistered(settings, server, call[0][len(f"mcp_{server}_"):])
                if (why is None) != (check["unregistered"] is None):
                    wrong.append((call, check, why))
            if "validation" in check:
                want, why = check["validation"], path_refusal(settings, call[0], call[1])
                if (why is None) != (want is None or not want.startswith("Path not in workspace")):
                    wrong.append((call, want, why))
                elif why is not None:
                    theirs = re.search(r'Attempted path "(.*?)"', want).group(1)  # type: ignore[union-attr]
                    ours = re.search(r'Attempted path "(.*?)"', why).group(1)  # type: ignore[union-attr]
                    asked = call[1]["file_path"]
                    if not same_attempted_path(asked, theirs, record["project"], ours, project):
                        wrong.append((call, want, why))
    excluded = engine.excluded_tools([*BUILTIN, *case.get("mcp_tools", {})], case.get("mcp_tools", {}))
    if excluded != record["excluded"]:
        wrong.append(("excluded tools", record["excluded"], excluded))
    assert not wrong, wrong
