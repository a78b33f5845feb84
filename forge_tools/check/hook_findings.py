"""`check`'s findings about the agents' pre-tool hooks (issue 32 item 5; FT361-FT364): entries whose
program is missing, forge-tools' Claude Code hook without `"onFailure": "block"`, settings that turn
hooks off, and a weak deny (FT116 / FT307 / FT327) with no forge-tools hook installed for its agent."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from forge_tools.report.findings import Finding

#: the weak-deny finding of each agent, and the hook that holds it
WEAK = {"FT116": "opencode", "FT307": "claude", "FT327": "codex"}
LABEL = {"claude": "Claude Code", "codex": "Codex CLI", "gemini": "Gemini CLI", "opencode": "opencode"}


def hook_findings(project: Path, agents: Sequence[str], found: Sequence[Finding]) -> list[Finding]:
    """The hook findings for the agents the project configures (`agents`), beside `found`."""
    from forge_tools.runtimes.hooks import AGENTS, installed, switched_off

    out: list[Finding] = []
    present = {a: installed(a, project) for a in AGENTS if a in agents}
    for agent, hooks in present.items():
        for entry in hooks:
            if agent != "opencode" and not entry.program_exists():
                then = ("refuses every call" if agent == "gemini" else
                        "runs every call as if there were no hook")
                out.append(Finding("FT361", "error", f"{LABEL[agent]} hook: its program {entry.program!r} "
                                   f"does not exist, so {LABEL[agent]} {then}", origin=entry.origin,
                                   hint="forge-tools hook install --runtime " + agent))
            if agent == "claude" and entry.ours and entry.on_failure != "block":
                out.append(Finding("FT362", "warning", 'the forge-tools hook of Claude Code has no '
                                   '"onFailure": "block": a crash or timeout of the hook lets the call run',
                                   origin=entry.origin, hint="forge-tools hook install --runtime claude"))
        for origin, what in switched_off(agent, project):
            out.append(Finding("FT363", "warning", f"{what}: {LABEL[agent]} runs no hook from these files, "
                               "forge-tools' included", origin=origin))
    held: dict[str, bool] = {}  # agent -> a forge-tools hook of its is installed (read once, not per finding)
    for finding in found:
        weak = WEAK.get(finding.code)
        if weak is None:
            continue
        if weak not in held:
            held[weak] = any(e.ours for e in (present[weak] if weak in present else installed(weak, project)))
        if held[weak]:
            continue
        out.append(Finding("FT364", "warning", f"{LABEL[weak]} lets spellings of this deny through "
                           f"({finding.code}) and no forge-tools hook is installed to hold it",
                           origin=finding.origin, hint=f"forge-tools hook install --runtime {weak}"))
    return out
