"""The builtin tools' definitions (description, parameter JSON Schema, `internal`), computed once when
the package is built, not per run.

Listing the builtins needs only these, but reading them from the tools themselves means importing
every builtin module and building its pydantic argument model (pydantic's model machinery alone costs
about as much as the rest of a `layers` run). So they ship in `builtin_definitions.json` beside this
module, and each builtin is a `LazyTool` whose module is imported on first use of its code (a call).
Each entry carries a checksum of its module's source: a module edited since (a stale entry) is simply
imported, so the file can only cost speed. A test compares the shipped file with the live tools;
regenerate it after changing a builtin's description or arguments:

    python -m forge_tools.tools.schema_cache

Any other model (a tool script's, a plugin's) has its schema computed on first use and kept for the
process (`model_schema`).
"""

from __future__ import annotations

import copy
import json
import zlib
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pydantic import BaseModel

CACHE_FILE = Path(__file__).with_name("builtin_definitions.json")
BUILTINS_DIR = Path(__file__).with_name("builtins")
_computed: dict[type, dict[str, Any]] = {}


@lru_cache(maxsize=1)
def shipped() -> dict[str, dict[str, Any]]:
    try:
        data = json.loads(CACHE_FILE.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def source_checksum(tool_id: str) -> int | None:
    """CRC-32 of a builtin module's source file (None when it has none), read without importing it."""
    try:
        return zlib.crc32((BUILTINS_DIR / f"{tool_id}.py").read_bytes())
    except OSError:
        return None


def shipped_definition(tool_id: str) -> dict[str, Any] | None:
    """The shipped `{"description", "parameters", "internal"}` of a builtin, or None when its entry is
    missing, malformed or stale."""
    entry = shipped().get(tool_id)
    if not isinstance(entry, dict) or entry.get("source_crc32") != source_checksum(tool_id):
        return None
    if not isinstance(entry.get("description"), str) or not isinstance(entry.get("parameters"), dict):
        return None
    return entry


def model_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The JSON Schema of an argument model (a fresh copy each call, as `model_json_schema()` gives)."""
    schema = _computed.get(model)
    if schema is None:
        schema = _computed[model] = model.model_json_schema()
    return copy.deepcopy(schema)


def live_definitions() -> dict[str, dict[str, Any]]:
    """Every builtin's definition taken from its module now, with the module's checksum (what the
    shipped file must equal)."""
    from forge_tools.tools.builtins import ALL_BUILTINS, import_builtin

    found: dict[str, dict[str, Any]] = {}
    for tool_id in ALL_BUILTINS:
        tool = import_builtin(tool_id)
        found[tool_id] = {"source_crc32": source_checksum(tool_id), "description": tool.description,
                          "internal": tool.internal, "parameters": tool.json_schema()}
    return found


def main() -> None:
    CACHE_FILE.write_text(json.dumps(live_definitions(), indent=1) + "\n", encoding="utf-8")
    print(f"wrote {CACHE_FILE}")


if __name__ == "__main__":
    main()
