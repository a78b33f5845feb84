"""Gemini CLI 0.61 as a runtime: its settings and policy reader (`settings.py`, `policy_files.py`), its
policy engine (`engine.py`), its shell lowering and heuristics (`shell.py`, `safety.py`) and its tool
names (`tools.py`), checked against @google/gemini-cli-core 0.61.0 in tests/compat/gemini."""

from __future__ import annotations

from typing import Any

__all__ = ["RUNTIME"]


def __getattr__(name: str) -> Any:
    """`RUNTIME`, imported when asked: reading which files the agent has (`files.py`) needs none of it."""
    if name == "RUNTIME":
        from forge_tools.runtimes.gemini.runtime import RUNTIME

        return RUNTIME
    raise AttributeError(name)
