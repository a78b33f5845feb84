"""FT119 left-out-of-the-answers: a `ConfigWarning` (sources.config_warnings), said by every command."""

from forge_tools.report.codeinfo import CodeInfo

RULE = CodeInfo(
    code="FT119",
    name="left-out-of-the-answers",
    level="warning",
    summary=(
        "Part of the config that forge-tools reads but leaves out of its answers: a local opencode "
        "plugin (`.opencode/plugin/*.ts`, `.js`, `.mjs`), which forge-tools does not load, or an MCP "
        "server with an empty name."
    ),
    help=(
        "Write the plugin in Python for forge-tools (or know that its tools and hooks are missing); "
        "give the MCP server a name."
    ),
    why=(
        "opencode loads its TypeScript and JavaScript plugins; forge-tools runs Python plugins only, "
        "so the tools and hooks such a plugin adds are not in any answer. A server with an empty name "
        "gives tool ids that start with `_`, which no rule written for a server names. `layers`, "
        "`explain`, `run` and `check` all say so, with the place, from one list."
    ),
    example='{"mcp": {"": {"type": "local", "command": ["server"]}}}',
    fixed='{"mcp": {"files": {"type": "local", "command": ["server"]}}}',
    kind="config",
    check="forge_tools.sources.config_warnings:config_warnings",
)
