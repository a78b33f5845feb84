"""FT111 opencode-refuses-pattern-map: a scan of each config file before loading."""

from forge_tools.report.codeinfo import CodeInfo

RULE = CodeInfo(
    code="FT111",
    name="opencode-refuses-pattern-map",
    level="warning",
    summary=(
        "An opencode.json gives a pattern map for a permission that opencode accepts only as one "
        "action (doom_loop, question, todowrite, webfetch, websearch): opencode refuses to start "
        "with it."
    ),
    help=(
        "Give that permission one action, or move the map to a forge.* file (opencode does not read those)."
    ),
    why=(
        "opencode accepts only one action for doom_loop, question, todowrite, webfetch and websearch "
        "in opencode.json and refuses to start with a pattern map there."
    ),
    example='// opencode.json\n{"permission": {"webfetch": {"*": "ask"}}}',
    fixed='// opencode.json\n{"permission": {"webfetch": "ask"}}',
    kind="source",
    check="forge_tools.check.opencode_compat:action_only_maps",
)
