"""What every command warns about the config, from one place: the parts forge-tools leaves out of its
answers, each a located `ConfigWarning` (layers, explain and run print one `warning:` line each;
`check` reports each as its finding).

- a key opencode drops from its own files (a misspelt top-level key, with the closest known one):
  FT117, as `config.reader` found it;
- a local opencode plugin (`.opencode/plugin/*.ts`, `.js`, `.mjs`): opencode loads it, forge-tools
  runs Python plugins only, so its tools and hooks are missing from the answers: FT119;
- an MCP server with an empty name (its tools would get ids such as `_tool`): FT119.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from forge_tools.errors import ConfigError, ConfigWarning
from forge_tools.origin import Origin

if TYPE_CHECKING:
    from forge_tools.config.loader import LoadedConfig

#: the file kinds of opencode's own plugins (forge-tools loads `*.py` ones)
OPENCODE_PLUGIN_SUFFIXES = (".ts", ".js", ".mjs")
IGNORED_HINT = "fix the key's spelling or remove it; opencode ignores it, and so does forge-tools"
PLUGIN_HINT = ("write the plugin in Python for forge-tools (docs/plugins.md), or know that its tools "
               "and hooks are not in these answers")
EMPTY_NAME_HINT = "give the server a name (the key under `mcp`)"


def config_warnings(loaded: LoadedConfig) -> list[ConfigWarning]:
    """Every warning about `loaded`, in a stable order: ignored keys, skipped plugins, server names."""
    found = [_ignored(e) for e in loaded.ignored]
    found += skipped_plugins(loaded.config_dirs)
    found += _empty_server_names(loaded)
    return found


def _ignored(error: ConfigError) -> ConfigWarning:
    if isinstance(error, ConfigWarning):
        return error
    hint = "give OPENCODE_PERMISSION a JSON object" if error.origin is not None and \
        error.origin.kind == "env" else IGNORED_HINT
    return ConfigWarning(error.message, error.origin, "FT117", hint)


def skipped_plugins(config_dirs: list[Path]) -> list[ConfigWarning]:
    from forge_tools.sources.plugin_refs import PLUGIN_DIR_NAMES

    found = []
    for directory in config_dirs:
        for sub in PLUGIN_DIR_NAMES:
            folder = Path(directory) / sub
            if not folder.is_dir():
                continue
            for file in sorted(folder.iterdir()):
                if file.suffix in OPENCODE_PLUGIN_SUFFIXES and file.is_file():
                    found.append(ConfigWarning(
                        f"local plugin {file.name} is opencode's ({file.suffix[1:]}): forge-tools does not "
                        "load it (it runs Python plugins only), so its tools and hooks are missing from "
                        "these answers", Origin("file", path=str(file), line=1, column=1), "FT119",
                        PLUGIN_HINT))
    return found


def _empty_server_names(loaded: LoadedConfig) -> list[ConfigWarning]:
    node = loaded.tree.get("mcp")
    if node is None or not node.is_map:
        return []
    return [ConfigWarning("an MCP server with an empty name: its tools get ids that start with `_`, "
                          "which no rule written for a server names", entry.key_origin or entry.origin,
                          "FT119", EMPTY_NAME_HINT)
            for name, entry in node.items() if not name.strip()]
