"""FT112: a project file (or a project Markdown agent) turns a deny of the person's global config into
ask or allow. The load order allows it; `check` makes it visible, with both locations."""

from __future__ import annotations

import json

from forge_tools.check.context import CheckContext
from forge_tools.report.findings import Finding, Related


def project_loosens_global_deny(ctx: CheckContext) -> list[Finding]:
    if not ctx.loaded.personal_files:  # nothing global to loosen
        return []
    from forge_tools.permission.overrides import project_overrides

    findings: list[Finding] = []
    for override in project_overrides(ctx.loaded, ctx.enabled_agents):
        g, p = override.global_rule, override.project_rule
        agents = ", ".join(override.agents)
        message = (f"project rule {p.permission} {json.dumps(p.pattern)} {p.action} turns the global deny "
                   f"{g.permission} {json.dumps(g.pattern)} ({g.origin}) into {p.action} for "
                   f"{'agent' if len(override.agents) == 1 else 'agents'} {agents}")
        hint = ("nothing to do if the project may loosen your rule; otherwise remove the project rule or "
                "narrow it so no call the global deny covers matches it")
        findings.append(Finding("FT112", "warning", message, hint, p.origin,
                                (Related("global deny", g.origin),),
                                data={"global_rule": g.to_json(), "project_rule": p.to_json(),
                                      "agents": list(override.agents)}))
    return findings
