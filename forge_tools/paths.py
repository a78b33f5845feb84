"""Well-known directories (SPEC 5.2, 6.2), resolved from an environment mapping so tests can isolate."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path


def home_dir(env: Mapping[str, str] | None = None) -> Path:
    env = os.environ if env is None else env
    home = env.get("HOME")
    return Path(home) if home else Path.home()


def data_dir(env: Mapping[str, str] | None = None) -> Path:
    """`FORGE_DATA_DIR`, else `$XDG_DATA_HOME/forge`, else `~/.local/share/forge`."""
    env = os.environ if env is None else env
    if env.get("FORGE_DATA_DIR"):
        return Path(env["FORGE_DATA_DIR"])
    if env.get("XDG_DATA_HOME"):
        return Path(env["XDG_DATA_HOME"]) / "forge"
    return home_dir(env) / ".local" / "share" / "forge"


def truncation_dir(env: Mapping[str, str] | None = None) -> Path:
    return data_dir(env) / "tool-output"


def truncation_glob(env: Mapping[str, str] | None = None) -> str:
    """The `external_directory` pattern that keeps full-output files readable (SPEC 4.3)."""
    return str(truncation_dir(env)).replace("\\", "/") + "/*"


def global_config_dir(env: Mapping[str, str] | None = None) -> Path:
    """`$XDG_CONFIG_HOME/forge/`, default `~/.config/forge/`."""
    env = os.environ if env is None else env
    if env.get("XDG_CONFIG_HOME"):
        return Path(env["XDG_CONFIG_HOME"]) / "forge"
    return home_dir(env) / ".config" / "forge"
