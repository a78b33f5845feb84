"""Validating a config source against the schema, and its errors translated to locations.

The checks are the models' of `config.schema`, run through the core schema `config.core_schema`
ships, so neither pydantic's model machinery nor a model is built to load a config; the messages are
forge-tools' own, written from pydantic's error types and locations.

A process may turn on a memo of the trees the validator found clean (`remember_clean`): `forge-tools
hook --runtime opencode` reads the same files before every tool call, and a tree found clean is clean
again under the same schema and pydantic_core, so it is then validated without importing pydantic_core
(about a third of one decision's CPU). Only a clean outcome is remembered, by a digest of the whole
tree; every other tree, and every tree after a change of the schema, its functions or pydantic_core,
is validated.
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from forge_tools.config.validators import MODEL_FORM, model_id_problem
from forge_tools.errors import ConfigError, ConfigProblem
from forge_tools.origin import Node, Origin, format_key_path
from forge_tools.rule import ACTIONS

if TYPE_CHECKING:
    from pydantic_core import ValidationError

    from forge_tools.config.core_schema import ConfigSchema


def _schema() -> ConfigSchema:
    """The shipped validator (imported on first use, so `python -m forge_tools.config.core_schema`,
    which regenerates it, runs as the only copy of that module)."""
    from forge_tools.config.core_schema import config_schema

    return config_schema()


def config_keys() -> list[str]:
    """The top-level keys of a config, in the schema's order."""
    schema = _schema()
    return list(schema.keys[schema.root])


def agent_option_keys(tree: Node) -> list[tuple[str, str, Origin, str | None]]:
    """Keys under `agent.<name>` that are not agent settings: (agent, key, where, closest known key).

    opencode hands them to the model as options, so they are valid; a close match to a known key is
    likely a misspelling, which `check` reports as FT115.
    """
    known = _known_keys(("agent", "*"))
    found: list[tuple[str, str, Origin, str | None]] = []
    agents = tree.get("agent")
    for agent_name, settings in agents.items() if agents is not None else ():
        for key, node in settings.items():
            if key not in known:
                import difflib

                close = difflib.get_close_matches(key, known, n=1, cutoff=0.8)
                found.append((agent_name, key, node.key_origin or node.origin, close[0] if close else None))
    return found


_TYPE_WORDS = {
    "string_type": "a string",
    "bool_type": "true or false",
    "int_type": "an integer",
    "float_type": "a number",
    "dict_type": "a mapping",
    "model_type": "a mapping",
    "model_attributes_type": "a mapping",
    "list_type": "a list",
}


def validate_tree(tree: Node) -> None:
    """Validate one source's located tree; the first error in the file becomes a `ConfigError`."""
    errors = validation_errors(tree)
    if errors:
        raise errors[0]


def validation_errors(tree: Node) -> list[ConfigError]:
    """Every schema error of one source, one per offending node, in file order (for `check`)."""
    if not tree.is_map:
        message = f"the config must be a mapping of keys, not {_describe(tree.value)}"
        return [ConfigError(message, tree.origin, code=ConfigProblem.TYPE)]
    exc = _validate(tree)
    return located_errors(exc, tree) if exc is not None else []


def drop_unknown_keys(tree: Node) -> list[ConfigError]:
    """Remove every key the schema does not know from one source's tree, as opencode 1.18.33 does with
    its own files (it drops unknown keys silently), and say which: one `ConfigError` per key, at the
    key, in file order (`check` reports them as FT117 warnings). A value of a known key that is wrong
    is left for `validation_errors`."""
    if not tree.is_map:
        return []
    exc = _validate(tree)
    if exc is not None:
        dropped: list[ConfigError] = []
        for err in exc.errors():
            if err["type"] != "extra_forbidden":
                continue
            node, keys, model_path = _walk(tree, err["loc"])
            parent = tree
            for key in keys[:-1]:
                child = parent.value.get(key) if isinstance(parent.value, dict) else None
                if child is None:
                    break
                parent = child
            if not keys or not isinstance(parent.value, dict) or parent.value.get(keys[-1]) is not node:
                continue
            dropped.append(_translate(err, node, keys, model_path))
            del parent.value[keys[-1]]
        return sorted(dropped, key=_position)
    return []


def _validate(tree: Node) -> ValidationError | None:
    """The validator's errors of one tree, or None when it is clean (see the module for the memo)."""
    plain = tree.plain()
    memo = _clean
    key = memo.digest(plain) if memo is not None else None
    if memo is not None and key is not None and key in memo.known:
        return None
    from forge_tools.extensions import pydantic_core

    try:
        _schema().validator.validate_python(plain)
    except pydantic_core().ValidationError as exc:
        return exc
    if memo is not None and key is not None:
        memo.add(key)
    return None


class _CleanMemo:
    """The digests of trees the validator found clean, in a private file, under the stamp of what the
    outcome depends on: the shipped schema, the modules it is derived from and calls, pydantic_core."""

    LIMIT = 256  # the newest digests kept (a project's few sources, over many projects)

    def __init__(self, path: Path) -> None:
        self.path = path
        self.stamp = _stamp()
        self.known: list[str] = []
        import json

        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return
        if isinstance(data, dict) and data.get("stamp") == self.stamp and isinstance(data.get("clean"), list):
            self.known = [d for d in data["clean"] if isinstance(d, str)]

    def digest(self, plain: Any) -> str | None:
        """The tree's digest (None for one JSON cannot spell exactly, e.g. a TOML date or a YAML key
        that is not a string: validated)."""
        import json

        if not _json_exact(plain):
            return None
        try:
            text = json.dumps(plain, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
        except (TypeError, ValueError):
            return None
        try:
            from _blake2 import blake2b  # the C hash itself: `hashlib` would load OpenSSL for it
        except ImportError:
            from hashlib import blake2b
        return blake2b(text.encode("utf-8", "surrogatepass"), digest_size=20).hexdigest()

    def add(self, key: str) -> None:
        import json

        from forge_tools.paths import write_private_cache

        self.known = [*self.known[-(self.LIMIT - 1):], key]
        write_private_cache(self.path, json.dumps({"stamp": self.stamp, "clean": self.known}))


def _json_exact(value: Any) -> bool:
    """Whether JSON spells `value` so that no other value has the same text (its keys all strings: JSON
    writes a key 1 as "1"; its values JSON's own types)."""
    if isinstance(value, dict):
        return all(isinstance(k, str) and _json_exact(v) for k, v in value.items())
    if isinstance(value, list):
        return all(_json_exact(v) for v in value)
    return value is None or isinstance(value, (str, int, float))  # bool is an int: "true" / "false"


#: the files of this package a clean outcome depends on (`_stamp`)
STAMPED = ("core_schema.json", "core_schema.py", "schema.py", "validators.py")


def _stamp() -> str:
    """What a clean outcome depends on, by the bytes of the files: the shipped core schema, the module
    that builds the validator from it and those it is derived from or calls (`config.core_schema`
    `SOURCES`, named here so a remembered tree needs no import of that module), and pydantic_core's own
    files as installed (found without importing it)."""
    from importlib.util import find_spec

    from forge_tools.paths import file_checksum

    here = Path(__file__).parent
    parts = [str(file_checksum(here / name)) for name in STAMPED]
    spec = find_spec("pydantic_core")
    for where in (spec.submodule_search_locations or ()) if spec is not None else ():
        for entry in sorted(Path(where).iterdir()):
            if entry.suffix in (".py", ".so", ".pyd"):
                info = entry.stat()
                parts.append(f"{entry.name}:{info.st_size}:{info.st_mtime_ns}")
    return " ".join(parts)


_clean: _CleanMemo | None = None


def remember_clean(path: Path) -> None:
    """Turn on the memo of clean trees for this process, kept in `path` (see the module)."""
    global _clean
    _clean = _CleanMemo(path)


#: top-level keys opencode 1.18.33 drops from its config files (they moved to its `tui.json`)
TUI_KEYS = ("theme", "keybinds", "tui")


def drop_tui_keys(tree: Node) -> list[ConfigError]:
    """Remove `theme`, `keybinds` and `tui` from one of opencode's files, as opencode 1.18.33 does
    (`opencode debug config` shows none of them: they are its `tui.json`'s), one `ConfigError` per key
    (`check` reports them as FT117 warnings)."""
    if not isinstance(tree.value, dict):
        return []
    dropped = []
    for key in TUI_KEYS:
        node = tree.value.get(key)
        if node is not None:
            dropped.append(ConfigError(f"top-level key {key!r} is read from tui.json by opencode 1.18.33, "
                                       "which drops it here", node.key_origin or node.origin,
                                       code=ConfigProblem.UNKNOWN_KEY))
            del tree.value[key]
    return dropped


def _position(e: ConfigError) -> tuple[int, int]:
    o = e.origin
    return (o.line or 10**9, o.column or 0) if o is not None else (10**9, 0)


def located_errors(exc: ValidationError, tree: Node) -> list[ConfigError]:
    """pydantic's errors pointed at the nodes they are about, in file order.

    Several type errors on one node (a union such as `bool | str`) are folded into one message.
    """
    by_node: dict[tuple[str, ...], list[tuple[Any, Node, tuple[str, ...]]]] = {}
    for err in exc.errors():
        node, keys, model_path = _walk(tree, err["loc"])
        by_node.setdefault(keys, []).append((err, node, model_path))
    errors: list[ConfigError] = []
    for keys, group in by_node.items():
        err, node, model_path = group[0]
        if node.meta.get("opencode_model") and keys and keys[-1] in ("model", "small_model"):
            continue  # opencode's own file: a model without a provider loads there (reader)
        type_errors = [e["type"] for e, _, _ in group if e["type"] in _TYPE_WORDS]
        if len(type_errors) > 1 and len(type_errors) == len(group):
            wanted = " or ".join(dict.fromkeys(_TYPE_WORDS[t] for t in type_errors))
            errors.append(_located(keys, f"expected {wanted}, got {_describe(node.value)}", node.origin))
        else:
            errors.append(_translate(err, node, keys, model_path))
    return sorted(errors, key=_position)


def _walk(tree: Node, loc: tuple[Any, ...]) -> tuple[Node, tuple[str, ...], tuple[str, ...]]:
    """Follow a pydantic `loc` through the tree, skipping union tags; also the schema path (agent.*)."""
    node = tree
    keys: tuple[str, ...] = ()
    model_path: tuple[str, ...] = ()
    for part in loc:
        if isinstance(node.value, dict) and isinstance(part, str) and part in node.value:
            model_path += ("*",) if model_path == ("agent",) else (part,)
            node = node.value[part]
            keys += (part,)
        elif isinstance(node.value, list) and isinstance(part, int) and 0 <= part < len(node.value):
            node = node.value[part]
            keys += (str(part),)
        elif isinstance(part, str) and part.startswith("<"):
            continue
        else:
            break
    return node, keys, model_path


def _translate(err: Any, node: Node, keys: tuple[str, ...], model_path: tuple[str, ...]) -> ConfigError:
    import difflib  # here: a clean config never needs it

    kind = err["type"]
    if kind == "extra_forbidden":
        name = keys[-1] if keys else "?"
        known = _known_keys(model_path[:-1])
        close = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        scope = "" if len(keys) == 1 else f" in {format_key_path(keys[:-1])}"
        kind_word = "top-level key" if len(keys) == 1 else "key"
        origin = node.key_origin or node.origin
        return ConfigError(f"unknown {kind_word} {name!r}{scope}{hint}", origin,
                           code=ConfigProblem.UNKNOWN_KEY)
    if kind == "missing" and err["loc"] and isinstance(err["loc"][-1], str):
        return _located(keys, f"missing key {err['loc'][-1]!r}", node.origin, ConfigProblem.UNUSABLE)
    if kind in ("literal_error", *_TYPE_WORDS) and "template" in node.meta:
        # the value came from {env:}/{file:} and may be a secret: show what was written, never the value
        used = ", ".join(node.meta.get("substituted", ()))
        return _located(keys, f"{node.meta['template']!r} (substituted from {used}; value not shown) does "
                              f"not give a valid value here: {_expectation(kind, err)}", node.origin)
    if kind == "literal_error":
        expected = err.get("ctx", {}).get("expected", "")
        if all(a in expected for a in ACTIONS):
            if isinstance(node.value, str):
                close = difflib.get_close_matches(node.value, ACTIONS, n=1, cutoff=0.5)
                hint = f" (did you mean {close[0]!r}?)" if close else ""
                message = f"unknown action {node.value!r}{hint}; use allow, deny or ask"
                return _located(keys, message, node.origin, ConfigProblem.ACTION)
            depth = len(keys) - (keys.index("permission") + 1) if "permission" in keys else 0
            also = " or a mapping of pattern to action" if depth <= 1 else ""
            message = f"expected an action (allow, deny or ask){also}, got {_describe(node.value)}"
            return _located(keys, message, node.origin)
        choices = re.findall(r"'([^']*)'", expected)
        close = (difflib.get_close_matches(node.value, choices, n=1, cutoff=0.5)
                 if isinstance(node.value, str) else [])
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        return _located(keys, f"{node.value!r} is not one of {expected}{hint}", node.origin)
    if kind in _TYPE_WORDS:
        return _located(keys, f"expected {_TYPE_WORDS[kind]}, got {_describe(node.value)}", node.origin)
    if kind == "finite_number":
        return _located(keys, f"expected a finite number, got {_describe(node.value)}", node.origin)
    if (kind == "value_error" and isinstance(node.value, str) and keys and keys[-1] == "model"
            and model_id_problem(node.value)):
        if "template" in node.meta:  # the substituted value may be a secret: show what was written
            used = ", ".join(node.meta.get("substituted", ()))
            return _located(keys, f"expected {MODEL_FORM}, but {node.meta['template']!r} does not give "
                                  f"one (substituted from {used}; value not shown)", node.origin)
        return _located(keys, str(model_id_problem(node.value)), node.origin)
    return _located(keys, str(err["msg"]).removeprefix("Value error, "), node.origin)


def _expectation(kind: str, err: Any) -> str:
    if kind == "literal_error":
        expected = str(err.get("ctx", {}).get("expected", ""))
        if all(a in expected for a in ACTIONS):
            return "unknown action; use allow, deny or ask"
        return "expected one of " + expected if expected else "not an accepted value"
    return f"expected {_TYPE_WORDS[kind]}"


def _located(keys: tuple[str, ...], message: str, origin: Origin,
             code: ConfigProblem = ConfigProblem.TYPE) -> ConfigError:
    """Name the key in the message unless the origin already is the key path (TOML without a line).
    The schema refused the value, so it is of the wrong type or not an accepted value (FT002) unless
    the caller knows better."""
    if origin.line is None and origin.key_path:
        return ConfigError(message, origin, code)
    return ConfigError(f"{format_key_path(keys) or 'config'}: {message}", origin, code)


def _describe(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"boolean {str(value).lower()}"
    if isinstance(value, str):
        return f"string {value!r}"
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else "-Infinity" if value < 0 else "Infinity"
    if isinstance(value, int | float):
        return f"number {value!r}"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    return type(value).__name__


def _known_keys(model_path: tuple[str, ...]) -> list[str]:
    """The keys the schema allows at a path (for did-you-mean)."""
    schema = _schema()
    model = schema.root
    for part in model_path:
        if part == "*":
            continue
        sub = schema.submodels.get(model, {}).get(part)
        if sub is None:
            return []
        model = sub
    return list(schema.keys[model])
