"""FT325 codex-config-stops: Codex CLI's files, found by `runtimes/codex/findings.py` for a project
with Codex CLI files (`runtimes/codex/files.findings`, run by `check.run.runtime_findings`)."""

from forge_tools.report.codeinfo import CodeInfo

RULE = CodeInfo(
    code='FT325',
    name='codex-config-stops',
    level='error',
    summary=(
        'A Codex CLI config value that stops Codex from starting: an unknown sandbox_mode, '
        'approval_policy or trust_level, approval_policy = "untrusted", or a legacy top-level '
        'profile = "NAME" (Codex 0.169 and 0.171 want --profile NAME with NAME.config.toml).'
    ),
    help='Use one of the values Codex names; for a profile, move its settings into NAME.config.toml.',
    why='Codex validates these values when it reads config.toml and exits with an error at the value.',
    example='sandbox_mode = "none"',
    fixed='sandbox_mode = "workspace-write"',
    kind="source",
    check="forge_tools.runtimes.codex.files:findings",
)
