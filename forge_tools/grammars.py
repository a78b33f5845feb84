"""The tree-sitter grammars' languages, loaded without their packages' `__init__`.

Each `tree_sitter_<lang>` package's `__init__` imports `importlib.resources` (for its highlight
queries, which forge-tools never reads), and that pulls in tempfile, random and hashlib: about 5 ms,
more than the grammar itself, on the start-up of every command that reads a TOML config. The language
function lives in the package's compiled `_binding` module, which `extensions.submodule` loads alone
(a later `import tree_sitter_<lang>`, by a plugin say, reuses it).
"""

from __future__ import annotations

from typing import Any

from forge_tools.extensions import submodule


def language(package: str, function: str = "language") -> Any:
    """A `tree_sitter.Language` of the grammar `package`; `function` names its language function
    (tree_sitter_typescript has `language_typescript` and `language_tsx`)."""
    from tree_sitter import Language

    return Language(getattr(submodule(package, "_binding"), function)())
