"""Compiled extensions loaded without their packages' `__init__` (`forge_tools.extensions`): the
package, imported later (pydantic's models, a plugin), takes the same module and is given it as its
attribute, so its classes are the same objects either way."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

LEAN_FIRST = """
import json, sys
from forge_tools.extensions import pydantic_core as lean
from forge_tools.config.core_schema import config_schema

ext = lean()
before = sorted(m for m in sys.modules if m.startswith("pydantic"))
try:
    config_schema().validator.validate_python({"permission": {"bash": {"*": "sometimes"}}})
    refused = None
except ext.ValidationError as exc:
    refused = exc.errors()[0]["loc"]

import pydantic
import pydantic_core

class Model(pydantic.BaseModel):
    count: int

try:
    Model(count="many")
    caught = False
except ext.ValidationError:
    caught = True
print(json.dumps({
    "before": before,
    "same": pydantic_core._pydantic_core is ext and pydantic_core.SchemaValidator is ext.SchemaValidator
            and pydantic.ValidationError is ext.ValidationError,
    "refused": refused, "caught": caught, "model": Model(count=3).count,
    "finders": [type(f).__name__ if not isinstance(f, type) else f.__name__ for f in sys.meta_path],
}))
"""

PACKAGE_FIRST = """
import json, sys
import pydantic_core
from forge_tools.extensions import pydantic_core as lean
print(json.dumps({"same": lean() is pydantic_core._pydantic_core,
                  "finders": [f.__name__ for f in sys.meta_path if isinstance(f, type)]}))
"""


def _probe(code: str, cwd: Path) -> dict[str, object]:
    proc = subprocess.run([sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    data: dict[str, object] = json.loads(proc.stdout.strip().splitlines()[-1])
    return data


def test_the_extension_alone_validates_and_the_package_later_shares_it(tmp_path: Path) -> None:
    data = _probe(LEAN_FIRST, tmp_path)
    assert data["before"] == ["pydantic_core._pydantic_core"]  # not the package, nor its core_schema
    assert data["refused"] is not None and "permission" in data["refused"]  # type: ignore[operator]
    assert data["same"] is True and data["caught"] is True and data["model"] == 3
    # the finder that binds the extension to the package took itself off at the package's import
    assert "_BindOnImport" not in data["finders"]  # type: ignore[operator]


def test_an_imported_package_gives_its_own_extension(tmp_path: Path) -> None:
    data = _probe(PACKAGE_FIRST, tmp_path)
    assert data["same"] is True
    assert "_BindOnImport" not in data["finders"]  # type: ignore[operator]


GRAMMAR = """
import json, sys
from forge_tools.grammars import language
from tree_sitter import Parser
tree = Parser(language("tree_sitter_toml")).parse(b"a = 1")
alone = sorted(m for m in sys.modules if m.startswith("tree_sitter_toml"))
import tree_sitter_toml
print(json.dumps({"alone": alone, "root": tree.root_node.type,
                  "bound": tree_sitter_toml._binding is sys.modules["tree_sitter_toml._binding"],
                  "resources_then": "importlib.resources" in sys.modules}))
"""


def test_a_grammar_loads_its_binding_alone_and_its_package_later_shares_it(tmp_path: Path) -> None:
    data = _probe(GRAMMAR, tmp_path)
    assert data["alone"] == ["tree_sitter_toml._binding"] and data["root"] == "document"
    assert data["bound"] is True and data["resources_then"] is True  # the package's own __init__ ran
