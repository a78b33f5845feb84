"""opencode 1.18.33 as it is: its config reader and resolver (forge-tools' opencode-compatible
`config` loader and `permission.agents`), its bash lowering (`shell.py`) and its decider
(`decide.py`), weaknesses included."""

from forge_tools.runtimes.opencode.runtime import RUNTIME

__all__ = ["RUNTIME"]
