"""What the hook process does first to stay cheap (issue 32 item 6): two modules are bound lazily.

`dataclasses` imports `inspect` (which pulls in ast, dis, tokenize and more: about a twelfth of one
decision's CPU), yet uses it only to write a signature into a dataclass that has no docstring, and the
records on the decision path all have one; `urllib.parse` (which `pathlib` imports) imports
`ipaddress` and uses it only for a URL with a bracketed host. So before anything imports them,
`inspect` and `ipaddress` are each a stand-in module that imports the real one on its first attribute
access and hands every later access on; nothing on the path behaves differently, it only loads later
or never. Only `forge-tools hook`
(the decision) does this (`cli/entry.py`), never the CLI or the library.
"""

from __future__ import annotations

import sys
from types import ModuleType
from typing import Any


class _Deferred(ModuleType):
    """A module bound in sys.modules whose real module is imported on first use."""

    def __getattr__(self, name: str) -> Any:
        real = sys.modules.get(self.__name__)
        if real is None or real is self:
            del sys.modules[self.__name__]
            real = __import__(self.__name__)
            sys.modules[self.__name__] = real
        return getattr(real, name)


def defer(name: str) -> None:
    """Bind `name` lazily, unless it is imported already."""
    if name not in sys.modules:
        sys.modules[name] = _Deferred(name)
