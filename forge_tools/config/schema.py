"""The one config schema (every format, every source): the pydantic models, its single source of truth.

Each source is validated on its own before merging, so an error always points at the file, line and
column that caused it. opencode's keys forge-tools does not use are accepted (an opencode.json loads
unchanged); anything else is an unknown key with a did-you-mean.

Loading a config never imports this module: `config.validation` validates with the models' core schema
shipped by `config.core_schema` (regenerate it after an edit here). The JSON Schema (`config.json_schema`)
and `LoadedConfig.data` come from these models.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Discriminator, Field, Tag

from forge_tools.config.validation import agent_option_keys, located_errors, validate_tree, validation_errors
from forge_tools.config.validators import (
    CODE_PREFIX,
    MODEL_FORM,
    code_prefix,
    model_id,
    model_id_problem,
    permission_kind,
)
from forge_tools.permission.model import ACTIONS, Action

__all__ = ["ACTIONS", "CODE_PREFIX", "MODEL_FORM", "Action", "AgentConfig", "CheckSettings", "CodePrefix",
           "ConfigModel", "ModelId", "Permission", "PermissionEntry", "ToolOutputConfig", "agent_option_keys",
           "located_errors", "model_id_problem", "validate_tree", "validation_errors"]

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


#: a config `model` value, checked like `--model`
ModelId = Annotated[str, AfterValidator(model_id)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=False, strict=True)


class ToolOutputConfig(_Strict):
    """forge's own truncation settings: lines and bytes a tool's output may reach the model with, and
    how many days full-output files are kept."""

    max_lines: int | None = Field(default=None, ge=1)
    max_bytes: int | None = Field(default=None, ge=1)
    retention_days: int | None = Field(default=None, ge=0)


#: a finding code (FT104) or a prefix of codes (FT1, FT)
CodePrefix = Annotated[str, AfterValidator(code_prefix),
                       Field(json_schema_extra={"pattern": f"^{CODE_PREFIX.pattern}$"})]


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
    # opencode 1.18.33 also accepts these (tests/compat/layouts/config-keys); `references` dirs are
    # external_directory allows (permission.agents.reference_globs), the others change nothing here
    references: dict[str, Any] | None = None
    reference: dict[str, Any] | None = None  # opencode's deprecated name for `references`
    attachment: dict[str, Any] | None = None
    shell: str | None = None
    subagent_depth: int | None = None
