"""The config formats, one module each, behind one registry (SPEC 6.1).

Each module (`json_format`, `yaml_format`, `toml_format`) defines a `ConfigFormat` named `FORMAT`
that parses text into a located tree, writes fix-advice snippets in its own syntax and dumps a whole
config. A new format is one new module named `*_format.py` here: the registry finds it. The modules
import their parser libraries only when they parse or dump, so importing the registry is cheap.
A name or suffix is first looked for in the module named after it (`toml` and `.toml` in
`toml_format`), so reading one file imports its format's module alone; anything else is found among
every module (`.yml`, `.jsonc`).
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


def _named(stem: str) -> ConfigFormat | None:
    """The format of the module `<stem>_format`, if there is such a module (importing no other)."""
    if not stem.isidentifier():
        return None
    module_name = f"{__name__}.{stem}_format"
    try:
        module = import_module(module_name)
    except ModuleNotFoundError as error:
        if error.name != module_name:
            raise
        return None
    fmt: ConfigFormat = module.FORMAT
    return fmt


def names() -> tuple[str, ...]:
    return tuple(f.name for f in formats())


def by_name(name: str) -> ConfigFormat:
    """The format called `name` ("json", "yaml", "toml"); KeyError for any other."""
    guess = _named(name)
    if guess is not None and guess.name == name:
        return guess
    for fmt in formats():
        if fmt.name == name:
            return fmt
    raise KeyError(name)


def for_path(path: PurePath | str) -> ConfigFormat:
    """The format a file is read in, by suffix; unknown suffixes are read as JSONC (opencode's format)."""
    suffix = PurePath(path).suffix.lower()
    guess = _named(suffix[1:])
    if guess is not None and suffix in guess.suffixes:
        return guess
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
