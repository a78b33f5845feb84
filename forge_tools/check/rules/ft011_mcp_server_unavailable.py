"""FT011 mcp-server-unavailable: a problem of project code loaded with --load-code."""

from forge_tools.report.codeinfo import CodeInfo

RULE = CodeInfo(
    code="FT011",
    name="mcp-server-unavailable",
    level="warning",
    summary="An MCP server could not be started, reached or listed (checked with --load-code).",
    help=(
        "Start or fix the server (the message has its error and the tail of its stderr), or ignore "
        "FT011 where an outage must not fail the check; until then its tools are missing."
    ),
    why=(
        "With --load-code, check starts every configured MCP server to list its tools. A server that "
        "does not start in time, crashes or answers nothing is an outage rather than a config "
        "mistake: its tools are missing from this check (names that only it defines may then look "
        "unknown). A warning, so `--ignore FT011` or an inline `forge-tools: ignore FT011 -- reason` "
        "at the server's entry keeps one flaky server from failing CI; the failure is remembered for "
        "5 minutes."
    ),
    example='{"mcp": {"db": {"type": "local", "command": ["db-mcp", "--no-such-flag"]}}}',
    fixed='{"mcp": {"db": {"type": "local", "command": ["db-mcp"]}}}',
    kind="code",
    check="forge_tools.check.code_problems:problem_findings",
)
