"""FT323 codex-project-not-trusted: Codex CLI's files, found by `runtimes/codex/findings.py` for a project
with Codex CLI files (`runtimes/codex/files.findings`, run by `check.run.runtime_findings`)."""

from forge_tools.report.codeinfo import CodeInfo

RULE = CodeInfo(
    code='FT323',
    name='codex-project-not-trusted',
    level='warning',
    summary=(
        "A project's .codex/config.toml or .codex/rules/*.rules that Codex CLI does not read: the"
        " project is not trusted in the user's config."
    ),
    help=(
        'Add [projects."<repository root>"] trust_level = "trusted" to ~/.codex/config.toml, or '
        'move the rules to ~/.codex/rules/.'
    ),
    why=(
        "Codex reads a project's .codex/ files only when the repository root is trusted in the "
        "user's config.toml; an entry for a subfolder does not trust the repository."
    ),
    example='',
    fixed='',
    kind="source",
    check="forge_tools.runtimes.codex.files:findings",
)
