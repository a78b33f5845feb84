"""The builtin tools' parameter JSON Schemas, computed once when the package is built, not per run.

`model_json_schema()` makes pydantic build each argument model's full schema, a few milliseconds per
builtin on every `layers`/`explain`/`check`. The schemas of the builtins are therefore shipped in
`builtin_schemas.json` beside this module; any other model (a tool script's, a plugin's) is computed
on first use and kept for the process. Each shipped schema carries a checksum of its module's source:
a module edited since (a stale file) is simply computed live, so the cache can only cost speed. A test
compares the shipped file with the live models; regenerate it after changing a builtin's arguments:

    python -m forge_tools.tools.schema_cache
"""

from __future__ import annotations

import copy
import json
import sys
import zlib
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pydantic import BaseModel

CACHE_FILE = Path(__file__).with_name("builtin_schemas.json")
_BUILTIN_PREFIX = "forge_tools.tools.builtins."
_computed: dict[type, dict[str, Any]] = {}


def model_key(model: type[BaseModel]) -> str:
    return f"{model.__module__}:{model.__qualname__}"


@lru_cache(maxsize=1)
def shipped() -> dict[str, dict[str, Any]]:
    try:
        data = json.loads(CACHE_FILE.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def source_checksum(module_name: str) -> int | None:
    """CRC-32 of a module's source file (None when it has none)."""
    path = getattr(sys.modules.get(module_name), "__file__", None)
    try:
        return zlib.crc32(Path(path).read_bytes()) if path else None
    except OSError:
        return None


def _shipped_schema(model: type[BaseModel]) -> dict[str, Any] | None:
    if not model.__module__.startswith(_BUILTIN_PREFIX):
        return None
    entry = shipped().get(model_key(model))
    if not isinstance(entry, dict) or entry.get("source_crc32") != source_checksum(model.__module__):
        return None
    schema = entry.get("schema")
    return schema if isinstance(schema, dict) else None


def model_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The JSON Schema of an argument model (a fresh copy each call, as `model_json_schema()` gives)."""
    schema = _shipped_schema(model)
    if schema is None:
        schema = _computed.get(model)
        if schema is None:
            schema = _computed[model] = model.model_json_schema()
    return copy.deepcopy(schema)


def live_schemas() -> dict[str, dict[str, Any]]:
    """Every builtin's schema computed from its model now, with its module's checksum (what the shipped
    file must equal)."""
    from forge_tools.tools.builtins import ALL_BUILTINS, load_builtin

    found: dict[str, dict[str, Any]] = {}
    for tool_id in ALL_BUILTINS:
        parameters = load_builtin(tool_id).parameters
        if not isinstance(parameters, dict):
            found[model_key(parameters)] = {"source_crc32": source_checksum(parameters.__module__),
                                            "schema": parameters.model_json_schema()}
    return dict(sorted(found.items()))


def main() -> None:
    CACHE_FILE.write_text(json.dumps(live_schemas(), indent=1) + "\n", encoding="utf-8")
    print(f"wrote {CACHE_FILE}")


if __name__ == "__main__":
    main()
