"""forge-tools' own runtime: the answer is the gate's, the one `forge-tools run` enforces."""

from __future__ import annotations

from typing import Any

__all__ = ["RUNTIME"]


def __getattr__(name: str) -> Any:
    """`RUNTIME`, imported when asked: reading which files are forge-tools' (`files.py`) needs none of it."""
    if name == "RUNTIME":
        from forge_tools.runtimes.forge.runtime import RUNTIME

        return RUNTIME
    raise AttributeError(name)
