"""The shipped builtin parameter schemas are the live models' schemas, and a stale entry is never used."""

from __future__ import annotations

import json

import pytest

from forge_tools.tools import schema_cache
from forge_tools.tools.builtins import ALL_BUILTINS, load_builtin


def test_shipped_schemas_equal_the_live_models() -> None:
    shipped = json.loads(schema_cache.CACHE_FILE.read_text())
    live = schema_cache.live_schemas()
    # compared as text: property order is what a model is shown, so it must match too
    assert json.dumps(shipped, indent=1) == json.dumps(live, indent=1), (
        "builtin_schemas.json is stale: run `python -m forge_tools.tools.schema_cache`")


def test_every_builtin_schema_comes_from_the_shipped_file() -> None:
    for tool_id in ALL_BUILTINS:
        parameters = load_builtin(tool_id).parameters
        if not isinstance(parameters, dict):
            assert schema_cache._shipped_schema(parameters) is not None, tool_id
            assert load_builtin(tool_id).json_schema() == parameters.model_json_schema()


def test_a_stale_entry_is_computed_live(monkeypatch: pytest.MonkeyPatch) -> None:
    from forge_tools.tools.builtins.read import TOOL

    assert not isinstance(TOOL.parameters, dict)
    key = schema_cache.model_key(TOOL.parameters)
    stale = {key: {"source_crc32": 0, "schema": {"type": "object", "title": "stale"}}}
    monkeypatch.setattr(schema_cache, "shipped", lambda: stale)
    assert TOOL.json_schema() == TOOL.parameters.model_json_schema()


def test_callers_get_a_copy() -> None:
    from forge_tools.tools.builtins.bash import TOOL

    first = TOOL.json_schema()
    first["properties"].clear()
    assert TOOL.json_schema()["properties"]
