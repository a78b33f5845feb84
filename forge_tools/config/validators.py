"""The few checks of the config schema that are code, not types, importable without pydantic.

The models in `config.schema` use them (`AfterValidator`, `Discriminator`), and the shipped core schema
(`config.core_schema`) names them by dotted path, so validating a config runs these same functions
without building a single model.
"""

from __future__ import annotations

import re
from typing import Any

#: how a model is named everywhere (config `model`, agent `model`, `--model`)
MODEL_FORM = "PROVIDER/MODEL (e.g. openai/gpt-5)"
CODE_PREFIX = re.compile(r"FT[0-9]{0,3}")


def permission_kind(value: Any) -> str:
    """The union tag of a permission value: an action, or a mapping."""
    return "<map>" if isinstance(value, dict) else "<action>"


def mcp_kind(value: Any) -> str:
    """The union tag of an `mcp` entry: by its `type` (`<type>` for any other, to say which are
    known), or only `enabled` when it has no `type`."""
    if not isinstance(value, dict) or "type" not in value:
        return "<toggle>"
    return {"local": "<local>", "remote": "<remote>"}.get(value["type"], "<type>")


def model_id_problem(value: str) -> str | None:
    """Why `value` is not a model id, or None. A model without its provider cannot be resolved (and a
    `{env:...}` provider that is unset leaves `/name`), so config and `--model` refuse it alike."""
    provider, slash, name = value.partition("/")
    if slash and provider and name:
        return None
    return f"expected {MODEL_FORM}, got {value!r}"


def model_id(value: str) -> str:
    problem = model_id_problem(value)
    if problem is not None:
        raise ValueError(problem)
    return value


def code_prefix(value: str) -> str:
    if not CODE_PREFIX.fullmatch(value):
        raise ValueError(f"{value!r} is not a finding code or prefix (e.g. FT104, FT1, FT)")
    return value
