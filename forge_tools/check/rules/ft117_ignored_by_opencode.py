"""FT117 ignored-by-opencode: a ConfigError raised with this code."""

from forge_tools.report.codeinfo import CodeInfo

RULE = CodeInfo(
    code="FT117",
    name="ignored-by-opencode",
    level="warning",
    summary=(
        "opencode ignores part of its own config: a key it does not know (it drops it silently), "
        "or an OPENCODE_PERMISSION that is not JSON (it warns and goes on). forge-tools loads the"
        " config as opencode does and says so here; in forge's own files an unknown key is the "
        "error FT004."
    ),
    help=(
        "Fix the key's spelling (the message suggests the closest known key) or remove it; give "
        "OPENCODE_PERMISSION a JSON object."
    ),
    why=(
        "opencode 1.18.33 drops every key it does not know from its files without a word, so a "
        "misspelt setting (`permisions`) silently does nothing; forge-tools loads the file the same "
        "way (the key is ignored, every command runs) and `check` names the key with the closest "
        "known one. forge's own files (forge.json, forge.yaml, ...) stay strict: there an unknown key"
        " is FT004 and stops the load."
    ),
    example='{"permisions": {"bash": "deny"}}  // in opencode.json',
    fixed='{"permission": {"bash": "deny"}}',
    kind="config",
    check="forge_tools.config.reader:read_source",
)
