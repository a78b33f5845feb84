"""The one config schema (every format, every source): the pydantic models, its single source of truth.

Each source is validated on its own before merging, so an error always points at the file, line and
column that caused it. opencode's keys forge-tools does not use are accepted (an opencode.json loads
unchanged); anything else is an unknown key with a did-you-mean.

Loading a config never imports this module: `config.validation` validates with the models' core schema
shipped by `config.core_schema` (regenerate it after an edit here). The JSON Schema (`config.json_schema`)
and `LoadedConfig.data` come from these models.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal, TypeVar

from pydantic import AfterValidator, BaseModel, ConfigDict, Discriminator, Field, Tag
from pydantic.json_schema import SkipJsonSchema

from forge_tools.config.validation import agent_option_keys, located_errors, validate_tree, validation_errors
from forge_tools.config.validators import (
    CODE_PREFIX,
    MODEL_FORM,
    code_prefix,
    mcp_kind,
    model_id,
    model_id_problem,
    permission_kind,
)
from forge_tools.rule import ACTIONS, Action

__all__ = ["ACTIONS", "CODE_PREFIX", "MODEL_FORM", "Action", "AgentConfig", "CheckSettings", "CodePrefix",
           "ConfigModel", "McpEntry", "McpLocal", "McpRemote", "McpToggle", "ModelId", "Opt", "Permission",
           "PermissionEntry", "SkillsConfig", "ToolOutputConfig", "agent_option_keys", "located_errors",
           "model_id_problem", "validate_tree", "validation_errors"]

if TYPE_CHECKING:
    from pydantic import GetCoreSchemaHandler
    from pydantic_core import CoreSchema

_T = TypeVar("_T")


class _NeverNull:
    """Marks an optional key: absent or a value, never `null` (opencode refuses `null` for every key:
    "Expected string | undefined, got null"), in the validator and in the JSON Schema alike."""

    def __get_pydantic_core_schema__(self, source: Any, handler: GetCoreSchemaHandler) -> CoreSchema:
        schema = handler(source)
        return schema["schema"] if schema["type"] == "nullable" else schema


#: an optional key (its default None means absent): `Opt[str]` is a string or no key at all
Opt = Annotated[_T | None, _NeverNull()]

#: `"bash": "ask"` or `"bash": {"git *": "allow", "*": "ask"}`
PermissionEntry = Annotated[
    Annotated[Action, Tag("<action>")] | Annotated[dict[str, Action], Tag("<map>")],
    Discriminator(permission_kind),
]
#: the whole `permission` value: one action for everything, or permission name -> entry
Permission = Annotated[
    Annotated[Action, Tag("<action>")] | Annotated[dict[str, PermissionEntry], Tag("<map>")],
    Discriminator(permission_kind),
]


#: a number setting that takes a fraction: JSON5, YAML and TOML can each write NaN or an infinity, which
#: no setting means (opencode's JSONC reader refuses both); an integer setting refuses them as not integers
Number = Annotated[float, Field(allow_inf_nan=False)]

#: a config `model` value, checked like `--model`
ModelId = Annotated[str, AfterValidator(model_id)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=False, strict=True)


class ToolOutputConfig(_Strict):
    """Truncation settings: `max_lines` and `max_bytes` (lines and bytes of a tool's output that reach
    the model) are opencode's too; `retention_days` (how long full-output files are kept) is forge's own
    (opencode drops it)."""

    max_lines: Opt[int] = Field(default=None, ge=1)
    max_bytes: Opt[int] = Field(default=None, ge=1)
    retention_days: Opt[int] = Field(default=None, ge=0)


#: a finding code (FT104) or a prefix of codes (FT1, FT)
CodePrefix = Annotated[str, AfterValidator(code_prefix),
                       Field(json_schema_extra={"pattern": f"^{CODE_PREFIX.pattern}$"})]


class CheckSettings(_Strict):
    """forge's own `check` settings: which findings to report (codes or prefixes, as `--select` and
    `--ignore`). opencode refuses unknown keys, so opencode.json users put this in a forge.* file
    beside it or in pyproject.toml `[tool.forge-tools.check]`."""

    select: Opt[list[CodePrefix]] = Field(
        default=None, description="Report only these codes or prefixes, including the ones that are off by "
                                  "default (default: the codes on by default; `forge-tools rule --all`).")
    extend_select: Opt[list[CodePrefix]] = Field(
        default=None, description="Report these codes or prefixes as well as the selected ones (e.g. "
                                  "FT105, an informational hint that is off by default).")
    ignore: Opt[list[CodePrefix]] = Field(
        default=None, description="Do not report these codes or prefixes (e.g. FT104).")


class AgentConfig(BaseModel):
    """`agent.<name>`: the keys opencode defines for an agent, types checked.

    Any other key is accepted, as opencode does (it passes such keys to the model as options, e.g.
    `reasoningEffort`), so an existing opencode.json loads unchanged; `agent_option_keys` lists them
    for `check` to mention.
    """

    model_config = ConfigDict(extra="allow", populate_by_name=False, strict=True)

    model: Opt[ModelId] = None
    variant: Opt[str] = None
    temperature: Opt[Number] = None
    top_p: Opt[Number] = None
    prompt: Opt[str] = None
    tools: Opt[dict[str, bool]] = None
    disable: Opt[bool] = None
    description: Opt[str] = None
    mode: Opt[Literal["primary", "subagent", "all"]] = None
    hidden: Opt[bool] = None
    options: Opt[dict[str, Any]] = None
    color: Opt[str] = None
    steps: Opt[int] = Field(default=None, ge=1)
    maxSteps: Opt[int] = Field(default=None, ge=1)
    permission: Opt[Permission] = None


class _OpencodeSection(BaseModel):
    """A section only opencode reads: its keys typed as opencode types them; other keys are dropped
    (as opencode drops them), not refused."""

    model_config = ConfigDict(extra="ignore", populate_by_name=False, strict=True)


class McpLocal(_OpencodeSection):
    """`mcp.<name>` with `type: local`: a server forge-tools starts as a subprocess."""

    type: Literal["local"]
    command: list[str]
    cwd: Opt[str] = None
    environment: Opt[dict[str, str]] = None
    enabled: Opt[bool] = None
    timeout: Opt[int] = Field(default=None, ge=1, description="Milliseconds to list its tools.")


class McpRemote(_OpencodeSection):
    """`mcp.<name>` with `type: remote`: a server reached over HTTP."""

    type: Literal["remote"]
    url: str
    enabled: Opt[bool] = None
    headers: Opt[dict[str, str]] = None
    oauth: Opt[dict[str, Any] | Literal[False]] = None
    timeout: Opt[int] = Field(default=None, ge=1, description="Milliseconds to list its tools.")


class McpToggle(_OpencodeSection):
    """`mcp.<name>` without `type`: turns a server defined in another config file on or off."""

    model_config = ConfigDict(json_schema_extra={"not": {"required": ["type"]}})

    enabled: bool


class _McpOtherType(_OpencodeSection):
    """An entry whose `type` is neither: only there so the error names the two types (not in the
    JSON Schema)."""

    type: Literal["local", "remote"]


#: one `mcp` entry: a local or remote server, or only `enabled`
McpEntry = Annotated[
    Annotated[McpLocal, Tag("<local>")] | Annotated[McpRemote, Tag("<remote>")]
    | Annotated[McpToggle, Tag("<toggle>")] | Annotated[SkipJsonSchema[_McpOtherType], Tag("<type>")],
    Discriminator(mcp_kind),
]


class SkillsConfig(_OpencodeSection):
    """`skills`: where opencode finds more skills."""

    paths: Opt[list[str]] = None
    urls: Opt[list[str]] = None


class ConfigModel(_Strict):
    """The whole config; field order is the order `config` prints known keys in documentation."""

    schema_: Opt[str] = Field(default=None, alias="$schema")
    # used by forge-tools
    permission: Opt[Permission] = None
    tools: Opt[dict[str, bool]] = None
    agent: Opt[dict[str, AgentConfig]] = None
    # a spec, or opencode's `[spec, options]` pair (the options go to the plugin)
    plugin: Opt[list[str | list[str | dict[str, Any]]]] = None
    model: Opt[ModelId] = None
    default_agent: Opt[str] = None
    tool_output: Opt[ToolOutputConfig] = None
    check: Opt[CheckSettings] = None
    # opencode's, accepted and ignored
    small_model: Opt[str] = None
    theme: Opt[str] = None
    keybinds: Opt[dict[str, Any]] = None
    logLevel: Opt[Literal["DEBUG", "INFO", "WARN", "ERROR"]] = None
    tui: Opt[dict[str, Any]] = None
    server: Opt[dict[str, Any]] = None
    command: Opt[dict[str, Any]] = None
    watcher: Opt[dict[str, Any]] = None
    snapshot: Opt[bool] = None
    share: Opt[Literal["manual", "auto", "disabled"]] = None
    autoshare: Opt[bool] = None
    autoupdate: Opt[bool | Literal["notify"]] = None
    disabled_providers: Opt[list[str]] = None
    enabled_providers: Opt[list[str]] = None
    username: Opt[str] = None
    mode: Opt[dict[str, AgentConfig]] = None  # opencode's deprecated form of primary agents
    provider: Opt[dict[str, Any]] = None
    mcp: Opt[dict[str, McpEntry]] = None
    formatter: Opt[bool | dict[str, dict[str, Any]]] = None
    lsp: Opt[bool | dict[str, dict[str, Any]]] = None
    instructions: Opt[list[str]] = None
    layout: Opt[Literal["auto", "stretch"]] = None
    enterprise: Opt[dict[str, Any]] = None
    compaction: Opt[dict[str, Any]] = None
    experimental: Opt[dict[str, Any]] = None
    skills: Opt[SkillsConfig] = None
    # opencode 1.18.33 also accepts these (tests/compat/layouts/config-keys); `references` dirs are
    # external_directory allows (permission.agents.reference_globs), the others change nothing here
    references: Opt[dict[str, Any]] = None
    reference: Opt[dict[str, Any]] = None  # opencode's deprecated name for `references`
    attachment: Opt[dict[str, Any]] = None
    shell: Opt[str] = None
    subagent_depth: Opt[int] = None
