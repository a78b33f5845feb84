"""forge-tools' idea of opencode's config keys against opencode's own (records in config_schema/, made
by its generate.py from @opencode-ai/sdk 1.18.33 and the real binary; no Node needed here).

The known differences are data: when a branch closes one, shrink its set and the test keeps it closed.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from forge_tools.config.validation import _known_keys, config_keys

HERE = Path(__file__).resolve().parent / "config_schema"
OPENCODE = json.loads((HERE / "opencode-1.18.33.schema.json").read_text())
OBSERVED = json.loads((HERE / "observed-1.18.33.json").read_text())
FORGE = json.loads((Path(__file__).resolve().parents[2] / "forge_tools" / "data"
                    / "forge-config.schema.json").read_text())

#: forge-tools' own keys (opencode does not have them)
FORGE_OWN = {"check"}
#: opencode accepts these, forge-tools refuses them (none left: references, reference, attachment, shell
#: and subagent_depth are accepted since they were recorded in tests/compat/layouts/config-keys)
OPENCODE_ONLY: set[str] = set()
#: forge-tools accepts these as opencode's, but opencode 1.18.33 drops them (moved to tui.json)
OPENCODE_DROPS = {"theme", "keybinds", "tui"}
#: keys whose types differ: none since `[name, {options}]` plugin entries are accepted (issue 30)
TYPE_DIFFERENCES: set[str] = set()


def _resolve(schema: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in node:
        section, name = node["$ref"].split("/")[-2:]
        node = schema[section][name]
    return node


def kinds(schema: dict[str, Any], node: dict[str, Any]) -> frozenset[str]:
    """A value's JSON types, with string literals (enums) spelled out; integer counts as number."""
    node = _resolve(schema, node)
    for union in ("anyOf", "oneOf"):
        if union in node:
            found = frozenset().union(*(kinds(schema, n) for n in node[union]))
            return found - {k for k in found if k.startswith('"')} if "string" in found else found
    if "const" in node:
        return frozenset({json.dumps(node["const"])})
    if "enum" in node:
        return frozenset(json.dumps(v) for v in node["enum"])
    kind = node.get("type", "any")
    return frozenset({"number" if kind == "integer" else kind})


def opencode_config() -> dict[str, Any]:
    return _resolve(OPENCODE, OPENCODE)


def test_top_level_keys_differ_only_as_listed() -> None:
    opencode, forge = set(opencode_config()["properties"]), set(config_keys())
    assert opencode - forge == OPENCODE_ONLY
    assert forge - opencode == FORGE_OWN | OPENCODE_DROPS


def test_the_binary_drops_what_the_record_says() -> None:
    assert set(OBSERVED["dropped"]) == OPENCODE_DROPS
    assert set(OBSERVED["kept"]) == set(opencode_config()["properties"]) - {"$schema"}


def test_agent_keys_are_opencode_agent_keys() -> None:
    agent = OPENCODE["definitions"]["AgentConfig"]["properties"]
    assert set(agent) == set(_known_keys(("agent", "*")))


def test_shared_keys_have_opencode_types() -> None:
    shared = (set(opencode_config()["properties"]) & set(FORGE["properties"])) - TYPE_DIFFERENCES
    theirs = opencode_config()["properties"]
    differ = {key: (kinds(FORGE, FORGE["properties"][key]), kinds(OPENCODE, theirs[key])) for key in shared}
    assert {k: v for k, v in differ.items() if v[0] != v[1]} == {}
    agent_oc = OPENCODE["definitions"]["AgentConfig"]["properties"]
    agent_ft = FORGE["$defs"]["AgentConfig"]["properties"]
    assert {k: (kinds(FORGE, agent_ft[k]), kinds(OPENCODE, agent_oc[k])) for k in agent_oc
            if kinds(FORGE, agent_ft[k]) != kinds(OPENCODE, agent_oc[k])} == {}


def test_mcp_entries_have_opencode_keys() -> None:
    for ours, theirs in (("McpLocal", "McpLocalConfig"), ("McpRemote", "McpRemoteConfig")):
        assert set(FORGE["$defs"][ours]["properties"]) == set(OPENCODE["definitions"][theirs]["properties"])
        assert set(FORGE["$defs"][ours]["required"]) == set(OPENCODE["definitions"][theirs]["required"])


def test_no_null_and_no_pretended_url() -> None:
    assert '"null"' not in json.dumps(FORGE)
    assert "$id" not in FORGE and "docs/schema.md" in FORGE["$comment"]
    assert (Path(__file__).resolve().parents[2] / "docs" / "schema.md").is_file()
