"""FT115 agent-setting-typo: a check of the loaded config, run by `check.analysis.analyse`."""

from forge_tools.report.codeinfo import CodeInfo

RULE = CodeInfo(
    code="FT115",
    name="agent-setting-typo",
    level="warning",
    summary=(
        "A key under `agent.<name>` is no agent setting but is close to one: opencode passes "
        "unknown keys to the model as options, so the misspelt setting does nothing."
    ),
    help=(
        "Rename the key to the setting it names (the message says which), or leave it if it is a "
        "model option."
    ),
    why=(
        "opencode hands any key it does not know under `agent.<name>` to the model as an option, so a"
        " misspelt setting (`temprature`, `desription`) is accepted and silently has no effect."
    ),
    example='{"agent": {"build": {"temprature": 0.2}}}',
    fixed='{"agent": {"build": {"temperature": 0.2}}}',
    kind="context",
    check="forge_tools.check.analysis:agent_setting_typos",
)
