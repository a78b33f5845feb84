"""pydantic_core's compiled module, loaded without the package's `__init__`.

Every command validates its config with a `pydantic_core.SchemaValidator` (`config.core_schema`), and
a builtin's call is decided after its shipped validator accepts the arguments (`tools.arguments`).
Those need only the compiled extension, `pydantic_core._pydantic_core`. The package's `__init__` also
imports `core_schema`, a module of some hundred TypedDicts for type checkers that costs more to import
(about 8 ms) than everything else that validation does.

`core()` loads the extension by its spec from the package's directory, under its own name, and
registers it in `sys.modules` as the import system would. A later `import pydantic_core` (pydantic's
models, the MCP SDK) then runs the `__init__` as usual, which takes this same module from
`sys.modules` (an extension module is initialised once per process), so the classes are the same
objects either way, and the package gets the module as its attribute, as its own import would have
given it (`_BindOnImport`). If the extension cannot be found this way (an unusual install), the package is
imported as usual.
"""

from __future__ import annotations

import sys
from types import ModuleType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence
    from importlib.machinery import ModuleSpec

NAME = "pydantic_core._pydantic_core"
PACKAGE = "pydantic_core"


def core() -> ModuleType:
    """The compiled module: `SchemaValidator`, `SchemaError`, `ValidationError` and the rest."""
    module = sys.modules.get(NAME)
    if module is not None:
        return module
    if PACKAGE in sys.modules:  # the package is imported (or being imported): its own copy
        return _from_package()
    try:
        return _load()
    except (ImportError, OSError, AttributeError):
        return _from_package()


def _from_package() -> ModuleType:
    from pydantic_core import _pydantic_core

    return _pydantic_core


def _load() -> ModuleType:
    import importlib.util
    from importlib.machinery import ExtensionFileLoader, PathFinder

    package = PathFinder.find_spec(PACKAGE)
    if package is None or not package.submodule_search_locations:
        raise ImportError(f"{PACKAGE} is not installed where the path finder looks")
    spec = PathFinder.find_spec(NAME, list(package.submodule_search_locations))
    if spec is None or not isinstance(spec.loader, ExtensionFileLoader):
        raise ImportError(f"{NAME} is not a compiled extension here")
    module = importlib.util.module_from_spec(spec)
    sys.modules[NAME] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(NAME, None)
        raise
    sys.meta_path.insert(0, _BindOnImport)
    return module


class _BindOnImport:
    """A finder on `sys.meta_path` that only waits for the package's own import, to bind the extension
    loaded before it as the package's attribute once its `__init__` has run (the import system binds
    a submodule only when it loads it itself). It takes itself off the path at that import, and finds
    the package as the path finder does, which is where `_load` found the extension."""

    @staticmethod
    def find_spec(name: str, path: Sequence[str] | None = None, target: object = None) -> ModuleSpec | None:
        if name != PACKAGE:
            return None
        sys.meta_path[:] = [finder for finder in sys.meta_path if finder is not _BindOnImport]
        from importlib.machinery import PathFinder

        spec = PathFinder.find_spec(name, path)
        loader = spec.loader if spec is not None else None
        if loader is None:
            return spec  # not the path finder's: the finders after this one find it as before
        run = loader.exec_module

        def exec_module(module: ModuleType) -> None:
            run(module)
            extension = sys.modules.get(NAME)
            if extension is not None and getattr(module, "_pydantic_core", None) is None:
                module._pydantic_core = extension  # type: ignore[attr-defined]

        # this one package's loader instance, found for this import alone
        loader.exec_module = exec_module  # type: ignore[method-assign]
        return spec
