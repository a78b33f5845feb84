"""Plugin loading (SPEC 2, source 3), and the one object that calls plugin hooks; which plugins,
and in what order, is found by `plugin_refs.py`.

Load order, which is also the order hooks run in (SPEC 3.2: the last writer wins):

1. installed distributions' entry points in group `forge_tools` (sorted by distribution, then name);
2. the config `plugin` list, in merged-config order: importable module names, or paths to `.py` files
   relative to the config file that listed them (`file://` accepted). Any other entry (an npm package
   such as `opencode-wakatime` or `@scope/pkg@1.2`, a `.ts`/`.js`/`.mjs` path) is opencode's JavaScript
   plugin: it is valid there, so it is only noted (forge-tools cannot know its tools or hooks);
3. `*.py` files directly inside `plugin/` and `plugins/` of each config directory (config-dir order,
   then file name).

`--pure` loads none of them. Every failure (import error, unknown hook, a hook that raises, a
`tool_definition` hook that renames or adds) becomes a `PluginError` naming the plugin and where it was
listed; the other plugins keep working. Each plugin's hooks are called one plugin at a time, in load
order, so a failure is always attributed to the plugin that caused it.
"""

from __future__ import annotations

import copy
import functools
import importlib
import importlib.util
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from forge_tools.errors import ForgeToolsError, PluginError
from forge_tools.named_tuple import NamedTuple
from forge_tools.sources.plugin_refs import PluginRef, discover

if TYPE_CHECKING:
    import pluggy

    from forge_tools.tools.contract import Tool, ToolSource

@dataclass
class LoadedPlugin:
    """An imported plugin, the object its hooks live on, and the hook implementations found on it."""

    ref: PluginRef
    obj: Any
    impls: dict[str, tuple[Callable[..., Any], tuple[str, ...]]] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.ref.name

    @property
    def path(self) -> str | None:
        if self.ref.path is not None:
            return str(self.ref.path)
        return getattr(self.obj, "__file__", None)


@dataclass
class ToolDefinition:
    """What a `tool_definition` hook may change: `description` and `parameters` (a JSON Schema dict).

    `id` is there to read; changing it (or adding attributes) is reported and the change discarded.
    """

    id: str
    description: str
    parameters: dict[str, Any]

    def plain(self) -> dict[str, Any]:
        return {"description": self.description, "parameters": self.parameters}


class DefinitionStep(NamedTuple):
    """One plugin's accepted change to a definition (before and after, as plain dicts)."""

    plugin: str
    before: dict[str, Any]
    after: dict[str, Any]


# -------------------------------------------------------------------------------------------- loading


def load_plugins(config_dirs: Iterable[Path], plugin_specs: Iterable[Any], pure: bool = False) -> PluginHooks:
    """Discover, import and register every plugin (none with `pure`); failures are kept, not raised."""
    if pure:
        return PluginHooks([], [])
    notes: list[str] = []
    refs, problems = discover(config_dirs, plugin_specs, notes)
    return load_refs(refs, problems, notes)


def load_refs(refs: list[PluginRef], problems: list[PluginError], notes: list[str]) -> PluginHooks:
    """Import and register discovered plugins, in order; `problems` and `notes` (discovery's) are kept."""
    if not refs:
        return PluginHooks([], problems, notes)
    import pluggy

    from forge_tools.sources.hookspecs import HOOK_NAMES, PROJECT, ForgeToolsHooks

    pm = pluggy.PluginManager(PROJECT)
    pm.add_hookspecs(ForgeToolsHooks)
    loaded: list[LoadedPlugin] = []
    for ref in refs:
        try:
            obj = _import(ref)
        except PluginError as exc:
            problems.append(exc)
            continue
        plugin = _register(pm, ref, obj, HOOK_NAMES)
        if isinstance(plugin, PluginError):
            problems.append(plugin)
        else:
            loaded.append(plugin)
    try:
        pm.check_pending()
    except Exception as exc:  # every unknown hook was unregistered above; this is a safety net
        problems.append(PluginError(str(exc), plugin="?"))
    return PluginHooks(loaded, problems, notes)


def _import(ref: PluginRef) -> Any:
    try:
        if ref.kind == "entry-point":
            module_name, _, attr = ref.target.partition(":")
            obj: Any = importlib.import_module(module_name.strip())
            for part in filter(None, attr.strip().split(".")):
                obj = getattr(obj, part)
            return obj
        if ref.path is None:
            return importlib.import_module(ref.target)
        return _import_file(ref.path)
    except PluginError:
        raise
    except ModuleNotFoundError as exc:
        if ref.path is None and ref.kind == "config" and exc.name == ref.target.split(".")[0]:
            raise PluginError(
                f"cannot import: no Python module named {ref.target!r} is installed (if it is an npm "
                "package, it is opencode's: forge-tools does not load JavaScript plugins)",
                ref.name, ref.origin) from None
        raise PluginError(f"cannot import: ModuleNotFoundError: {exc}", ref.name, ref.origin) from None
    except SyntaxError as exc:
        where = f"{exc.filename}:{exc.lineno}" if exc.filename else ""
        raise PluginError(f"cannot import ({where}): SyntaxError: {exc.msg}", ref.name, ref.origin) from None
    except BaseException as exc:
        if isinstance(exc, KeyboardInterrupt):
            raise
        raise PluginError(f"cannot import: {type(exc).__name__}: {exc}", ref.name, ref.origin) from None


def _import_file(path: Path) -> Any:
    from forge_tools.sources.scripts import import_file

    if not path.is_file():
        raise FileNotFoundError(f"no such file {path}")
    return import_file(path, prefix="forge_tools_plugin")


def _register(
    pm: pluggy.PluginManager, ref: PluginRef, obj: Any, hook_names: tuple[str, ...]
) -> LoadedPlugin | PluginError:
    from difflib import get_close_matches

    if pm.is_registered(obj):
        return PluginError("is already loaded under another name", ref.name, ref.origin)
    try:
        pm.register(obj, name=f"{ref.name}#{id(obj)}")
    except Exception as exc:  # pluggy.PluginValidationError: bad hook arguments
        return PluginError(f"invalid hook: {exc}", ref.name, ref.origin)
    plugin = LoadedPlugin(ref, obj)
    unknown: list[str] = []
    for caller in pm.get_hookcallers(obj) or []:
        if caller.spec is None:
            unknown.append(caller.name)
            continue
        for impl in caller.get_hookimpls():
            if impl.plugin is obj:
                if impl.hookwrapper or impl.wrapper:
                    pm.unregister(obj)
                    return PluginError(f"hook {caller.name}: hook wrappers are not supported", ref.name,
                                       ref.origin)
                plugin.impls[caller.name] = (impl.function, tuple(impl.argnames))
    if unknown:
        pm.unregister(obj)
        parts = []
        for name in sorted(unknown):
            close = get_close_matches(name, hook_names, n=1)
            parts.append(f"{name!r}" + (f" (did you mean {close[0]!r}?)" if close else ""))
        return PluginError(
            f"implements unknown hook {', '.join(parts)}; known hooks: {', '.join(hook_names)}; "
            "the plugin was not loaded",
            ref.name, ref.origin,
        )
    if not plugin.impls:
        undecorated = [n for n in hook_names if callable(getattr(obj, n, None))]
        hint = (f"; decorate {', '.join(undecorated)} with @forge_tools.hookimpl" if undecorated
                else "")
        pm.unregister(obj)
        return PluginError(f"implements no forge-tools hook{hint}", ref.name, ref.origin)
    return plugin


# -------------------------------------------------------------------------------------- calling hooks


class PluginHooks:
    """The loaded plugins in load order; calls each plugin's hook on its own so failures are attributed.

    This is the hooks object the tool wrapper takes for `tool_execute_before`/`tool_execute_after`.
    """

    def __init__(self, plugins: list[LoadedPlugin], problems: list[PluginError],
                 notes: list[str] | None = None) -> None:
        self.plugins = plugins
        self.problems: list[ForgeToolsError] = list(problems)
        self.notes: list[str] = list(notes or [])  # e.g. opencode's JavaScript plugins, not loaded

    def __bool__(self) -> bool:
        return bool(self.plugins)

    def implements(self, hook: str) -> bool:
        return any(hook in p.impls for p in self.plugins)

    @property
    def names(self) -> list[str]:
        return [p.name for p in self.plugins]

    def _impls(self, hook: str) -> Iterable[tuple[LoadedPlugin, Callable[..., Any], tuple[str, ...]]]:
        for plugin in self.plugins:
            found = plugin.impls.get(hook)
            if found is not None:
                yield plugin, found[0], found[1]

    @staticmethod
    def _call(fn: Callable[..., Any], argnames: tuple[str, ...], kwargs: dict[str, Any]) -> Any:
        return fn(**{name: kwargs[name] for name in argnames})

    # ---- register_tools

    def register_tools(self) -> list[Tool]:
        """Every plugin-registered tool, stamped with its plugin; a plugin whose hook raises adds none."""
        from forge_tools.tools.contract import Tool, ToolSource

        tools: list[Tool] = []
        for plugin, fn, argnames in self._impls("register_tools"):
            mine: list[Tool] = []
            bad: list[str] = []
            source = ToolSource("plugin", path=plugin.path, plugin=plugin.name)

            def register(tool: Any, _mine: list[Tool] = mine, _bad: list[str] = bad,
                         _source: ToolSource = source) -> None:
                if not isinstance(tool, Tool) or not isinstance(tool.id, str) or not tool.id:
                    _bad.append(f"register() takes a forge_tools.Tool with an id (got {type(tool).__name__})")
                    return
                _mine.append(_stamped(tool, _source))

            try:
                self._call(fn, argnames, {"register": register})
            except Exception as exc:
                self.problems.append(PluginError(
                    f"hook register_tools raised {type(exc).__name__}: {exc}; none of its tools were added",
                    plugin.name, plugin.ref.origin))
                continue
            for message in bad:
                self.problems.append(PluginError(message, plugin.name, plugin.ref.origin))
            tools.extend(mine)
        return tools

    # ---- tool_definition (SPEC 3.2)

    def rewrite_definition(self, tool_id: str, description: str, parameters: dict[str, Any]) -> tuple[
            dict[str, Any], list[DefinitionStep], list[PluginError]]:
        """Run every plugin's `tool_definition` hook in load order on a copy; the last writer wins.

        A hook that raises, renames the tool, adds attributes or sets a wrong type is reported and its
        change discarded: the tool keeps the definition it had before that hook.
        """
        current: dict[str, Any] = {"description": description, "parameters": parameters}
        steps: list[DefinitionStep] = []
        problems: list[PluginError] = []
        for plugin, fn, argnames in self._impls("tool_definition"):
            draft = ToolDefinition(tool_id, current["description"], copy.deepcopy(current["parameters"]))
            try:
                returned = self._call(fn, argnames, {"tool_id": tool_id, "definition": draft})
            except Exception as exc:
                problems.append(PluginError(
                    f"hook tool_definition raised {type(exc).__name__}: {exc} (tool {tool_id!r} keeps its "
                    "definition from before this hook)", plugin.name, plugin.ref.origin))
                continue
            complaint = _definition_complaint(tool_id, draft, returned, current)
            if complaint:
                problems.append(PluginError(f"hook tool_definition {complaint}; change to {tool_id!r} "
                                            "discarded", plugin.name, plugin.ref.origin))
                continue
            after = draft.plain()
            if after != current:
                steps.append(DefinitionStep(plugin.name, current, after))
                current = after
        return current, steps, problems

    # ---- execute hooks (called by the tool wrapper)

    def tool_execute_before(self, *, tool_id: str, args: Any, ctx: Any) -> None:
        """Each plugin's `tool_execute_before`; a hook that raises stops the call (a plugin may block)."""
        self._run_execute_hook("tool_execute_before", {"tool_id": tool_id, "args": args, "ctx": ctx})

    def tool_execute_after(self, *, tool_id: str, result: Any, ctx: Any) -> None:
        """Each plugin's `tool_execute_after`; a hook that raises is reported by the wrapper, naming it."""
        self._run_execute_hook("tool_execute_after", {"tool_id": tool_id, "result": result, "ctx": ctx})

    def _run_execute_hook(self, hook: str, kwargs: dict[str, Any]) -> None:
        for plugin, fn, argnames in self._impls(hook):
            try:
                self._call(fn, argnames, kwargs)
            except Exception as exc:
                # the wrapper shows only the message, so the message itself names the plugin
                text = str(exc).strip() or type(exc).__name__
                raise PluginError(f"{text} (plugin {plugin.name}, hook {hook})", plugin.name,
                                  plugin.ref.origin) from exc


_DEFINITION_FIELDS = frozenset({"id", "description", "parameters"})


def _stamped(tool: Tool, source: ToolSource) -> Tool:
    """A copy of a registered tool with its plugin as source (the plugin's own object is left as it
    is). A plain `Tool` holding only its fields is rebuilt through its constructor, which keeps its
    attributes in the compact per-class layout (a plugin of 100,000 tools: about 13 MB less than
    `copy.copy`); anything else is copied as it is (a `LazyTool` keeps its model unbuilt)."""
    import dataclasses

    from forge_tools.tools.contract import Tool

    if type(tool) is Tool and vars(tool).keys() == _tool_fields():
        return dataclasses.replace(tool, source=source)
    stamped = copy.copy(tool)
    stamped.source = source
    return stamped


@functools.cache
def _tool_fields() -> frozenset[str]:
    import dataclasses

    from forge_tools.tools.contract import Tool

    return frozenset(f.name for f in dataclasses.fields(Tool))


def _definition_complaint(tool_id: str, draft: Any, returned: Any,
                          before: dict[str, Any] | None = None) -> str | None:
    """Why a hook's change to a definition is refused (SPEC 3.2: no add, remove or rename), or None.

    A wrong type is blamed on the hook only if the hook changed that field (`before`): a value the tool
    itself declared is the tool's mistake, reported where tools are collected.
    """
    if returned is not None and returned is not draft:
        return ("returned a value; hooks change `definition` in place and cannot add or replace tools "
                "(register new tools with register_tools)")
    if not isinstance(draft, ToolDefinition):
        return "replaced the definition object"
    if draft.id != tool_id:
        return f"may not rename tools (changed id {tool_id!r} to {draft.id!r})"
    extra = sorted(set(vars(draft)) - _DEFINITION_FIELDS)
    if extra:
        return f"may only change description and parameters (it set {', '.join(extra)})"
    if not isinstance(draft.description, str) and _changed(draft.description, before, "description"):
        return f"set description to {_a(type(draft.description).__name__)}, not a string"
    if not isinstance(draft.parameters, dict) and _changed(draft.parameters, before, "parameters"):
        return f"set parameters to {_a(type(draft.parameters).__name__)}, not a JSON Schema object"
    return None


def _a(word: str) -> str:
    return f"{'an' if word[:1] in 'aeiouAEIOU' else 'a'} {word}"


def _changed(value: Any, before: dict[str, Any] | None, key: str) -> bool:
    """Whether the hook set `key` to something other than what it was handed."""
    if before is None or key not in before:
        return True
    old = before[key]
    try:
        return type(value) is not type(old) or bool(value != old)
    except Exception:  # a value that cannot be compared: count it as a change
        return True
