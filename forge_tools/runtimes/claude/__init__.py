"""Claude Code 2.1.332 as it is: its settings files and trust (`settings.py`), its rule strings
(`rules.py`), its resolver (`decide.py`), its Bash lowering (`shell.py`, `readonly.py`), its tool
names (`tools.py`) and the findings its own tools do not give (`findings.py`)."""

from __future__ import annotations

from typing import Any

__all__ = ["RUNTIME"]


def __getattr__(name: str) -> Any:
    """`RUNTIME`, imported when asked: reading which files the agent has (`files.py`) needs none of it."""
    if name == "RUNTIME":
        from forge_tools.runtimes.claude.runtime import RUNTIME

        return RUNTIME
    raise AttributeError(name)
