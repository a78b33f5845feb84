"""FT106 unknown-agent: a check of the loaded config, run by `check.analysis.analyse`."""

from forge_tools.report.codeinfo import CodeInfo

RULE = CodeInfo(
    code="FT106",
    name="unknown-agent",
    level="error",
    summary=(
        "A reference names an agent that does not exist (`default_agent`: error; a `task` pattern: warning)."
    ),
    help="Fix the name (the message suggests close names) or define the agent under `agent`.",
    why=(
        "A reference to an agent that does not exist selects nothing: `default_agent` fails to start "
        "and a `task` pattern never matches."
    ),
    example='{"default_agent": "biuld"}',
    fixed='{"default_agent": "build"}',
    kind="context",
    check="forge_tools.check.analysis:unknown_agents",
)
