"""Which plugins a project would load (SPEC 2, source 3), found without importing any of them.

Load order, which is also the order hooks run in (see `plugins.py`): installed distributions' entry
points in group `forge_tools`, then the config `plugin` list, then `*.py` files in `plugin/` and
`plugins/` of each config directory. Kept apart from the loading machinery so a project without
plugins (most) imports none of it.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from forge_tools.errors import PluginError
from forge_tools.lazy_re import lazy
from forge_tools.named_tuple import NamedTuple
from forge_tools.origin import Origin

if TYPE_CHECKING:
    from forge_tools.tools.contract import Listing, SourceQuery, ToolSource

PluginKind = Literal["entry-point", "config", "dir"]
ENTRY_POINT_GROUP = "forge_tools"
PLUGIN_DIR_NAMES = ("plugin", "plugins")
_MODULE_NAME = lazy(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")


class PluginRef(NamedTuple):
    """A plugin to load: its display name, how it was found, what to import, and where it was listed."""

    name: str
    kind: PluginKind
    target: str  # a module name, an entry point value, or a file path
    origin: Origin
    path: Path | None = None  # the .py file, when the plugin is a file


def discover(
    config_dirs: Iterable[Path], plugin_specs: Iterable[Any], notes: list[str] | None = None
) -> tuple[list[PluginRef], list[PluginError]]:
    """Every plugin to load, in load order (see the module docstring).

    Config entries that are opencode's JavaScript/npm plugins are not loaded: a line about each goes to
    `notes` when given.
    """
    refs: list[PluginRef] = []
    problems: list[PluginError] = []
    refs.extend(entry_point_refs())
    for spec in plugin_specs:
        ref = _config_ref(spec)
        if isinstance(ref, str):
            if notes is not None:
                notes.append(ref)
        else:
            refs.append(ref)
    for directory in config_dirs:
        for sub in PLUGIN_DIR_NAMES:
            folder = Path(directory) / sub
            if not folder.is_dir():
                continue
            for file in sorted(folder.glob("*.py")) + sorted(folder.glob(".*.py")):
                if file.is_file():
                    refs.append(PluginRef(file.stem, "dir", str(file), Origin("file", path=str(file)), file))
    return _dedupe(refs), problems


def entry_point_refs() -> list[PluginRef]:
    if not may_declare_entry_points():
        return []
    from importlib.metadata import entry_points

    found = []
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        dist = getattr(getattr(ep, "dist", None), "name", None) or "?"
        origin = Origin("plugin", name=f"entry point {ep.name} = {ep.value} in {dist}")
        found.append((dist, ep.name, PluginRef(ep.name, "entry-point", ep.value, origin)))
    return [ref for _, _, ref in sorted(found, key=lambda item: (item[0], item[1]))]


def may_declare_entry_points() -> bool:
    """False only when no installed distribution can declare a `forge_tools` entry point: every
    `sys.path` entry is a directory (or missing) and no `entry_points.txt` of its `*.dist-info` /
    `*.egg-info` has the group's section. Anything else (a zip or egg on the path, a finder of its own
    that lists distributions) answers True and the real lookup runs. `importlib.metadata` costs about
    as much to import and run as the rest of a small project's `layers`; most installs have no plugin.
    """
    import os
    import sys

    if any(getattr(finder, "find_distributions", None) is not None and finder.__name__ != "PathFinder"
           for finder in map(_finder_class, sys.meta_path)):
        return True
    for entry in sys.path:
        directory = entry or "."
        try:
            with os.scandir(directory) as listing:
                names = [e.name for e in listing if e.name.endswith((".dist-info", ".egg-info"))]
        except NotADirectoryError:
            return True
        except OSError:
            continue
        for name in names:
            try:
                with open(os.path.join(directory, name, "entry_points.txt"), "rb") as fh:
                    if f"{ENTRY_POINT_GROUP}]".encode() in fh.read():  # the `[forge_tools]` section
                        return True
            except FileNotFoundError:
                continue
            except OSError:
                return True
    return False


def _finder_class(finder: Any) -> type:
    return finder if isinstance(finder, type) else type(finder)


def _config_ref(spec: Any) -> PluginRef | str:
    """A `plugin` entry as a Python plugin to load, or (a str) the note for a JavaScript/npm one.

    The rule: a path ending in `.py` is a Python file; a dotted Python identifier is a Python module;
    anything else (npm names with `-`, `@` or a version, `.ts`/`.js`/`.mjs` paths) is opencode's.
    """
    text = str(getattr(spec, "spec", spec))
    origin: Origin = getattr(spec, "origin", None) or Origin("file")
    base_dir = Path(getattr(spec, "base_dir", None) or ".")
    target = text[len("file://"):] if text.startswith("file://") else text
    if target.endswith(".py"):
        path = Path(target).expanduser()
        if not path.is_absolute():
            path = base_dir / path
        return PluginRef(path.stem, "config", str(path), origin, path)
    if _MODULE_NAME().match(target):
        return PluginRef(target, "config", target, origin)
    return (f"plugin {text!r} ({origin}) is a JavaScript/npm plugin: opencode loads it, forge-tools does "
            "not (it runs Python plugins only), so any tools or hooks it adds are missing from these "
            "answers")


def _dedupe(refs: list[PluginRef]) -> list[PluginRef]:
    """The same module or file listed twice loads once; distinct plugins sharing a name are qualified."""
    seen_targets: set[str] = set()
    names: set[str] = set()
    out: list[PluginRef] = []
    for ref in refs:
        key = str(ref.path.resolve()) if ref.path is not None else ref.target
        if key in seen_targets:
            continue
        seen_targets.add(key)
        if ref.name in names:
            ref = ref._replace(name=f"{ref.name} ({ref.target})")
        names.add(ref.name)
        out.append(ref)
    return out


NOTE_PLUGINS_UNKNOWN = "plugin tools unknown without --load-code (no plugin was imported)"
NOTE_PURE = "--pure: no external plugin was loaded"
WHY_NOT_IMPORTED = "its tools are listed only when code is loaded (--load-code); no plugin was imported"


def plugin_label(ref: PluginRef) -> str:
    """How a person is shown a plugin that was not imported: its file, its module, or its entry point."""
    if ref.kind == "entry-point":
        return f"{ref.name} (entry point {ref.target})"
    return str(ref.path) if ref.path is not None else ref.target


def plugin_origin(ref: PluginRef) -> ToolSource:
    """The `ToolSource` of the plugin's tools as far as it is known without importing it (a module
    plugin's file is known only once it is imported)."""
    from forge_tools.tools.contract import ToolSource

    return ToolSource("plugin", path=str(ref.path) if ref.path is not None else None, plugin=ref.name)


class PluginSource:
    """The third source (`tools.contract.Source`): Python plugins' `register_tools`. Both answers
    find the plugins with `discover`, so `check` and `layers` name the same ones; `scan` imports none
    and lists each as unlisted, `load` imports them (`plugins.load_refs`) and lists their tools,
    keeping the hooks object for layer two and the call wrapper. `--pure` finds none."""

    name = "plugins"

    def scan(self, query: SourceQuery) -> Listing:
        from forge_tools.tools.contract import Listing, Unlisted

        if query.pure:
            return Listing(notes=[NOTE_PURE])
        notes: list[str] = []
        refs, problems = discover(query.config_dirs, query.plugin_specs, notes)
        return Listing([], list(problems), [*notes, *([NOTE_PLUGINS_UNKNOWN] if refs else [])],
                       [Unlisted(plugin_origin(ref), plugin_label(ref), WHY_NOT_IMPORTED) for ref in refs])

    def load(self, query: SourceQuery) -> Listing:
        from forge_tools.tools.contract import Listed, Listing

        if query.pure:
            return Listing(notes=[NOTE_PURE])
        notes: list[str] = []
        refs, problems = discover(query.config_dirs, query.plugin_specs, notes)
        if not refs:  # the loading machinery (pluggy, the hook caller) only for a project with plugins
            return Listing([], list(problems), notes)
        from forge_tools.sources.plugins import load_refs

        hooks = load_refs(refs, problems, notes)
        tools = hooks.register_tools()
        return Listing([Listed(t.id, t, t.source) for t in tools], list(hooks.problems), list(hooks.notes),
                       hooks=hooks)


SOURCE = PluginSource()
