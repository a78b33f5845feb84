"""Compiled extension modules loaded without their packages' `__init__`.

Two packages forge-tools needs at start-up cost more in their `__init__` than in what is used of them:
every command validates its config with a `pydantic_core.SchemaValidator`, and `pydantic_core`'s
`__init__` also imports `core_schema`, some hundred TypedDicts for type checkers (about 8 ms, more
than the validation itself); each `tree_sitter_<lang>` grammar's `__init__` imports
`importlib.resources` for highlight queries forge-tools never reads (about 5 ms). What is needed lives
in one compiled module of each package (`pydantic_core._pydantic_core`, `tree_sitter_toml._binding`).

`submodule(package, name)` loads that module alone, by its spec in the package's directory, and
registers it in `sys.modules` as the import system would. A later `import package` (pydantic's models,
a plugin) then runs the `__init__` as usual, which takes this same module from `sys.modules` (an
extension module is initialised once per process), so its classes are the same objects either way;
and the package is given the module as its attribute, as its own import would have (`_BindOnImport`).
A package laid out otherwise, or already imported, is imported the ordinary way.
"""

from __future__ import annotations

import sys
from types import ModuleType
from typing import TYPE_CHECKING, ClassVar

if TYPE_CHECKING:
    from collections.abc import Sequence
    from importlib.machinery import ModuleSpec


def submodule(package: str, name: str) -> ModuleType:
    """The compiled module `package.name` (say "pydantic_core", "_pydantic_core")."""
    full = f"{package}.{name}"
    module = sys.modules.get(full)
    if module is not None:
        return module
    if package not in sys.modules:  # imported (or being imported): the package's own copy below
        try:
            return _load(package, full)
        except (ImportError, OSError, ValueError):
            pass
    import importlib

    return importlib.import_module(full)


def load_spec(spec: ModuleSpec) -> ModuleType:
    """The module of `spec`, run and registered in `sys.modules` under the spec's name, as the import
    system does; a failed run leaves no half-made module there."""
    from importlib.util import module_from_spec

    if spec.loader is None:
        raise ImportError(f"{spec.name} has no loader")
    module = module_from_spec(spec)
    sys.modules[spec.name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(spec.name, None)
        raise
    return module


def pydantic_core() -> ModuleType:
    """pydantic_core's compiled module: `SchemaValidator`, `SchemaError`, `ValidationError` and the rest."""
    return submodule("pydantic_core", "_pydantic_core")


def _load(package: str, full: str) -> ModuleType:
    from importlib.machinery import ExtensionFileLoader, PathFinder
    from importlib.util import find_spec

    outer = find_spec(package)  # locates the package without running its __init__
    if outer is None or not outer.submodule_search_locations:
        raise ImportError(f"{package} is not an installed package")
    spec = PathFinder.find_spec(full, list(outer.submodule_search_locations))
    if spec is None or not isinstance(spec.loader, ExtensionFileLoader):
        raise ImportError(f"{full} is not a compiled extension beside its package")
    module = load_spec(spec)
    _BindOnImport.waiting.setdefault(package, []).append(full)
    if _BindOnImport not in sys.meta_path:
        sys.meta_path.insert(0, _BindOnImport)
    return module


class _BindOnImport:
    """A finder on `sys.meta_path` that finds nothing itself: it waits for the import of a package one
    of whose extensions `submodule` loaded, to give the package that module as its attribute once the
    `__init__` has run (the import system binds a submodule only when it loads it itself). The package
    is found by the finders after this one, as it would have been; with nothing left to wait for, the
    finder takes itself off the path."""

    #: package -> the full names of its extensions loaded before it
    waiting: ClassVar[dict[str, list[str]]] = {}

    @classmethod
    def find_spec(cls, name: str, path: Sequence[str] | None = None,
                  target: ModuleType | None = None) -> ModuleSpec | None:
        loaded = cls.waiting.pop(name, None)
        if loaded is None:
            return None
        if not cls.waiting:
            sys.meta_path[:] = [finder for finder in sys.meta_path if finder is not cls]
        spec = None
        for finder in sys.meta_path:
            if finder is not cls and hasattr(finder, "find_spec"):
                spec = finder.find_spec(name, path, target)
                if spec is not None:
                    break
        loader = spec.loader if spec is not None else None
        if loader is None or isinstance(loader, type):  # a loader shared by every module: left alone
            return spec
        run = loader.exec_module

        def exec_module(module: ModuleType) -> None:
            run(module)
            for full in loaded:
                extension, attribute = sys.modules.get(full), full.rpartition(".")[2]
                if extension is not None and getattr(module, attribute, None) is None:
                    setattr(module, attribute, extension)

        # this import's loader: the finders make one for each package they find
        loader.exec_module = exec_module  # type: ignore[method-assign]
        return spec
