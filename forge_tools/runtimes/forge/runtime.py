"""The `forge` runtime: forge-tools' reader, resolver and fail-closed shell lowering, and its gate
(`visibility.call_decision.decide_call` over `permission.gate.dry_gate`) as the decider."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from forge_tools import __version__
from forge_tools.runtimes.base import OpencodeVocabulary, RuntimeAnswer

if TYPE_CHECKING:
    from forge_tools.permission.calls import CallDecision
    from forge_tools.visibility.pipeline import PipelineResult


class ForgeRuntime(OpencodeVocabulary):
    """forge-tools' own semantics; its answer is the gate's."""

    name = "forge"
    version = __version__

    def lower(self, line: str) -> list[str]:
        from forge_tools.tools.shell import command_patterns

        return command_patterns(line)

    def decide(self, result: PipelineResult, tool_id: str, args: dict[str, Any],
               project_root: Path, cwd: Path | None = None) -> RuntimeAnswer:
        from forge_tools.permission.gate import dry_gate
        from forge_tools.visibility.call_decision import decide_call

        decision = decide_call(result, tool_id, args, project_root, dry_gate(result.ruleset))
        return self.answer(decision, project_root)

    def answer(self, decision: CallDecision, project_root: Path | None = None) -> RuntimeAnswer:
        """A gate decision as this runtime's answer (the gate is this runtime's decider)."""
        return RuntimeAnswer(self.name, self.version, decision, gate_reason(decision, project_root))


def gate_reason(decision: CallDecision, project_root: Path | None = None) -> str:
    """The gate's answer in words: the refusal, or the deciding pattern and rule."""
    from forge_tools.visibility.call_decision import rule_origin_words

    if decision.refused is not None:
        return decision.refused
    check = decision.deciding
    if check is None:
        return "nothing to check"
    words = f"{check.permission} {check.pattern!r} is {check.action} by " \
            f"{rule_origin_words(check.deciding_rule, project_root)}"
    note = check.note
    return f"{words} ({note})" if note else words


RUNTIME = ForgeRuntime()
