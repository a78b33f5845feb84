"""Claude Code 2.1.332 as it is: its settings files and trust (`settings.py`), its rule strings
(`rules.py`), its resolver (`decide.py`), its Bash lowering (`shell.py`, `readonly.py`), its tool
names (`tools.py`) and the findings its own tools do not give (`findings.py`)."""

from forge_tools.runtimes.claude.runtime import RUNTIME

__all__ = ["RUNTIME"]
