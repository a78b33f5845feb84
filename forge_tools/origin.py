"""Where a value came from, and the located tree that config files are read into.

Every config value and every permission rule remembers its origin so that `config --show-origin`,
`rules`, `explain` and `check` can point at a file, line and column.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from forge_tools.named_tuple import NamedTuple

_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")


def format_key_path(keys: Iterable[str]) -> str:
    """A key path as every message and `config` print it: bare keys plain, any other key quoted as
    TOML and JSON write it, so `permission.bash."rm *"` cannot be misread (`rm *` has a space)."""
    return ".".join(k if _BARE_KEY.fullmatch(k) else json.dumps(k, ensure_ascii=False) for k in keys)

OriginKind = Literal[
    "file",  # a config file (line/column when the format gives them, else key_path)
    "env",  # an environment variable holding config (FORGE_CONFIG_CONTENT, FORGE_PERMISSION)
    "cli",  # a command-line option (--tools, --args ...)
    "default",  # the built-in defaults every agent starts from
    "builtin-agent",  # rules a builtin agent (build, plan, general, explore) adds
    "session",  # rules added during a run (answer "always")
    "plugin",  # something a plugin did
    "safety",  # a rule the system adds to fail closed (e.g. an opaque bash command; name says why)
]


class Origin(NamedTuple):
    """A location: a file with 1-based line/column, or a named non-file source, plus a key path."""

    kind: OriginKind
    path: str | None = None
    line: int | None = None
    column: int | None = None
    key_path: tuple[str, ...] = ()
    name: str | None = None  # env var name, option name, agent name, plugin name ...

    def __str__(self) -> str:
        if self.kind == "file" and self.path is not None and self.line is not None:
            col = self.column if self.column is not None else 1
            return f"{self.path}:{self.line}:{col}"  # the key path is not shown: no need to quote it
        keys = format_key_path(self.key_path)
        if self.kind == "file" and self.path is not None:
            return f"{self.path}: {keys}" if keys else self.path
        label = {
            "env": f"env {self.name}" if self.name else "environment",
            "cli": f"option {self.name}" if self.name else "command line",
            "default": f"default ({self.name})" if self.name else "default",
            "builtin-agent": f"builtin agent {self.name}" if self.name else "builtin agent",
            "session": "session",
            "plugin": f"plugin {self.name}" if self.name else "plugin",
            "safety": f"safety check: {self.name}" if self.name else "safety check",
        }.get(self.kind, self.kind)
        return f"{label}: {keys}" if keys and self.kind in ("env", "cli") else label

    def to_json(self) -> dict[str, Any]:
        """The one JSON form of an origin, in every report: kind, path/line/column, key path, name, and
        the one-line description a person reads."""
        return {
            "kind": self.kind,
            "path": self.path,
            "line": self.line,
            "column": self.column,
            "key_path": list(self.key_path) or None,
            "name": self.name,
            "description": str(self),
        }

    def at(self, *keys: str) -> Origin:
        """The same source, one key deeper (for formats that cannot give a line)."""
        return Origin(self.kind, self.path, self.line, self.column, self.key_path + keys, self.name)


class _Empty(Mapping[str, Any]):
    """The one empty, read-only mapping records share as their default (a module-level class, so a
    record holding it still copies and pickles, which a `MappingProxyType` does not)."""

    __slots__ = ()

    def __getitem__(self, key: str) -> Any:
        raise KeyError(key)

    def __iter__(self) -> Iterator[str]:
        return iter(())

    def __len__(self) -> int:
        return 0

    def __hash__(self) -> int:
        return 0

    def __repr__(self) -> str:
        return "{}"

    def __reduce__(self) -> str:
        return "EMPTY"  # the one instance, by name (copy and pickle keep it shared)


EMPTY: Mapping[str, Any] = _Empty()


@dataclass(slots=True)
class Node:
    """A config value with its origin.

    `value` is a scalar, a `dict[str, Node]` (insertion order is file order) or a `list[Node]`.
    `key_origin` is where the key naming this node was written (for mappings' children). `meta` is
    replaced, never changed in place: most nodes share the one empty default (a large config has
    hundreds of thousands of nodes).
    """

    value: Any
    origin: Origin
    key_origin: Origin | None = None
    meta: Mapping[str, Any] = EMPTY

    @property
    def is_map(self) -> bool:
        return isinstance(self.value, dict)

    @property
    def is_list(self) -> bool:
        return isinstance(self.value, list)

    def get(self, key: str) -> Node | None:
        if isinstance(self.value, dict):
            node = self.value.get(key)
            return node if isinstance(node, Node) else None
        return None

    def items(self) -> Iterator[tuple[str, Node]]:
        if isinstance(self.value, dict):
            yield from self.value.items()

    def plain(self) -> Any:
        """The value without origins (dicts keep their order)."""
        if isinstance(self.value, dict):
            return {k: v.plain() for k, v in self.value.items()}
        if isinstance(self.value, list):
            return [v.plain() for v in self.value]
        return self.value

    @classmethod
    def from_plain(cls, data: Any, origin: Origin) -> Node:
        """Wrap plain data; every node gets `origin` extended by its key path (env, CLI, tests)."""

        def wrap(value: Any, keys: tuple[str, ...]) -> Node:
            here = Origin(origin.kind, origin.path, origin.line, origin.column, origin.key_path + keys,
                          origin.name)
            if isinstance(value, dict):
                return cls({str(k): wrap(v, (*keys, str(k))) for k, v in value.items()}, here, here)
            if isinstance(value, list):
                return cls([wrap(v, (*keys, str(i))) for i, v in enumerate(value)], here, here)
            return cls(value, here, here)

        return wrap(data, ())
