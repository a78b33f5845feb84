"""Config files and overlays (SPEC 6) -> one merged, validated tree with an origin on every value."""

from __future__ import annotations

from forge_tools.config.loader import (
    CONFIG_FILE_ORDER,
    ConfigSource,
    LoadedConfig,
    LoadOptions,
    PluginSpec,
    find_project_root,
    load_config,
    load_project,
)
from forge_tools.config.schema import ConfigModel

__all__ = [
    "CONFIG_FILE_ORDER",
    "ConfigModel",
    "ConfigSource",
    "LoadOptions",
    "LoadedConfig",
    "PluginSpec",
    "find_project_root",
    "load_config",
    "load_project",
]
