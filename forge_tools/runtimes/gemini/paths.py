"""Where Gemini CLI 0.61 looks for its files: the settings layers and the policy files of a
directory. Light on purpose: `agents`, `check` and every command that lists the runtimes' files ask it
for every project, Gemini's or not."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path


def system_dir(env: Mapping[str, str]) -> Path:
    return Path(env.get("FORGE_TOOLS_GEMINI_SYSTEM_DIR") or "/etc/gemini-cli")


def settings_paths(cwd: Path, env: Mapping[str, str]) -> list[tuple[str, Path]]:
    """(layer, path) of every settings file Gemini would read here, lowest first."""
    from forge_tools.paths import home_dir

    home, system = home_dir(env), system_dir(env)
    system_settings = Path(env.get("GEMINI_CLI_SYSTEM_SETTINGS_PATH") or system / "settings.json")
    defaults = Path(env.get("GEMINI_CLI_SYSTEM_DEFAULTS_PATH")
                    or system_settings.parent / "system-defaults.json")
    found = [("system-defaults", defaults), ("user", home / ".gemini" / "settings.json")]
    if cwd.resolve() != home.resolve():
        found.append(("workspace", cwd / ".gemini" / "settings.json"))
    found.append(("system", system_settings))
    return found


def policy_files(directory: Path) -> list[Path]:
    """The `*.toml` files of a policy directory (or the file itself), in Gemini's order (by name)."""
    if directory.is_file():
        return [directory] if directory.suffix == ".toml" else []
    if not directory.is_dir():
        return []
    return sorted((p for p in directory.iterdir() if p.is_file() and p.name.endswith(".toml")),
                  key=lambda p: p.name.encode())
