"""Deep merge of located trees: later sources override earlier ones, origins follow the values."""

from __future__ import annotations

import dataclasses

from forge_tools.origin import Node

#: key paths whose lists concatenate (without duplicates) instead of being replaced, as opencode
#: 1.18.33 joins `plugin` and `instructions` from its global and project files
CONCAT_LISTS: frozenset[tuple[str, ...]] = frozenset({("plugin",), ("instructions",)})


def is_permission_path(path: tuple[str, ...]) -> bool:
    """`permission` at the top level or inside one agent (`agent.<name>.permission`)."""
    return path == ("permission",) or (len(path) == 3 and path[0] == "agent" and path[2] == "permission")


def _as_map(node: Node) -> Node:
    """The one-action form `"deny"` as the map it means, `{"*": "deny"}` (SPEC 4.2)."""
    if isinstance(node.value, str):
        star = Node(node.value, node.origin, node.origin, dict(node.meta))
        return Node({"*": star}, node.origin, node.key_origin)
    return node


def merge(base: Node, over: Node, path: tuple[str, ...] = ()) -> Node:
    """`over` on top of `base`.

    Mappings merge key by key; a key already in `base` keeps its position (like JS object spread, so
    permission order stays as first written) while its value and origin become `over`'s. `plugin`
    and `instructions` lists concatenate (`instructions` dropping entries already present, `plugin`
    keeping each plugin at its last place, as opencode 1.18.33 does); every other value is replaced.

    A `permission` written as one action means `{"*": action}` and merges as that map with a map from
    another source (as opencode does): a global `permission: deny` plus a project's
    `permission: {bash: ...}` keeps the `* deny` instead of silently dropping it.
    """
    if is_permission_path(path) and isinstance(base.value, dict) != isinstance(over.value, dict):
        base, over = _as_map(base), _as_map(over)
    if isinstance(base.value, dict) and isinstance(over.value, dict):
        merged: dict[str, Node] = dict(base.value)
        for key, node in over.value.items():
            old = merged.get(key)
            merged[key] = merge(old, node, (*path, key)) if old is not None else node
        return dataclasses.replace(over, value=merged)
    if path == ("plugin",) and isinstance(base.value, list) and isinstance(over.value, list):
        # one entry per plugin, at its last place (opencode 1.18.33: a global `p` and a project's
        # `[[q, {...}], "p"]` give `[[q, {...}], "p"]`); a `[spec, options]` pair is named by its spec
        items = [*base.value, *over.value]
        names = [_plugin_name(item) for item in items]
        kept = [item for i, item in enumerate(items) if names[i] is None or names[i] not in names[i + 1:]]
        return dataclasses.replace(over, value=kept)
    if path in CONCAT_LISTS and isinstance(base.value, list) and isinstance(over.value, list):
        seen = {item.value for item in base.value if isinstance(item.value, str)}
        items = list(base.value)
        for item in over.value:
            if isinstance(item.value, str) and item.value in seen:
                continue
            seen.add(item.value)
            items.append(item)
        return dataclasses.replace(over, value=items)
    return over


def _plugin_name(item: Node) -> str | None:
    """A `plugin` entry's spec: the string, or a `[spec, options]` pair's first item."""
    if isinstance(item.value, str):
        return item.value
    if isinstance(item.value, list) and item.value and isinstance(item.value[0].value, str):
        return str(item.value[0].value)
    return None
