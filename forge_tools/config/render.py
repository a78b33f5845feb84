"""Printing the merged config (`forge-tools config`): text, json, yaml, toml, with or without origins."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from forge_tools.origin import Node, Origin, format_key_path

if TYPE_CHECKING:
    from forge_tools.config.loader import LoadedConfig

#: `config --format` choices: the plain listing, then every config format's dump
FORMATS = ("text", "json", "yaml", "toml")


def render(loaded: LoadedConfig, fmt: str, show_origin: bool = False) -> str:
    """The merged config in `fmt`; with `show_origin` every leaf says where it was written."""
    if fmt == "text":
        return render_text(loaded, show_origin)
    from forge_tools.config.formats import by_name

    data: Any = origin_tree(loaded) if show_origin else as_written(loaded.tree)
    return by_name(fmt).dump(data)


def shown(node: Node) -> Any:
    """The value to print: a string made by `{env:...}`/`{file:...}` is printed as written, because
    that is how secrets such as API keys get into a config, and output often ends up in logs."""
    return node.meta.get("template", node.value)


def shown_key(key: str, child: Node) -> str:
    """A key as written: a key made by `{env:...}`/`{file:...}` is printed as its template (see `shown`)."""
    return str(child.meta.get("key_template", key))


def as_written(node: Node) -> Any:
    """`Node.plain()`, with substituted keys and strings shown as written (see `shown`)."""
    if isinstance(node.value, dict):
        return {shown_key(k, v): as_written(v) for k, v in node.value.items()}
    if isinstance(node.value, list):
        return [as_written(v) for v in node.value]
    return shown(node)


def _substitution_note(node: Node) -> str:
    used = [*node.meta.get("key_substituted", ()), *node.meta.get("substituted", ())]
    return f"substituted from {', '.join(used)}; value not shown" if used else ""


def leaves(node: Node, keys: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Node]]:
    """Every scalar (and empty container) with its key path as written, in merged order."""
    if isinstance(node.value, dict) and node.value:
        for key, child in node.value.items():
            yield from leaves(child, (*keys, shown_key(key, child)))
    elif isinstance(node.value, list) and node.value:
        for i, child in enumerate(node.value):
            yield from leaves(child, (*keys, str(i)))
    else:
        yield keys, node


def dotted(keys: tuple[str, ...]) -> str:
    """A key path as TOML writes it: bare keys plain, others quoted (`permission.bash."git *"`)."""
    return format_key_path(keys)


def render_text(loaded: LoadedConfig, show_origin: bool) -> str:
    lines = ["# sources, in load order (later ones override earlier ones):"]
    if loaded.sources:
        lines += [f"#   {i}. {s.step}: {s.describe()}" for i, s in enumerate(loaded.sources, 1)]
    else:
        lines.append("#   (none: no config files or variables found; the built-in defaults apply)")
    lines.append(f"# project root: {loaded.project_root}")
    for keys, node in leaves(loaded.tree):
        if not keys:
            continue
        text = f"{dotted(keys)} = {json.dumps(shown(node), ensure_ascii=False)}"
        notes = [describe_origin(_as_written_at(node.origin, keys))] if show_origin else []
        notes += [_substitution_note(node)] if "template" in node.meta or "key_template" in node.meta else []
        if notes:
            text += f"  # {'; '.join(notes)}"
        lines.append(text)
    return "\n".join(lines) + "\n"


def _as_written_at(origin: Origin, keys: tuple[str, ...]) -> Origin:
    """The origin with the key path as written (substituted keys as their templates)."""
    return origin._replace(key_path=keys) if len(origin.key_path) == len(keys) else origin


def describe_origin(origin: Origin) -> str:
    """`path:line:col`, or `path: key.path`, or `env NAME: key.path` (with the inline position)."""
    if origin.kind == "env" and origin.line is not None:
        keys = format_key_path(origin.key_path)
        where = f"env {origin.name}:{origin.line}:{origin.column or 1}"
        return f"{where}: {keys}" if keys else where
    return str(origin)


def origin_json(origin: Origin) -> dict[str, Any]:
    """The origin's fields that are known, plus its one-line description."""
    data = {k: v for k, v in origin.to_json().items() if v is not None}
    data["description"] = describe_origin(origin)
    return data


def origin_tree(loaded: LoadedConfig) -> dict[str, Any]:
    """Sources plus the config with every leaf as `{"value": ..., "origin": {...}}`."""

    def build(node: Node, keys: tuple[str, ...] = ()) -> Any:
        if isinstance(node.value, dict) and node.value:
            return {shown_key(k, v): build(v, (*keys, shown_key(k, v))) for k, v in node.value.items()}
        if isinstance(node.value, list) and node.value:
            return [build(v, (*keys, str(i))) for i, v in enumerate(node.value)]
        leaf = {"value": shown(node), "origin": origin_json(_as_written_at(node.origin, keys))}
        if "substituted" in node.meta:
            leaf["substituted"] = node.meta["substituted"]
        return leaf

    return {
        "project_root": str(loaded.project_root),
        "sources": [
            {"step": s.step, "source": s.describe()} for s in loaded.sources
        ],
        "config": build(loaded.tree) if loaded.tree.value else {},
    }
