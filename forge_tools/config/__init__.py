"""Config files and overlays (SPEC 6) -> one merged, validated tree with an origin on every value."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
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


def __getattr__(name: str) -> Any:
    """Each name on first use: the loader is not needed to read one file's format (`config.formats`,
    which `forge-tools hook` reads without loading a config), the models not to load a config."""
    if name == "ConfigModel":
        from forge_tools.config.schema import ConfigModel

        return ConfigModel
    if name in __all__:
        from forge_tools.config import loader

        return getattr(loader, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
