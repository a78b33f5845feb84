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

Any other model (a plugin's) has its schema computed on first use and kept for the process
(`model_schema`). A `@tool` function whose parameters are plain data (str, int, float, bool, None,
Any, and lists, dicts, unions and literals of them; plain defaults) has a schema that only its
signature and the pydantic version decide: it is kept in `<data dir>/cache/script-schemas.json`
under that key, so a script tool is listed without building its model after the first run.
"""

from __future__ import annotations

import copy
import json
from functools import cache, lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Union, get_args, get_origin

if TYPE_CHECKING:
    from pydantic import BaseModel

CACHE_FILE = Path(__file__).with_name("builtin_definitions.json")
BUILTINS_DIR = Path(__file__).with_name("builtins")
_computed: dict[type, dict[str, Any]] = {}
SCRIPT_CACHE_LIMIT = 256  # entries kept (the newest), so edited scripts do not grow the file forever
_PLAIN_TYPES: tuple[Any, ...] = (str, int, float, bool, bytes, type(None), Any)
_PLAIN_CONTAINERS: tuple[Any, ...] = (list, dict, tuple, set, frozenset, Union, type(int | None))


@lru_cache(maxsize=1)
def shipped() -> dict[str, dict[str, Any]]:
    try:
        data = json.loads(CACHE_FILE.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def source_checksum(tool_id: str) -> int | None:
    """CRC-32 of a builtin module's source file (None when it has none), read without importing it."""
    from forge_tools.paths import file_checksum

    return file_checksum(BUILTINS_DIR / f"{tool_id}.py")


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


def signature_key(model_name: str, fields: dict[str, tuple[Any, Any]]) -> str | None:
    """What decides `create_model(model_name, extra="forbid", **fields)`'s schema, as text; None when
    a type or default is not plain data (a class of the script's could change without the key)."""
    from pydantic.version import VERSION

    from forge_tools import __version__

    parts = []
    for name, (annotation, default) in fields.items():
        if not _plain_type(annotation) or not (default is ... or _plain_value(default)):
            return None
        parts.append(f"{name}: {annotation!r} = {default!r}")
    return f"pydantic {VERSION}, forge-tools {__version__}, {model_name}({', '.join(parts)})"


def _plain_type(annotation: Any) -> bool:
    if any(annotation is plain for plain in _PLAIN_TYPES):
        return True
    origin, args = get_origin(annotation), get_args(annotation)
    if origin is Literal:
        return all(_plain_value(arg) for arg in args)
    return (any(origin is c for c in _PLAIN_CONTAINERS)
            and all(arg is ... or _plain_type(arg) for arg in args))


def _plain_value(value: Any) -> bool:
    return value is None or type(value) in (str, int, float, bool)


def _script_cache_file() -> Path:
    from forge_tools.paths import data_dir

    return data_dir() / "cache" / "script-schemas.json"


@lru_cache(maxsize=1)
def _script_schemas() -> dict[str, Any]:
    try:
        data = json.loads(_script_cache_file().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def cached_script_schema(key: str) -> dict[str, Any] | None:
    schema = _script_schemas().get(key)
    return copy.deepcopy(schema) if isinstance(schema, dict) else None


def remember_script_schema(key: str, schema: dict[str, Any]) -> None:
    """Keep a computed schema for the next run (best effort: an unwritable data dir only costs speed)."""
    entries = _script_schemas()
    entries.pop(key, None)
    entries[key] = copy.deepcopy(schema)
    for old in list(entries)[:-SCRIPT_CACHE_LIMIT]:
        del entries[old]
    from forge_tools.paths import write_private_cache

    write_private_cache(_script_cache_file(), json.dumps(entries))


def live_definitions() -> dict[str, dict[str, Any]]:
    """Every builtin's definition taken from its module now, with the module's checksum (what the
    shipped file must equal)."""
    from forge_tools.tools.builtins import ALL_BUILTINS, import_builtin
    from forge_tools.tools.builtins.requests import REQUESTS

    found: dict[str, dict[str, Any]] = {}
    for tool_id in ALL_BUILTINS:
        tool = import_builtin(tool_id)
        found[tool_id] = {"source_crc32": source_checksum(tool_id), "description": tool.description,
                          "internal": tool.internal, "parameters": tool.json_schema()}
        model = tool.parameters
        if tool_id in REQUESTS and not isinstance(model, dict):
            validator = derive_validator(model)
            if validator is not None:
                found[tool_id]["validator"] = validator
    return found


# -- deciding a call without the model (`tools/arguments.py`) -----------------------------------------

#: the only module a shipped validator may name functions from
ARG_CHECKS = "forge_tools.tools.builtins._arg_checks"
#: model config a shipped validator carries (as the validator's config: the same for every model of
#: the tool); any other config key makes the tool decide through its model
_VALIDATOR_CONFIG = ("strict", "validate_by_alias", "validate_by_name")
_PER_MODEL_CONFIG = ("title", "extra_fields_behavior")


def derive_validator(model: type[BaseModel]) -> dict[str, Any] | None:
    """A builtin argument model's checks as a class-free core schema (`config.core_schema.class_free`),
    or None when they cannot be shipped (a check that is not a function of `_arg_checks`, config the
    shipped validator would not carry): that tool is then always validated by its model."""
    from forge_tools.config.core_schema import class_free, model_nodes

    model.model_rebuild(raise_errors=True)
    schema = model.__pydantic_core_schema__
    nodes: dict[str, dict[str, Any]] = {}
    model_nodes(schema, nodes)
    shared: dict[str, Any] | None = None
    for node in nodes.values():
        config = node.get("config", {})
        if set(config) - {*_VALIDATOR_CONFIG, *_PER_MODEL_CONFIG}:
            return None
        mine = {key: value for key, value in config.items() if key in _VALIDATOR_CONFIG}
        if shared is not None and mine != shared:
            return None
        shared = mine
    refs = {str(node["ref"]): name for name, node in nodes.items() if "ref" in node}
    try:
        return {"config": shared or {}, "schema": class_free(schema, refs, ARG_CHECKS, model.__name__)}
    except ValueError:
        return None


@cache
def shipped_validator(tool_id: str) -> Any:
    """The `pydantic_core.SchemaValidator` a builtin ships for its arguments, or None (no current
    entry, no validator in it, or one this pydantic_core cannot build)."""
    entry = shipped_definition(tool_id)
    data = entry.get("validator") if entry is not None else None
    if not isinstance(data, dict):
        return None
    from forge_tools.config.core_schema import with_functions
    from forge_tools.extensions import pydantic_core

    try:
        return pydantic_core().SchemaValidator(with_functions(data["schema"], ARG_CHECKS), data["config"])
    except (pydantic_core().SchemaError, KeyError, TypeError, ValueError, AttributeError, ImportError):
        return None


def quick_args(tool_id: str, raw_args: dict[str, Any]) -> Any:
    """The arguments as the builtin's model would validate them (its top-level fields as attributes),
    or None when its shipped validator is missing or refuses them (the model then says why)."""
    validator = shipped_validator(tool_id)
    if validator is None:
        return None
    from types import SimpleNamespace

    from forge_tools.extensions import pydantic_core

    try:
        out = validator.validate_python(raw_args)
    except pydantic_core().ValidationError:
        return None
    if not (isinstance(out, tuple) and out and isinstance(out[0], dict)):
        return None
    return SimpleNamespace(**out[0])


def main() -> None:
    CACHE_FILE.write_text(json.dumps(live_definitions(), indent=1) + "\n", encoding="utf-8")
    print(f"wrote {CACHE_FILE}")


if __name__ == "__main__":
    main()
