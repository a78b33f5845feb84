"""The finding codes of `check`: one module per code, each holding its record `RULE` (a `CodeInfo`).

A module is named after its code and slug (`ft103_unreachable_rule.py`); `registry()` imports every
module of this package, so adding a finding is adding a module (and its test). The record names the
function that produces the finding (`check`) and the one that fixes it (`fixer`); a finding checked on
the loaded config (`kind="context"`) may define that function in the same module. Everything that
lists codes (`forge-tools rule`, SARIF rules, docs/rules.md, the docs table, `--select`/`--ignore`
and the settings' validation, `check --fix`) reads `registry()`.
"""

from __future__ import annotations

import importlib
import os
import re
from functools import cache

from forge_tools.report.codeinfo import CodeInfo

_MODULE = re.compile(r"ft[0-9]{3}_[a-z0-9_]+")


@cache
def registry() -> dict[str, CodeInfo]:
    """Every code's record, in code order. A module whose name does not match its record's code and
    name is a programming error, said at once."""
    found: dict[str, CodeInfo] = {}
    here = os.path.dirname(__file__)  # a listing of the folder: pkgutil is not worth its start-up cost
    for module in sorted(name.removesuffix(".py") for name in os.listdir(here) if name.endswith(".py")):
        if not _MODULE.fullmatch(module):
            continue
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
