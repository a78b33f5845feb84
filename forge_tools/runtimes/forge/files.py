"""Which of a project's files are forge-tools' own: `forge.*`, `.forge/` directories, `FORGE_*`
variables and its global directory (`runtimes.is_forge_source`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from forge_tools.runtimes.found import ConfigFile, vocabulary_files

if TYPE_CHECKING:
    from forge_tools.config.loader import LoadedConfig

DISPLAY = "forge-tools"
AGENT = False  # forge-tools' own gate: the answer `forge-tools run` enforces, said beside the agents'


def config_files(loaded: LoadedConfig, env: Mapping[str, str] | None = None) -> list[ConfigFile]:
    return vocabulary_files(loaded, env, forge=True, dir_name=".forge")
