"""The tree-sitter grammars' languages, loaded without their packages' `__init__`.

Each `tree_sitter_<lang>` package's `__init__` imports `importlib.resources` (for its highlight
queries, which forge-tools never reads), and that pulls in tempfile, random and hashlib: about 5 ms,
more than the grammar itself, on the start-up of every command that reads a TOML config. The language
function lives in the package's compiled `_binding` module; this loads that module alone, registered
under its own name, so a later `import tree_sitter_<lang>` (by a plugin, say) reuses it. A package
laid out differently is imported the ordinary way.
"""

from __future__ import annotations

import sys
from importlib.machinery import PathFinder
from importlib.util import find_spec, module_from_spec
from types import ModuleType
from typing import Any


def binding(package: str) -> ModuleType:
    """The `_binding` extension module of the grammar package `package` (e.g. "tree_sitter_toml")."""
    name = f"{package}._binding"
    module = sys.modules.get(name)
    if module is not None:
        return module
    if package not in sys.modules:
        outer = find_spec(package)  # locates the package without running its __init__
        spec = PathFinder.find_spec(name, outer.submodule_search_locations) if outer else None
        if spec is not None and spec.loader is not None:
            module = module_from_spec(spec)
            spec.loader.exec_module(module)
            sys.modules[name] = module
            return module
    __import__(name)
    return sys.modules[name]


def language(package: str, function: str = "language") -> Any:
    """A `tree_sitter.Language` of the grammar `package`; `function` names its language function
    (tree_sitter_typescript has `language_typescript` and `language_tsx`)."""
    from tree_sitter import Language

    return Language(getattr(binding(package), function)())
