"""The config formats, one module each, behind one registry (SPEC 6.1).

Each module (`json_format`, `yaml_format`, `toml_format`) defines a `ConfigFormat` named `FORMAT`
that parses text into a located tree, writes fix-advice snippets in its own syntax and dumps a whole
config. A new format is one new module named `*_format.py` here: the registry finds it. The modules
import their parser libraries only when they parse or dump, so importing the registry is cheap.
"""

from __future__ import annotations

from functools import lru_cache
from importlib import import_module
from pathlib import Path, PurePath

from forge_tools.config.formats.base import ConfigFormat
from forge_tools.origin import Node, Origin

#: the format an unknown suffix is read in: opencode's (JSONC)
DEFAULT = "json"


@lru_cache(maxsize=1)
def formats() -> tuple[ConfigFormat, ...]:
    """Every format module of this package (`*_format.py`), by module name."""
    import pkgutil

    found: list[ConfigFormat] = []
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if info.name.endswith("_format"):
            module = import_module(f"{__name__}.{info.name}")
            found.append(module.FORMAT)
    return tuple(found)


def names() -> tuple[str, ...]:
    return tuple(f.name for f in formats())


def by_name(name: str) -> ConfigFormat:
    """The format called `name` ("json", "yaml", "toml"); KeyError for any other."""
    for fmt in formats():
        if fmt.name == name:
            return fmt
    raise KeyError(name)


def for_path(path: PurePath | str) -> ConfigFormat:
    """The format a file is read in, by suffix; unknown suffixes are read as JSONC (opencode's format)."""
    suffix = PurePath(path).suffix.lower()
    for fmt in formats():
        if suffix in fmt.suffixes:
            return fmt
    return by_name(DEFAULT)


def format_of(path: Path | str) -> str:
    """The name of the format `path` is read in."""
    return for_path(path).name


def parse_text(text: str, fmt: str, base: Origin) -> Node:
    """Parse `text` in the format named `fmt`; origins are `base` plus line/column/key path."""
    return by_name(fmt).parse(text, base)


def config_suffixes() -> tuple[str, ...]:
    """Every suffix a config file can have."""
    return tuple(s for f in formats() for s in f.suffixes)


__all__ = ["ConfigFormat", "by_name", "config_suffixes", "for_path", "format_of", "formats", "names",
           "parse_text"]
