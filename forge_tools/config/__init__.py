"""Config files and overlays (SPEC 6) -> one merged, validated tree with an origin on every value."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

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

if TYPE_CHECKING:
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
    """`ConfigModel` on first use: the models are not needed to load a config (`config.schema`)."""
    if name == "ConfigModel":
        from forge_tools.config.schema import ConfigModel

        return ConfigModel
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
