"""The shipped core schema validates a config as the pydantic models do, and can only ever cost speed:
a stale, missing or unreadable copy is derived from the models again."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from forge_tools.config import LoadOptions, load_config
from forge_tools.config import core_schema as cache
from forge_tools.config.schema import ConfigModel
from forge_tools.errors import ConfigError


@pytest.fixture(autouse=True)
def fresh_validator() -> Iterator[None]:
    cache.config_schema.cache_clear()
    yield
    cache.config_schema.cache_clear()


def test_shipped_core_schema_is_current() -> None:
    assert cache.CACHE_FILE.read_text(encoding="utf-8") == cache.cache_text(), (
        "config/core_schema.json is stale: run `python -m forge_tools.config.core_schema`")
    assert cache.shipped() is not None


def test_the_shipped_copy_is_used_without_deriving(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_models() -> dict[str, Any]:
        raise AssertionError("derived from the models although the shipped copy is current")

    monkeypatch.setattr(cache, "derive", no_models)
    assert "permission" in cache.config_schema().keys["ConfigModel"]


#: plain config values, good and bad: every kind of check the models make
VALUES: list[Any] = [
    {}, {"permission": "allow"}, {"permission": "alow"}, {"permission": 3}, {"permission": []},
    {"permission": {"bash": "x", "edit": ["a"], "read": {"*": 1, "b": "nope"}}},
    {"permission": {"bash": {"*": {"x": "allow"}}}}, {"permission": None},
    {"tools": {"a": "yes", "b": 1}}, {"plugin": "x"}, {"plugin": ["a", 1]},
    {"agent": {"b": {"model": "x", "mode": "prim", "steps": 0, "temperature": "1", "top_p": True,
                     "reasoningEffort": "high"}}},
    {"agent": {"b": 3, "c": None, "d": []}}, {"agent": []}, {"mode": {"x": {"permission": {"edit": "nah"}}}},
    {"tool_output": {"max_lines": 0, "max_byte": 1, "retention_days": -1}}, {"tool_output": 3},
    {"tool_output": {"max_lines": True, "max_bytes": 1.5}}, {"check": 1},
    {"check": {"select": ["FT1", "X", 3, "FT1234"], "ignore": "FT", "selct": []}},
    {"autoupdate": 3}, {"autoupdate": "notify"}, {"snapshot": "yes"}, {"disabled_providers": [1, None]},
    {"$schema": 1}, {"schema_": "x"}, {"permisson": {}}, {"model": "gpt"}, {"model": 5},
    {"agent": {"b": {"temperature": 1, "permission": "ask", "options": 3}}},
    {"agent": {"b": {"temperature": True, "maxSteps": "3", "disable": "no"}}},
    {"tui": "x", "formatter": 3, "keybinds": []}, {1: 2},
]


def _errors(exc: ValidationError) -> list[tuple[Any, ...]]:
    return [(e["type"], e["loc"], e["msg"], repr(e["input"])) for e in exc.errors(include_url=False)]


@pytest.mark.parametrize("value", VALUES, ids=[str(v)[:40] for v in VALUES])
def test_the_validator_finds_what_the_models_find(value: Any) -> None:
    try:
        ConfigModel.model_validate(value)
        expected: list[tuple[Any, ...]] = []
    except ValidationError as exc:
        expected = _errors(exc)
    try:
        cache.config_schema().validator.validate_python(value)
        found: list[tuple[Any, ...]] = []
    except ValidationError as exc:
        found = _errors(exc)
    assert found == expected


def test_keys_come_from_the_models() -> None:
    schema = cache.config_schema()
    assert schema.keys["ConfigModel"] == [f.alias or name for name, f in ConfigModel.model_fields.items()]
    assert schema.submodels["ConfigModel"]["agent"] == "AgentConfig"
    assert "reasoningEffort" not in schema.keys["AgentConfig"] and "maxSteps" in schema.keys["AgentConfig"]


BAD = '{\n  "tool_output": {"max_byte": 1},\n  "agent": {"b": {"mode": "prim"}}\n}\n'
WANTED = ["forge.json:2:19: unknown key 'max_byte' in tool_output (did you mean 'max_bytes'?)",
          "forge.json:3:27: agent.b.mode: 'prim' is not one of 'primary', 'subagent' or 'all' "
          "(did you mean 'primary'?)"]


def _first_error(project: Path) -> str:
    with pytest.raises(ConfigError) as info:
        load_config(LoadOptions(cwd=project))
    return info.value.one_line().removeprefix(f"{project}/")


def test_a_stale_copy_is_derived_from_the_models(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (project / "forge.json").write_text(BAD)
    monkeypatch.setattr(cache, "source_checksums", lambda: {"schema.py": 0})
    assert cache.shipped() is None
    assert _first_error(project) == WANTED[0]


@pytest.mark.parametrize("broken", [{"schema": {"type": "no-such-schema"}}, {"keys": {}},
                                    {"schema": {"type": "any", "x": {"$function": "os:system"}}}])
def test_an_unreadable_copy_is_derived_from_the_models(project: Path, monkeypatch: pytest.MonkeyPatch,
                                                       broken: dict[str, Any]) -> None:
    (project / "forge.json").write_text(BAD)
    current = cache.shipped()
    assert current is not None
    monkeypatch.setattr(cache, "shipped", lambda: {**current, **broken})
    assert _first_error(project) == WANTED[0]


def test_errors_through_the_loader_are_located(project: Path) -> None:
    from forge_tools.config.reader import read_source

    (project / "forge.json").write_text(BAD)
    assert _first_error(project) == WANTED[0]
    read = read_source("project", project / "forge.json", {}, project, project)
    assert [e.one_line().removeprefix(f"{project}/") for e in read.errors] == WANTED


def test_only_functions_of_the_validators_module_are_shipped() -> None:
    with pytest.raises(ValueError, match=r"move it to forge_tools\.config\.validators"):
        cache.class_free({"type": "function-plain", "function": {"type": "no-info", "function": len}}, {})


def test_loaded_data_is_the_model_built_on_first_use(project: Path) -> None:
    (project / "forge.toml").write_text('model = "p/m"\n[tool_output]\nmax_lines = 5\n')
    import forge_tools.config

    loaded = load_config(LoadOptions(cwd=project))
    assert isinstance(loaded.data, ConfigModel) and forge_tools.config.ConfigModel is ConfigModel
    assert loaded.data.tool_output is not None and loaded.data.tool_output.max_lines == 5


def test_without_its_sources_the_copy_is_not_trusted(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    # an install of bytecode only: the checksums cannot be taken, so the models decide
    monkeypatch.setattr(cache, "__file__", str(tmp_path / "core_schema.py"))
    assert set(cache.source_checksums().values()) == {None}
    assert cache.shipped() is None
    assert "permission" in cache.config_schema().keys["ConfigModel"]
