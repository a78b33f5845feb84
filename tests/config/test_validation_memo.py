"""The memo of config trees the schema's validator found clean (`config.validation.remember_clean`,
turned on by `forge-tools hook`): only a clean outcome is remembered, by the whole tree, under a stamp
of what the outcome depends on; everything else is validated."""

from __future__ import annotations

import json
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from forge_tools.config import validation
from forge_tools.origin import Node, Origin

WHERE = Origin("file", path="/p/opencode.json")


@pytest.fixture
def memo(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "data" / "hook-validated.json"
    validation.remember_clean(path)
    yield path
    validation._clean = None


def tree(data: object) -> Node:
    return Node.from_plain(data, WHERE)


def _no_validator() -> None:
    raise AssertionError("the validator was asked")


def test_a_clean_tree_is_remembered_and_then_not_validated_again(memo: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    clean = {"permission": {"bash": {"*": "allow", "rm *": "deny"}}}
    assert validation.validation_errors(tree(clean)) == []
    assert stat.S_IMODE(memo.stat().st_mode) == 0o600 and len(json.loads(memo.read_text())["clean"]) == 1
    validation.remember_clean(memo)  # a new process: read back from the file
    monkeypatch.setattr(validation, "_schema", _no_validator)
    assert validation.validation_errors(tree(clean)) == []
    with pytest.raises(AssertionError, match="validator was asked"):  # any other tree is validated
        validation.validation_errors(tree({"permission": {"bash": "allow"}}))


def test_an_invalid_tree_is_never_remembered(memo: Path) -> None:
    bad = tree({"permission": {"bash": {"*": "alow"}}})
    assert validation.validation_errors(bad) and validation.validation_errors(bad)
    assert not memo.exists()


def test_a_tree_json_cannot_spell_exactly_is_validated_every_time(memo: Path) -> None:
    # a key 1 reads as the key "1" in JSON, and the validator refuses it where "1" is clean: the string
    # key's tree remembered clean never stands for it (the readers make every key a string; a tree
    # built otherwise is validated)
    assert validation.validation_errors(tree({"permission": {"1": "allow"}})) == []
    int_key = Node({"permission": Node({1: Node("allow", WHERE)}, WHERE)}, WHERE)
    assert validation.validation_errors(int_key)
    assert len(json.loads(memo.read_text())["clean"]) == 1


def test_another_stamp_forgets_every_remembered_tree(memo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert validation.validation_errors(tree({"permission": {"bash": "ask"}})) == []
    monkeypatch.setattr(validation, "_stamp", lambda: "pydantic_core upgraded")
    validation.remember_clean(memo)
    assert validation._clean is not None and validation._clean.known == []



def test_the_stamp_covers_every_file_the_validator_is_made_from() -> None:
    """`_stamp` names its files itself (a remembered tree needs no import of `config.core_schema`):
    they must take in the shipped schema, its builder and every module it is derived from."""
    from forge_tools.config import core_schema

    assert {core_schema.CACHE_FILE.name, Path(core_schema.__file__).name, *core_schema.SOURCES} <= set(
        validation.STAMPED)
