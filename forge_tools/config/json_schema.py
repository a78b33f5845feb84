"""The JSON Schema of a forge-tools config, built from the pydantic model (`schema.ConfigModel`).

Editors use it for completion and errors while typing: `$schema` in forge.json, a
`# yaml-language-server: $schema=...` line in forge.yaml, taplo's `#:schema` in forge.toml. The
permission value gets the action enum and the known permission names; any other name is still
accepted (a project or MCP tool), which `check` then looks at (FT101).

The package ships the result as `forge_tools/data/forge-config.schema.json`, so `forge-tools schema`
prints it without importing pydantic; a test keeps the shipped copy equal to `build_schema()`.
"""

from __future__ import annotations

import json
from typing import Any

#: no `$id`: the schema is published nowhere, so no URL may claim it is; it is printed by
#: `forge-tools schema` and documented in the repository's docs/schema.md
SCHEMA_COMMENT = ("printed by `forge-tools schema` (the same for every install of this version); documented "
                  "in docs/schema.md of forge-tools")
SHIPPED = "forge-config.schema.json"

_DESCRIPTIONS = {
    "$schema": "The JSON Schema this file follows (for editors); ignored by forge-tools.",
    "permission": "Permission rules: one action for everything, or permission name -> action, or name -> "
                  "{pattern: action}. The last matching rule decides; a tool whose last rule is "
                  "`\"*\": \"deny\"` is hidden from the model.",
    "tools": "Legacy per-tool booleans (true: allow, false: deny); prefer `permission`.",
    "agent": "Agents by name: builtin ones (build, plan, general, explore) are changed, others defined.",
    "plugin": "Plugins to load (npm package names or file paths).",
    "model": "The model as PROVIDER/MODEL, e.g. openai/gpt-5.",
    "default_agent": "The primary agent used when none is named.",
    "tool_output": "How long tool outputs may be before they are cut, and how long full outputs are kept.",
    "check": "Settings of `forge-tools check` (put them in a forge.* file or pyproject.toml "
             "[tool.forge-tools.check]: opencode refuses unknown keys in opencode.json).",
}

_PERMISSION_WORDS = {
    "edit": "file changes: edit, write, apply_patch, multiedit and patch are all checked as `edit`",
    "external_directory": "paths outside the project (patterns are directories)",
    "doom_loop": "the same call repeated three times in a row",
    "bash": "shell commands (patterns match the command text)",
    "read": "reading files (patterns match paths)",
    "webfetch": "fetching URLs (patterns match the URL)",
    "task": "starting subagents (patterns match agent names)",
    "skill": "loading skills (patterns match skill names)",
}


def _action() -> dict[str, Any]:
    return {"type": "string", "enum": ["allow", "ask", "deny"],
            "description": "allow: run without asking; ask: ask the user; deny: refuse."}


def build_schema() -> dict[str, Any]:
    """The schema, from the model plus the permission vocabulary."""
    from forge_tools.config.schema import ConfigModel
    from forge_tools.names import EDIT_FAMILY, known_permission_names

    schema = ConfigModel.model_json_schema(by_alias=True)
    defs = schema.setdefault("$defs", {})
    defs["Action"] = _action()
    defs["PermissionEntry"] = {
        "description": "One action for every call, or pattern -> action (the last matching pattern wins).",
        "oneOf": [{"$ref": "#/$defs/Action"},
                  {"type": "object", "additionalProperties": {"$ref": "#/$defs/Action"}}],
    }
    names = sorted(n for n in known_permission_names() if n != "invalid")
    properties = {}
    for name in names:
        words = _PERMISSION_WORDS.get(name)
        if name in EDIT_FAMILY and name != "edit":
            words = f"never matches a call: {name} is checked as `edit` (FT110)"
        properties[name] = {"$ref": "#/$defs/PermissionEntry",
                            "description": words or f"calls of the {name} tool"}
    defs["Permission"] = {
        "description": _DESCRIPTIONS["permission"],
        "oneOf": [{"$ref": "#/$defs/Action"},
                  {"type": "object", "properties": properties,
                   "additionalProperties": {"$ref": "#/$defs/PermissionEntry"}}],
    }
    for holder in (schema, defs["AgentConfig"]):
        holder["properties"]["permission"] = {"$ref": "#/$defs/Permission"}
    for key, text in _DESCRIPTIONS.items():
        if key in schema["properties"]:
            schema["properties"][key]["description"] = text
    schema.pop("title", None)
    schema.pop("description", None)
    _drop_null_defaults(schema)
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "$comment": SCHEMA_COMMENT,
            "title": "forge-tools config (forge.json, forge.yaml, forge.toml, opencode.json)",
            "description": "Permissions, agents, plugins and tool output settings of forge-tools; "
                           "opencode's own keys are accepted.", **schema}


def _drop_null_defaults(node: Any) -> None:
    """`"default": null` on an optional key says nothing (the key is absent) and contradicts its type,
    which never admits null (`schema.Opt`)."""
    if isinstance(node, dict):
        if node.get("default", ...) is None:
            del node["default"]
        for value in node.values():
            _drop_null_defaults(value)
    elif isinstance(node, list):
        for item in node:
            _drop_null_defaults(item)


def schema_text() -> str:
    return json.dumps(build_schema(), indent=2, ensure_ascii=False) + "\n"


def shipped_text() -> str:
    """The copy in the package (what `forge-tools schema` prints)."""
    from importlib.resources import files

    return (files("forge_tools") / "data" / SHIPPED).read_text(encoding="utf-8")
