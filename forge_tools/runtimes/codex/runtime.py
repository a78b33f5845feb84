"""The `codex` runtime: Codex CLI 0.171.0, checked against its binary in tests/compat/codex (where
0.169.0's records are kept beside it).

Codex's answer is decided from Codex's own files (found from the working directory, `HOME` and
`CODEX_HOME`); the `result` the seam passes (forge-tools' turn) is not read by it. A call names
Codex's tool: `exec_command {"cmd": ...}`, `apply_patch {...}`, `mcp__server__tool`; a call in
forge-tools' words (`bash {"command"}`) is put in Codex's first (`runtimes/vocabulary.py`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from forge_tools.runtimes.base import OpencodeVocabulary, RuntimeAnswer

if TYPE_CHECKING:
    from forge_tools.permission.calls import CallDecision
    from forge_tools.runtimes.codex.config import CodexSettings
    from forge_tools.runtimes.codex.decide import CodexDecision
    from forge_tools.visibility.pipeline import PipelineResult

VERSION = "0.171.0"


class CodexRuntime(OpencodeVocabulary):
    """Codex CLI 0.171.0: exec-policy rules, the shell lowering and the fallback under approval
    never reproduced; an approval policy that asks a person modelled (each answer's `fidelity`)."""

    name = "codex"
    version = VERSION

    def settings(self, cwd: Path, env: Mapping[str, str] | None = None,
                 overrides: list[str] | None = None, profile: str | None = None) -> CodexSettings:
        """What Codex reads started in `cwd` (`overrides`: `-c key=value`; `profile`: `--profile`)."""
        from forge_tools.runtimes.codex.config import read_codex

        return read_codex(cwd, env, overrides, profile=profile)

    def lower(self, line: str) -> list[str]:
        import shlex

        from forge_tools.runtimes.codex.shell import lower

        return [shlex.join(argv) for argv in lower(line).commands]

    def decide(self, result: PipelineResult | None, tool_id: str, args: dict[str, Any],
               project_root: Path, cwd: Path | None = None,
               settings: CodexSettings | None = None) -> RuntimeAnswer:
        from forge_tools.runtimes.codex.decide import decide

        here = Path(cwd or project_root)
        settings = settings if settings is not None else self.settings(here, os.environ)
        tool, own = own_words(tool_id, args)
        return self.answer(decide(settings, tool, own, here), tool, own)

    def answer(self, decision: CodexDecision, tool: str, args: dict[str, Any]) -> RuntimeAnswer:
        check = decision.deciding
        reason = check.why if check is not None else "nothing to decide"
        fidelity = "modelled" if any(c.fidelity == "modelled" for c in decision.checks) else "reproduced"
        modelled = [_modelled_part(c.why) for c in decision.checks if c.fidelity == "modelled"]
        notes = (["modelled, not verified against the binary: " + "; ".join(dict.fromkeys(modelled))]
                 if modelled else [])
        extra = {"offered": decision.offered, "fidelity": fidelity, "notes": notes,
                 "codex_checks": [{"subject": c.subject, "behavior": c.behavior, "why": c.why,
                                   "fidelity": c.fidelity,
                                   "rule": c.rule.text() if c.rule is not None else None,
                                   "origin": str(c.rule.origin) if c.rule is not None else None}
                                  for c in decision.checks]}
        return RuntimeAnswer(self.name, self.version, call_decision(decision, tool, args), reason, extra)


def _modelled_part(why: str) -> str:
    """What of a check's reason is modelled: its `(modelled: ...)` part, or the whole reason."""
    if "(modelled: " in why:
        return why.rpartition("(modelled: ")[2].rstrip(")")
    return why.removeprefix("modelled: ")


def own_words(tool: str, args: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """The call in Codex's words: a Codex tool name as it is, else translated from the shared
    vocabulary (`bash {"command"}` is `exec_command {"cmd"}`); a tool Codex lacks keeps its name."""
    from forge_tools.runtimes.codex.decide import SHELL_TOOLS
    from forge_tools.runtimes.vocabulary import own_call, shared_call

    if tool in SHELL_TOOLS or tool == "apply_patch" or tool.startswith("mcp__"):
        return tool, dict(args)
    own = own_call("codex", shared_call(tool, args))
    return (own.tool, own.args) if own is not None else (tool, dict(args))


def call_decision(decision: CodexDecision, tool: str, args: dict[str, Any]) -> CallDecision:
    """Codex's decision in the seam's record: one check per command (or tool); its rule as a `Rule`
    (permission: the tool; pattern: the prefix_rule's pattern as written)."""
    from forge_tools.permission.calls import CallDecision, PatternDecision
    from forge_tools.rule import Rule

    checks = []
    for c in decision.checks:
        rule = Rule(tool, c.rule.text(), c.behavior, c.rule.origin) if c.rule is not None else None
        checks.append(PatternDecision(tool, c.subject, c.behavior, rule))
    if not decision.offered:
        return CallDecision((), dict(args), refused=decision.checks[0].why if decision.checks else "refused")
    return CallDecision(tuple(checks), dict(args))


RUNTIME = CodexRuntime()
