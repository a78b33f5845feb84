"""Regular expressions compiled on first use, not at import (issue 32 item 6).

A module-level `re.compile` costs every process that imports the module, whether or not it ever
matches with it; `forge-tools hook` imports the shell reader and the config readers for one decision,
which uses few of their patterns. `lazy(pattern, flags)` is called where the pattern is used
(`_WS().sub(...)`) and compiles it once, on the first call.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache


def lazy(pattern: str, flags: int = 0) -> Callable[[], re.Pattern[str]]:
    """A function returning `re.compile(pattern, flags)`, compiled on its first call only."""

    @cache
    def compiled() -> re.Pattern[str]:
        return re.compile(pattern, flags)

    return compiled
