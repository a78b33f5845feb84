"""The `claude` runtime: Claude Code 2.1.332's settings reader (`settings.py`), resolver
(`decide.py`), shell lowering (`shell.py`) and tool names (`tools.py`), checked against its binary in
tests/compat/claude.

Claude's answer is decided from Claude's own files (found from the working directory, `HOME` and
`CLAUDE_CONFIG_DIR`); the `result` the seam passes (forge-tools' turn, the gate's view) is not read
by it. A call names Claude's tool and input: `Bash {"command": ...}`, `Read {"file_path": ...}`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from forge_tools.runtimes.base import OpencodeVocabulary, RuntimeAnswer

if TYPE_CHECKING:
    from forge_tools.permission.calls import CallDecision
    from forge_tools.runtimes.claude.decide import ClaudeDecision
    from forge_tools.runtimes.claude.settings import ClaudeOptions, ClaudeSettings
    from forge_tools.visibility.pipeline import PipelineResult

VERSION = "2.1.332"


class ClaudeRuntime(OpencodeVocabulary):
    """Claude Code 2.1.332, reproduced (weaknesses included: `git -C . push` passes a
    `Bash(git push *)` deny, as in the binary)."""

    name = "claude"
    version = VERSION

    def settings(self, cwd: Path, env: Mapping[str, str] | None = None,
                 options: ClaudeOptions | None = None, **kw: Any) -> ClaudeSettings:
        from forge_tools.runtimes.claude.settings import read_settings

        return read_settings(cwd, env, options, **kw)

    def lower(self, line: str) -> list[str]:
        from forge_tools.runtimes.claude.shell import lower

        return [p.text for p in lower(line)]

    def decide(self, result: PipelineResult | None, tool_id: str, args: dict[str, Any],
               project_root: Path, cwd: Path | None = None,
               settings: ClaudeSettings | None = None) -> RuntimeAnswer:
        from forge_tools.runtimes.claude.decide import decide

        here = Path(cwd or project_root)
        settings = settings if settings is not None else self.settings(here, os.environ)
        return self.answer(decide(settings, tool_id, args, here), tool_id, args)

    def answer(self, decision: ClaudeDecision, tool: str, args: dict[str, Any]) -> RuntimeAnswer:
        check = decision.deciding
        reason = check.why if check is not None else "nothing to decide"
        fidelity = ("modelled" if any(c.fidelity == "modelled" for c in decision.checks)
                    else "reproduced")
        extra = {"reason_type": decision.reason_type, "offered": decision.offered,
                 "fidelity": fidelity,
                 "claude_checks": [{"subject": c.subject, "behavior": c.behavior, "why": c.why,
                                    "fidelity": c.fidelity,
                                    "rule": c.rule.to_json() if c.rule is not None else None}
                                   for c in decision.checks]}
        return RuntimeAnswer(self.name, self.version, call_decision(decision, tool, args), reason, extra)


def call_decision(decision: ClaudeDecision, tool: str, args: dict[str, Any]) -> CallDecision:
    """Claude's decision in the seam's record: one check per subject, its rule as a `Rule`
    (permission: the Claude tool; pattern: the rule's content, `*` for a bare tool)."""
    from forge_tools.permission.calls import CallDecision, PatternDecision
    from forge_tools.rule import Rule

    checks = []
    for c in decision.checks:
        rule = (Rule(c.rule.tool, c.rule.content if c.rule.content is not None else "*",
                     c.rule.behavior, c.rule.origin) if c.rule is not None else None)
        checks.append(PatternDecision(c.rule.tool if c.rule is not None else tool, c.subject,
                                      c.behavior, rule))
    if not decision.offered:
        rule = checks[0].rule if checks else None
        return CallDecision((), dict(args), refused=decision.checks[0].why, refused_by=rule)
    return CallDecision(tuple(checks), dict(args))


RUNTIME = ClaudeRuntime()
