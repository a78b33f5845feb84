"""The config schema's validator, built from a shipped copy of the models' core schema, not the models.

Building the pydantic models of `config.schema` (and importing pydantic's model machinery) costs more
than everything else a command does at start-up, yet loading a config only needs their *checks*. So
the package ships what `pydantic_core.SchemaValidator` needs, derived from the models: their core
schema with each model turned into a class-free `model-fields` schema, the functions they call named
by dotted path (all in `config.validators`), the keys each model allows (did-you-mean) and the model
a key leads to. The validator raises the same error types at the same locations as the models do.

The file carries a checksum of the modules it was derived from: after an edit of `config.schema` or
`config.validators` (a stale file), a missing file, or one this pydantic_core cannot build, the same
data is derived from the models live, so the cache can only cost speed. A test compares the shipped
file with the live models; regenerate it after changing the schema:

    python -m forge_tools.config.core_schema
"""

from __future__ import annotations

import importlib
import json
import types
from functools import lru_cache, partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from forge_tools.named_tuple import NamedTuple

if TYPE_CHECKING:
    from pydantic import BaseModel
    from pydantic_core import SchemaValidator

CACHE_FILE = Path(__file__).with_name("core_schema.json")
#: the modules the shipped data is derived from (their checksums say when it is stale)
SOURCES = ("schema.py", "validators.py")
#: the only module a shipped schema may name functions from
FUNCTIONS_MODULE = "forge_tools.config.validators"
ROOT_MODEL = "ConfigModel"
_FUNCTION = "$function"
_BOUND = "$classmethod"
#: model config keys that become the validator's config (the same for every model) or the schema's
_SHARED_CONFIG = ("strict", "validate_by_alias", "validate_by_name")


class ConfigSchema(NamedTuple):
    """What validating a config needs: the validator, the keys each model allows (in field order)
    and, per model, the keys whose value holds another model."""

    validator: SchemaValidator
    keys: dict[str, list[str]]
    submodels: dict[str, dict[str, str]]
    root: str = ROOT_MODEL


def source_checksums() -> dict[str, int | None]:
    """CRC-32 of each source module's file, read without importing it (None when it cannot be read,
    e.g. an install of bytecode only: nothing then matches, so the data is derived from the models)."""
    from forge_tools.paths import file_checksum

    here = Path(__file__).parent
    return {name: file_checksum(here / name) for name in SOURCES}


def derive() -> dict[str, Any]:
    """The data to ship, from the models now (imports pydantic's model machinery)."""
    from forge_tools.config.schema import ConfigModel

    ConfigModel.model_rebuild(raise_errors=True)  # a model left unbuilt (an unknown name) fails here
    nodes: dict[str, dict[str, Any]] = {}
    model_nodes(ConfigModel.__pydantic_core_schema__, nodes)
    models: dict[str, type[BaseModel]] = {name: node["cls"] for name, node in nodes.items()}
    refs = {str(node["ref"]): name for name, node in nodes.items() if "ref" in node}
    shared = {key: value for key, value in nodes[ROOT_MODEL].get("config", {}).items()
              if key in _SHARED_CONFIG}
    for name, node in nodes.items():
        mine = {key: value for key, value in node.get("config", {}).items() if key in _SHARED_CONFIG}
        if mine != shared:
            raise ValueError(f"{name}'s config {mine} differs from {ROOT_MODEL}'s {shared}: the shipped "
                             "validator has one config; teach config.core_schema to carry per-model config")
    submodels = {name: {field.alias or key: sub for key, field in m.model_fields.items()
                        if (sub := _model_in(field.annotation, models)) is not None}
                 for name, m in models.items()}
    return {
        "sources_crc32": source_checksums(),
        "config": shared,
        "keys": {name: [field.alias or key for key, field in m.model_fields.items()]
                 for name, m in models.items()},
        "submodels": {name: subs for name, subs in submodels.items() if subs},
        "schema": class_free(ConfigModel.__pydantic_core_schema__, refs),
    }


def model_nodes(node: Any, found: dict[str, dict[str, Any]]) -> None:
    """Every `model` node of a core schema, by its class's name."""
    if isinstance(node, dict):
        if node.get("type") == "model":
            found.setdefault(node["cls"].__name__, node)
        for value in node.values():
            model_nodes(value, found)
    elif isinstance(node, list):
        for item in node:
            model_nodes(item, found)


def _models_in(annotation: Any) -> list[type[BaseModel]]:
    from typing import get_args

    from pydantic import BaseModel

    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    return [m for arg in get_args(annotation) for m in _models_in(arg)]


def _model_in(annotation: Any, models: dict[str, type[BaseModel]]) -> str | None:
    """The model a key's value holds (directly, optionally, or as a mapping's values), if any."""
    found = _models_in(annotation)
    return found[0].__name__ if len(found) == 1 and found[0].__name__ in models else None


def class_free(node: Any, refs: dict[str, str], functions_module: str = FUNCTIONS_MODULE,
               what: str = "the config schema") -> Any:
    """A core schema as JSON: each `model` node becomes its `model-fields` schema (with the model's
    extra-keys behaviour), refs get the model's name, functions their dotted name (each must be a
    module-level function of `functions_module`, or a classmethod made of one); metadata and
    serialization (never used to validate) are dropped. `config.core_schema` ships the config's,
    `tools.schema_cache` each builtin's argument model."""
    if isinstance(node, dict):
        if node.get("type") == "model":
            inner = dict(node["schema"])
            fields = inner  # under the model's own validators (function-before/after/wrap), its fields
            while fields.get("type") != "model-fields" and isinstance(fields.get("schema"), dict):
                fields["schema"] = fields = dict(fields["schema"])
            if fields.get("type") != "model-fields":
                raise ValueError(f"{what} has a model without fields: it cannot be shipped")
            fields["extra_behavior"] = node.get("config", {}).get("extra_fields_behavior", "ignore")
            if "ref" in node:
                inner["ref"] = node["ref"]
            return class_free(inner, refs, functions_module, what)
        out: dict[str, Any] = {}
        for key, value in node.items():
            if key in ("metadata", "serialization"):
                continue
            if key in ("ref", "schema_ref") and isinstance(value, str):
                out[key] = refs.get(value, value)
            else:
                out[key] = class_free(value, refs, functions_module, what)
        return out
    if isinstance(node, list | tuple):
        return [class_free(item, refs, functions_module, what) for item in node]
    if callable(node):
        bound = isinstance(node, types.MethodType)  # a model validator: a classmethod of a shared function
        function = node.__func__ if bound else node
        module, name = getattr(function, "__module__", ""), getattr(function, "__qualname__", "")
        if (module != functions_module
                or getattr(importlib.import_module(module), name, None) is not function):
            raise ValueError(f"{what} calls {module}.{name}: move it to {functions_module}, "
                             "so validating needs no model")
        return {_FUNCTION: f"{module}:{name}", **({_BOUND: True} if bound else {})}
    if node is None or isinstance(node, str | int | float | bool):
        return node
    raise ValueError(f"{what} holds {node!r}, which cannot be shipped as JSON")


def with_functions(node: Any, functions_module: str = FUNCTIONS_MODULE) -> Any:
    """A shipped schema with its named functions in place (a classmethod's called with no class)."""
    if isinstance(node, dict):
        if _FUNCTION in node and set(node) <= {_FUNCTION, _BOUND}:
            module, _, name = str(node[_FUNCTION]).partition(":")
            if module != functions_module:
                raise ValueError(f"the shipped schema names a function outside {functions_module}")
            function = getattr(importlib.import_module(module), name)
            return partial(function, None) if node.get(_BOUND) else function
        return {key: with_functions(value, functions_module) for key, value in node.items()}
    if isinstance(node, list):
        return [with_functions(item, functions_module) for item in node]
    return node


def shipped() -> dict[str, Any] | None:
    """The shipped data if it was derived from the current sources, else None."""
    try:
        data = json.loads(CACHE_FILE.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    current = source_checksums()
    if not isinstance(data, dict) or None in current.values() or data.get("sources_crc32") != current:
        return None
    return data


def _build(data: dict[str, Any]) -> ConfigSchema:
    from forge_tools.extensions import pydantic_core

    keys, submodels = data["keys"], data["submodels"]
    models = {ROOT_MODEL, *submodels, *(sub for subs in submodels.values() for sub in subs.values())}
    if not all(isinstance(keys.get(m), list) for m in models):
        raise ValueError("the config schema's key lists do not cover its models")
    validator = pydantic_core().SchemaValidator(with_functions(data["schema"]), data["config"])
    return ConfigSchema(validator, keys, submodels)


@lru_cache(maxsize=1)
def config_schema() -> ConfigSchema:
    """The validator and key lists: from the shipped file when it is current, else from the models."""
    from forge_tools.extensions import pydantic_core

    data = shipped()
    if data is not None:
        try:
            return _build(data)
        except (pydantic_core().SchemaError, KeyError, TypeError, ValueError, AttributeError, ImportError):
            pass  # written by a pydantic_core this one cannot read: derive it again
    return _build(derive())


def cache_text() -> str:
    return json.dumps(derive(), indent=1) + "\n"


def main() -> None:
    CACHE_FILE.write_text(cache_text(), encoding="utf-8")
    print(f"wrote {CACHE_FILE}")


if __name__ == "__main__":
    main()
