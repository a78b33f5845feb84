"""Start-up defines few dataclasses: on Python 3.11 `@dataclass` compiles each generated method with
its own `exec` (a frozen class with four fields costs about 1.3 ms to define, a `typing.NamedTuple`
about 0.25 ms), so immutable value records are NamedTuples (docs/architecture.md, "Records").

Budgets, counted on bench/ratios.py's small project (dataclasses among the loaded forge_tools modules'
attributes): `explain bash` 12 (36 before records became NamedTuples), `layers` 9 (33), `check` 12
(46). A new dataclass on these paths has to fit the budget or be a NamedTuple.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_startup_imports import COUNT_LINES, SMALL_TOML, probe_json

BUDGET = {"explain": 12, "layers": 9, "check": 12}

PROBE = """
import dataclasses, io, json, sys
from contextlib import redirect_stdout
from forge_tools.cli.app import run

with redirect_stdout(io.StringIO()):
    code = run(sys.argv[1:])
found = set()
for name, module in list(sys.modules.items()):
    if module is None or name.partition(".")[0] != "forge_tools":
        continue
    for value in list(vars(module).values()):
        if isinstance(value, type) and dataclasses.is_dataclass(value) \\
                and value.__module__.partition(".")[0] == "forge_tools":
            found.add(f"{value.__module__}.{value.__qualname__}")
print(json.dumps({"code": code, "dataclasses": sorted(found)}))
"""


def dataclasses_after(project: Path, *args: str) -> tuple[int, list[str]]:
    data = probe_json(PROBE, project, *args)
    return data["code"], data["dataclasses"]


@pytest.fixture
def small_project(project: Path) -> Path:
    (project / "forge.toml").write_text(SMALL_TOML)
    (project / ".forge" / "tools").mkdir(parents=True)
    (project / ".forge" / "tools" / "count_lines.py").write_text(COUNT_LINES)
    dataclasses_after(project, "layers")  # the first listing builds and caches the script tool's schema
    return project


@pytest.mark.parametrize("args", [["explain", "bash"], ["layers"], ["check"]], ids=" ".join)
def test_the_small_project_commands_define_few_dataclasses(small_project: Path, args: list[str]) -> None:
    code, found = dataclasses_after(small_project, *args)
    assert code == 0
    assert len(found) <= BUDGET[args[0]], found


def test_the_value_records_on_the_path_are_named_tuples(small_project: Path) -> None:
    _code, found = dataclasses_after(small_project, "check")
    records = ("forge_tools.origin.Origin", "forge_tools.rule.Rule",
               "forge_tools.permission.evaluate.Decision", "forge_tools.permission.agents.Agent",
               "forge_tools.config.loader.ConfigSource", "forge_tools.report.findings.CodeInfo")
    assert [r for r in records if r in found] == []
    assert "forge_tools.report.findings.Finding" in found  # `data` is left out of equality: a dataclass
