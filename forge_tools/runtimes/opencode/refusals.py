"""Configs opencode 1.18.33 refuses to start with ("Configuration is invalid") that forge-tools'
reader accepts: the runtime's answer for such a project is that opencode does not start.

Observed by running the binary on an opencode.json giving each permission name a pattern map
(`{"<name>": {"*": "ask", "x": "allow"}}`): for the names below it accepts only one action and
refuses the file; forge-tools accepts the map (SPEC 4.2). `check` reports each as FT111; `explain`,
`layers` and `check --expect` asked of the opencode runtime stop with `start_error`'s line (exit 3).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from forge_tools.named_tuple import NamedTuple

if TYPE_CHECKING:
    from forge_tools.config.loader import LoadedConfig
    from forge_tools.errors import ConfigError
    from forge_tools.origin import Node, Origin

#: the files of a folder opencode reads as its config (its global dir adds `config.json`)
OPENCODE_FILES = ("opencode.json", "opencode.jsonc", "config.json")
#: permissions opencode 1.18.33 accepts only as one action
ACTION_ONLY = ("doom_loop", "question", "todowrite", "webfetch", "websearch")
VERSION = "1.18.33"


class Refusal(NamedTuple):
    """One value opencode refuses to start with."""

    where: str  # its key path: `permission.webfetch`, `agent.plan.permission.question`
    name: str  # the permission
    origin: Origin  # where it is written


def _permission_maps(tree: Node) -> Iterator[tuple[str, Node]]:
    top = tree.get("permission")
    if top is not None:
        yield "permission", top
    for section in ("agent", "mode"):
        agents = tree.get(section)
        for name, agent in agents.items() if agents is not None and agents.is_map else ():
            permission = agent.get("permission") if agent.is_map else None
            if permission is not None:
                yield f"{section}.{name}.permission", permission


def refusals(tree: Node) -> list[Refusal]:
    """Each action-only permission given a pattern map in one of opencode's config trees."""
    found = []
    for where, permission in _permission_maps(tree):
        for name, value in permission.items() if permission.is_map else ():
            if name in ACTION_ONLY and value.is_map:
                found.append(Refusal(f"{where}.{name}", name, value.key_origin or value.origin))
    return found


def start_error(loaded: LoadedConfig) -> ConfigError | None:
    """Why opencode 1.18.33 does not start with this config (the first refusal, located), or None.
    Only opencode's own sources count: it never reads forge-tools' files."""
    from forge_tools.errors import ConfigError
    from forge_tools.runtimes import is_forge_source

    for source, tree in zip(loaded.sources, loaded.source_trees, strict=False):
        if is_forge_source(source):
            continue
        found = refusals(tree)
        if found:
            first = found[0]
            return ConfigError(
                f"opencode {VERSION} does not start with this config (\"Configuration is invalid\"): "
                f"`{first.where}` is a pattern map, and opencode accepts only one action (allow, ask or "
                f"deny) for `{first.name}`", first.origin)
    return None
