"""The finding codes of `check`: one module per code, each holding its record `RULE` (a `CodeInfo`).

A module is named after its code and slug (`ft103_unreachable_rule.py`); `registry()` imports every
module of this package, so adding a finding is adding a module (and its test). The record names the
function that produces the finding (`check`) and the one that fixes it (`fixer`); a finding checked on
the loaded config (`kind="context"`) may define that function in the same module. Everything that
lists codes (`forge-tools rule`, SARIF rules, docs/rules.md, the docs table, `--select`/`--ignore`
and the settings' validation, `check --fix`) reads `registry()`.

The records are data, so the package also ships them, read from the modules, in `records.json`, with
each module's CRC-32: importing some sixty modules costs every `check` about 3 ms, reading the file a
tenth of that. When a module was edited, added or removed since (the file is stale), the modules are
imported instead, so the file can only cost speed; a test holds it to the modules. Regenerate it with
`python -m forge_tools.check.codes`.
"""

from __future__ import annotations

import importlib
import json
import os
import re
from functools import cache
from pathlib import Path
from typing import Any

from forge_tools.report.codeinfo import CodeInfo

_MODULE = re.compile(r"ft[0-9]{3}_[a-z0-9_]+")
HERE = Path(__file__).parent
SHIPPED = HERE / "records.json"


def modules(here: Path = HERE) -> list[str]:
    """The code modules' names, in code order (a listing of the folder: pkgutil is not worth its
    start-up cost)."""
    return sorted(module for module in (name.removesuffix(".py") for name in os.listdir(here)
                                        if name.endswith(".py")) if _MODULE.fullmatch(module))


def checksums(names: list[str], here: Path = HERE) -> dict[str, int | None]:
    from forge_tools.paths import file_checksum

    return {name: file_checksum(here / f"{name}.py") for name in names}


@cache
def registry() -> dict[str, CodeInfo]:
    """Every code's record, in code order: from the shipped file when it is current, else from the
    modules (see the module's docstring)."""
    return shipped() or imported()


def shipped(path: Path = SHIPPED, here: Path = HERE) -> dict[str, CodeInfo] | None:
    """The shipped records, or None when the file is missing, unreadable or stale (a module's checksum
    differs, or a module was added or removed)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        names = modules(here)
        if not isinstance(data, dict) or data.get("modules") != checksums(names, here):
            return None
        return {record["code"]: CodeInfo(**record) for record in data["records"]}
    except (OSError, ValueError, TypeError, KeyError):
        return None


def records_data() -> dict[str, Any]:
    """What `records.json` holds: each module's checksum and every record as the modules define it."""
    names = modules()
    return {"modules": checksums(names), "records": [info._asdict() for info in imported().values()]}


def imported() -> dict[str, CodeInfo]:
    """Every code's record, read from its module. A module whose name does not match its record's
    code and name is a programming error, said at once."""
    found: dict[str, CodeInfo] = {}
    for module in modules():
        rule = importlib.import_module(f"{__name__}.{module}").RULE
        if not isinstance(rule, CodeInfo):
            raise TypeError(f"{__name__}.{module}.RULE is not a CodeInfo")
        expected = f"{rule.code.lower()}_{rule.name.replace('-', '_')}"
        if module != expected:
            raise ValueError(f"{__name__}.{module} holds {rule.code} {rule.name}: name it {expected}.py")
        if rule.code in found:
            raise ValueError(f"{rule.code} is defined twice ({__name__}.{module})")
        found[rule.code] = rule
    return found


def resolve(reference: str) -> object:
    """The function a record names (`module:function`), imported when it is first needed."""
    module, _, name = reference.partition(":")
    return getattr(importlib.import_module(module), name)
