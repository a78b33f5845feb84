"""Which of a project's files are forge-tools' own: `forge.*`, `.forge/` directories, `FORGE_*`
variables and its global directory (`runtimes.is_forge_source`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from forge_tools.runtimes.found import ConfigFile, source_file

if TYPE_CHECKING:
    from forge_tools.config.loader import LoadedConfig

DISPLAY = "forge-tools"
AGENT = False  # forge-tools' own gate: the answer `forge-tools run` enforces, said beside the agents'


def config_files(loaded: LoadedConfig, env: Mapping[str, str] | None = None) -> list[ConfigFile]:
    from forge_tools.paths import home_dir
    from forge_tools.runtimes import is_forge_source

    found = [source_file(s) for s in loaded.sources if is_forge_source(s)]
    seen = {f.path for f in found}
    home = home_dir(env)
    for d in loaded.config_dirs:
        if d.name == ".forge" and str(d) not in seen:
            found.append(ConfigFile(str(d), "user" if d.parent == home else "project", "config directory"))
    return found
