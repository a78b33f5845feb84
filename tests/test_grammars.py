"""forge_tools.grammars loads a grammar's compiled language without its package's __init__."""

from __future__ import annotations

import json
import subprocess
import sys

PROBE = """
import json, sys
from tree_sitter import Parser
from forge_tools.grammars import language
tree = Parser(language("tree_sitter_toml")).parse(b'a = 1\\n')
before = {m: m in sys.modules for m in ("tree_sitter_toml", "tree_sitter_toml._binding",
                                         "importlib.resources")}
import tree_sitter_toml  # a plugin importing the package later gets the same compiled module
print(json.dumps({"root": tree.root_node.type, "before": before,
                  "same": tree_sitter_toml.language is sys.modules["tree_sitter_toml._binding"].language,
                  "ts": str(language("tree_sitter_typescript", "language_typescript")) != ""}))
"""


def test_the_language_loads_alone_and_the_package_reuses_it() -> None:
    proc = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["root"] == "document"
    assert data["before"] == {"tree_sitter_toml": False, "tree_sitter_toml._binding": True,
                              "importlib.resources": False}
    assert data["same"] is True
    assert data["ts"] is True
