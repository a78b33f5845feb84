"""FT112 project-loosens-global-deny: a check of the loaded config, run by `check.analysis.analyse`."""

from forge_tools.report.codeinfo import CodeInfo

RULE = CodeInfo(
    code="FT112",
    name="project-loosens-global-deny",
    level="warning",
    summary="A project file or project Markdown agent turns a deny of the global config into ask or allow.",
    help=(
        "Nothing to do if the project may loosen your rule; otherwise remove or narrow the project "
        "rule (the load order lets a project override the global config)."
    ),
    kind="context",
    check="forge_tools.check.global_overrides:project_loosens_global_deny",
)
