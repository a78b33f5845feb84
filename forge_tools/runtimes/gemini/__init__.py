"""Gemini CLI 0.61 as a runtime: its settings and policy reader (`settings.py`, `policy_files.py`), its
policy engine (`engine.py`), its shell lowering and heuristics (`shell.py`, `safety.py`) and its tool
names (`tools.py`), checked against @google/gemini-cli-core 0.61.0 in tests/compat/gemini."""

from forge_tools.runtimes.gemini.runtime import RUNTIME

__all__ = ["RUNTIME"]
