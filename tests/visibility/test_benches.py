"""The benchmark scripts print what bench/README.md quotes (figures are not asserted: no timed tests)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"


def load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"_bench_{name}", BENCH / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_bench_explain_runs_21_times_by_default(monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    bench = load("bench_explain")
    calls: list[Any] = []
    monkeypatch.setattr(bench.subprocess, "run", lambda argv, **kw: calls.append(argv))
    monkeypatch.setattr(sys, "argv", ["bench_explain.py"])
    bench.main()
    assert len(calls) == 1 + 21  # one warm-up run, then the measured ones
    assert "over 21 runs" in capsys.readouterr().out


def test_bench_layer3_judges_the_target_on_the_full_size_row(monkeypatch: pytest.MonkeyPatch,
                                                             capsys: Any) -> None:
    bench = load("bench_layer3")
    sizes: list[int] = []

    def fake_timed(n_tools: int, n_rules: int, repeat: int) -> tuple[float, int]:
        sizes.append(n_tools)
        return n_tools / 1000, 0

    monkeypatch.setattr(bench, "timed", fake_timed)
    monkeypatch.setattr(sys, "argv", ["bench_layer3.py", "--size", "100"])
    bench.main()
    assert sizes == [50, 100, 200]  # each size measured once
    [target] = [line for line in capsys.readouterr().out.splitlines() if line.startswith("target")]
    assert "0.100 s" in target
