"""Which of a project's files are opencode's: `opencode.json`/`opencode.jsonc` (and `config.json` in its
global directory), `.opencode/` directories, `OPENCODE_*` variables and its managed directory: every
source forge-tools reads that is not forge-tools' own (`runtimes.is_forge_source`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from forge_tools.runtimes.found import ConfigFile, vocabulary_files

if TYPE_CHECKING:
    from forge_tools.config.loader import LoadedConfig

DISPLAY = "opencode"
AGENT = True  # an agent people run (forge-tools' gate is not one)


def config_files(loaded: LoadedConfig, env: Mapping[str, str] | None = None) -> list[ConfigFile]:
    return vocabulary_files(loaded, env, forge=False, dir_name=".opencode")
