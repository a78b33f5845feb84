"""The `opencode` runtime: opencode 1.18.33's reader and resolver (forge-tools' opencode-compatible
`config.loader` and `permission.agents`, which are checked against its binary in tests/compat) and
its decider, `decide.decide` (with `shell.py`, its bash lowering)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from forge_tools.runtimes.base import OpencodeVocabulary, RuntimeAnswer

if TYPE_CHECKING:
    from forge_tools.config.loader import LoadedConfig
    from forge_tools.errors import ConfigError
    from forge_tools.visibility.pipeline import PipelineResult

VERSION = "1.18.33"


class OpencodeRuntime(OpencodeVocabulary):
    """opencode 1.18.33, reproduced exactly (weaknesses included)."""

    name = "opencode"
    version = VERSION

    def start_error(self, loaded: LoadedConfig) -> ConfigError | None:
        """Why opencode does not start with this config at all (`refusals.start_error`), or None."""
        from forge_tools.runtimes.opencode.refusals import start_error

        return start_error(loaded)

    def lower(self, line: str) -> list[str]:
        from forge_tools.runtimes.opencode.shell import bash_patterns

        return bash_patterns(line)

    def decide(self, result: PipelineResult, tool_id: str, args: dict[str, Any],
               project_root: Path, cwd: Path | None = None) -> RuntimeAnswer:
        from forge_tools.runtimes.opencode.decide import decide

        decision, reason = decide(result, tool_id, args, project_root, cwd or project_root)
        return RuntimeAnswer(self.name, self.version, decision, reason)


RUNTIME = OpencodeRuntime()
