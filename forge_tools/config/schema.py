"""The one config schema (every format, every source) and the translation of its errors to locations.

Each source is validated on its own before merging, so an error always points at the file, line and
column that caused it. opencode's keys forge-tools does not use are accepted (an opencode.json loads
unchanged); anything else is an unknown key with a did-you-mean.
"""

from __future__ import annotations

import difflib
import re
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Discriminator, Field, Tag, ValidationError

from forge_tools.errors import ConfigError
from forge_tools.origin import Node, Origin, format_key_path

Action = Literal["allow", "deny", "ask"]
ACTIONS = ("allow", "deny", "ask")


def _permission_kind(value: Any) -> str:
    return "<map>" if isinstance(value, dict) else "<action>"


#: `"bash": "ask"` or `"bash": {"git *": "allow", "*": "ask"}`
PermissionEntry = Annotated[
    Annotated[Action, Tag("<action>")] | Annotated[dict[str, Action], Tag("<map>")],
    Discriminator(_permission_kind),
]
#: the whole `permission` value: one action for everything, or permission name -> entry
Permission = Annotated[
    Annotated[Action, Tag("<action>")] | Annotated[dict[str, PermissionEntry], Tag("<map>")],
    Discriminator(_permission_kind),
]


#: how a model is named everywhere (config `model`, agent `model`, `--model`)
MODEL_FORM = "PROVIDER/MODEL (e.g. openai/gpt-5)"


def model_id_problem(value: str) -> str | None:
    """Why `value` is not a model id, or None. A model without its provider cannot be resolved (and a
    `{env:...}` provider that is unset leaves `/name`), so config and `--model` refuse it alike."""
    provider, slash, name = value.partition("/")
    if slash and provider and name:
        return None
    return f"expected {MODEL_FORM}, got {value!r}"


def _model_id(value: str) -> str:
    problem = model_id_problem(value)
    if problem is not None:
        raise ValueError(problem)
    return value


#: a config `model` value, checked like `--model`
ModelId = Annotated[str, AfterValidator(_model_id)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=False, strict=True)


class ToolOutputConfig(_Strict):
    """forge's own truncation settings (SPEC 5)."""

    max_lines: int | None = Field(default=None, ge=1)
    max_bytes: int | None = Field(default=None, ge=1)
    retention_days: int | None = Field(default=None, ge=0)


CODE_PREFIX = re.compile(r"FT[0-9]{0,3}")


def _code_prefix(value: str) -> str:
    if not CODE_PREFIX.fullmatch(value):
        raise ValueError(f"{value!r} is not a finding code or prefix (e.g. FT104, FT1, FT)")
    return value


#: a finding code (FT104) or a prefix of codes (FT1, FT)
CodePrefix = Annotated[str, AfterValidator(_code_prefix),
                       Field(json_schema_extra={"pattern": "^FT[0-9]{0,3}$"})]


class CheckSettings(_Strict):
    """forge's own `check` settings: which findings to report (codes or prefixes, as `--select` and
    `--ignore`). opencode refuses unknown keys, so opencode.json users put this in a forge.* file
    beside it or in pyproject.toml `[tool.forge-tools.check]`."""

    select: list[CodePrefix] | None = Field(
        default=None, description="Report only these codes or prefixes (default: all).")
    ignore: list[CodePrefix] | None = Field(
        default=None, description="Do not report these codes or prefixes (e.g. FT105).")


class AgentConfig(BaseModel):
    """`agent.<name>`: the keys opencode defines for an agent, types checked.

    Any other key is accepted, as opencode does (it passes such keys to the model as options, e.g.
    `reasoningEffort`), so an existing opencode.json loads unchanged; `agent_option_keys` lists them
    for `check` to mention.
    """

    model_config = ConfigDict(extra="allow", populate_by_name=False, strict=True)

    model: ModelId | None = None
    variant: str | None = None
    temperature: float | None = None
    top_p: float | None = None
    prompt: str | None = None
    tools: dict[str, bool] | None = None
    disable: bool | None = None
    description: str | None = None
    mode: Literal["primary", "subagent", "all"] | None = None
    hidden: bool | None = None
    options: dict[str, Any] | None = None
    color: str | None = None
    steps: int | None = Field(default=None, ge=1)
    maxSteps: int | None = Field(default=None, ge=1)
    permission: Permission | None = None


class ConfigModel(_Strict):
    """The whole config; field order is the order `config` prints known keys in documentation."""

    schema_: str | None = Field(default=None, alias="$schema")
    # used by forge-tools
    permission: Permission | None = None
    tools: dict[str, bool] | None = None
    agent: dict[str, AgentConfig] | None = None
    plugin: list[str] | None = None
    model: ModelId | None = None
    default_agent: str | None = None
    tool_output: ToolOutputConfig | None = None
    check: CheckSettings | None = None
    # opencode's, accepted and ignored
    small_model: str | None = None
    theme: str | None = None
    keybinds: dict[str, Any] | None = None
    logLevel: str | None = None
    tui: dict[str, Any] | None = None
    server: dict[str, Any] | None = None
    command: dict[str, Any] | None = None
    watcher: dict[str, Any] | None = None
    snapshot: bool | None = None
    share: str | None = None
    autoshare: bool | None = None
    autoupdate: bool | str | None = None
    disabled_providers: list[str] | None = None
    enabled_providers: list[str] | None = None
    username: str | None = None
    mode: dict[str, AgentConfig] | None = None  # opencode's deprecated form of primary agents
    provider: dict[str, Any] | None = None
    mcp: dict[str, Any] | None = None
    formatter: Any = None
    lsp: Any = None
    instructions: list[str] | None = None
    layout: str | None = None
    enterprise: dict[str, Any] | None = None
    compaction: dict[str, Any] | None = None
    experimental: dict[str, Any] | None = None
    skills: Any = None


def agent_option_keys(tree: Node) -> list[tuple[str, str, Origin, str | None]]:
    """Keys under `agent.<name>` that are not agent settings: (agent, key, where, closest known key).

    opencode hands them to the model as options, so they are valid; a close match to a known key is
    likely a misspelling that `check` can point out.
    """
    known = [f.alias or name for name, f in AgentConfig.model_fields.items()]
    found: list[tuple[str, str, Origin, str | None]] = []
    agents = tree.get("agent")
    for agent_name, settings in agents.items() if agents is not None else ():
        for key, node in settings.items():
            if key not in known:
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


def validate_tree(tree: Node) -> ConfigModel:
    """Validate one source's located tree; the first error in the file becomes a `ConfigError`."""
    if not tree.is_map:
        raise ConfigError(f"the config must be a mapping of keys, not {_describe(tree.value)}", tree.origin)
    try:
        return ConfigModel.model_validate(tree.plain())
    except ValidationError as exc:
        raise located_errors(exc, tree)[0] from None


def validation_errors(tree: Node) -> list[ConfigError]:
    """Every schema error of one source, one per offending node, in file order (for `check`)."""
    try:
        validate_tree(tree) if not tree.is_map else ConfigModel.model_validate(tree.plain())
    except ConfigError as exc:
        return [exc]
    except ValidationError as exc:
        return located_errors(exc, tree)
    return []


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
        type_errors = [e["type"] for e, _, _ in group if e["type"] in _TYPE_WORDS]
        if len(type_errors) > 1 and len(type_errors) == len(group):
            wanted = " or ".join(dict.fromkeys(_TYPE_WORDS[t] for t in type_errors))
            errors.append(_located(keys, f"expected {wanted}, got {_describe(node.value)}", node.origin))
        else:
            errors.append(_translate(err, node, keys, model_path))

    def position(e: ConfigError) -> tuple[int, int]:
        o = e.origin
        return (o.line or 10**9, o.column or 0) if o is not None else (10**9, 0)

    return sorted(errors, key=position)


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
    kind = err["type"]
    if kind == "extra_forbidden":
        name = keys[-1] if keys else "?"
        known = _known_keys(model_path[:-1])
        close = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        scope = "" if len(keys) == 1 else f" in {format_key_path(keys[:-1])}"
        kind_word = "top-level key" if len(keys) == 1 else "key"
        origin = node.key_origin or node.origin
        return ConfigError(f"unknown {kind_word} {name!r}{scope}{hint}", origin)
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
                return _located(keys, message, node.origin)
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


def _located(keys: tuple[str, ...], message: str, origin: Origin) -> ConfigError:
    """Name the key in the message unless the origin already is the key path (TOML without a line)."""
    if origin.line is None and origin.key_path:
        return ConfigError(message, origin)
    return ConfigError(f"{format_key_path(keys) or 'config'}: {message}", origin)


def _describe(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"boolean {str(value).lower()}"
    if isinstance(value, str):
        return f"string {value!r}"
    if isinstance(value, int | float):
        return f"number {value!r}"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    return type(value).__name__


def _known_keys(model_path: tuple[str, ...]) -> list[str]:
    """The keys the schema allows at a path (for did-you-mean)."""
    model: type[BaseModel] = ConfigModel
    for part in model_path:
        if model is ConfigModel and part == "agent":
            model = AgentConfig
        elif model is ConfigModel and part == "tool_output":
            model = ToolOutputConfig
        elif model is ConfigModel and part == "check":
            model = CheckSettings
        elif part == "*":
            continue
        else:
            return []
    return [f.alias or name for name, f in model.model_fields.items()]
