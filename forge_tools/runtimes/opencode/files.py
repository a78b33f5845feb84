"""Which of a project's files are opencode's: `opencode.json`/`opencode.jsonc` (and `config.json` in its
global directory), `.opencode/` directories, `OPENCODE_*` variables and its managed directory: every
source forge-tools reads that is not forge-tools' own (`runtimes.is_forge_source`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from forge_tools.runtimes.found import ConfigFile, source_file

if TYPE_CHECKING:
    from forge_tools.config.loader import LoadedConfig

DISPLAY = "opencode"
AGENT = True  # an agent people run (forge-tools' gate is not one)


def config_files(loaded: LoadedConfig, env: Mapping[str, str] | None = None) -> list[ConfigFile]:
    from forge_tools.paths import home_dir
    from forge_tools.runtimes import is_forge_source

    found = [source_file(s) for s in loaded.sources if not is_forge_source(s)]
    seen = {f.path for f in found}
    home = home_dir(env)
    for d in loaded.config_dirs:
        if d.name == ".opencode" and str(d) not in seen:
            found.append(ConfigFile(str(d), "user" if d.parent == home else "project", "config directory"))
    return found
