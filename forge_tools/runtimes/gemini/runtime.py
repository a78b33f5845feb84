"""The `gemini` runtime: Gemini CLI 0.61's answer about a call, from Gemini's own files (found from
the working directory and `HOME`), decided by the reproduced policy engine. A call names Gemini's tool
and arguments (`run_shell_command {"command": ...}`, `read_file {"file_path": ...}`,
`mcp_server_tool`); the `result` the seam passes (forge-tools' turn) is not read."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from forge_tools.runtimes.base import OpencodeVocabulary, RuntimeAnswer

if TYPE_CHECKING:
    from forge_tools.permission.calls import CallDecision
    from forge_tools.runtimes.gemini.engine import GeminiDecision
    from forge_tools.runtimes.gemini.policy import GeminiRule
    from forge_tools.runtimes.gemini.settings import GeminiSettings
    from forge_tools.visibility.pipeline import PipelineResult

VERSION = "0.61.0"
#: what forge-tools models and has no record of (said in every answer's `modelled`)
MODELLED = ("safety checkers (autoEdit's allowed-path, conseca) are not run",
            "$VAR expansion in settings values is not done",
            "extension policies and IDE trust are not read")


class GeminiRuntime(OpencodeVocabulary):
    """Gemini CLI 0.61, reproduced (weaknesses included: `tools.core` can beat a user TOML deny)."""

    name = "gemini"
    version = VERSION

    def settings(self, cwd: Path, env: Mapping[str, str] | None = None, *, mode: str | None = None,
                 interactive: bool = True) -> GeminiSettings:
        from forge_tools.runtimes.gemini.settings import read_settings

        return read_settings(cwd, env, mode=mode, interactive=interactive)

    def lower(self, line: str) -> list[str]:
        from forge_tools.runtimes.gemini.shell import REDIRECTION_NAMES, parse_details

        parsed = parse_details(line)
        if parsed is None:
            return []
        return [d.text for d in parsed.details if d.name not in REDIRECTION_NAMES]

    def decide(self, result: PipelineResult | None, tool_id: str, args: dict[str, Any],
               project_root: Path, cwd: Path | None = None,
               settings: GeminiSettings | None = None) -> RuntimeAnswer:
        from forge_tools.runtimes.gemini.engine import Engine

        here = Path(cwd or project_root)
        settings = settings if settings is not None else self.settings(here, os.environ)
        if settings.start_error is not None:
            from forge_tools.permission.calls import CallDecision

            refused = f"Gemini CLI does not start: {settings.start_error}"
            refusal = CallDecision((), dict(args), refused=refused)
            return RuntimeAnswer(self.name, self.version, refusal, refused,
                                 {"fidelity": "reproduced", "gemini_decision": None})
        tool_id, args = gemini_call(tool_id, args)
        not_reached = _refusal(settings, tool_id, args)
        if not_reached is not None:
            return not_reached
        decision = Engine(settings).check(tool_id, args)
        return self.answer(decision, tool_id, args, settings)

    def answer(self, decision: GeminiDecision, tool: str, args: dict[str, Any],
               settings: GeminiSettings) -> RuntimeAnswer:
        rule = decision.rule
        reason = (f"{decision.decision} by {rule.describe()}" if rule is not None
                  else f"{decision.decision}: " + (decision.steps[-1].why if decision.steps else "no rule"))
        unverified = modelled_part(decision, tool, settings)
        if unverified is not None:
            reason += f" (modelled: {unverified})"
        extra = {"gemini_decision": decision.decision, "modelled": list(MODELLED),
                 "fidelity": "modelled" if unverified is not None else "reproduced",
                 "trusted": settings.trusted, "mode": settings.mode, "interactive": settings.interactive,
                 "gemini_steps": [{"subject": s.subject, "decision": s.decision, "why": s.why,
                                   "rule": s.rule.to_json() if s.rule is not None else None}
                                  for s in decision.steps],
                 "gemini_rule": rule.to_json() if rule is not None else None}
        return RuntimeAnswer(self.name, self.version, call_decision(decision, tool, args), reason, extra)


def _refusal(settings: GeminiSettings, tool: str, args: dict[str, Any]) -> RuntimeAnswer | None:
    """Gemini's answer when the call never reaches its policy engine: a tool it does not offer (an
    MCP tool it never registers or removes), an edit outside the workspace (`registry`)."""
    from forge_tools.permission.calls import CallDecision
    from forge_tools.runtimes.gemini.registry import not_offered, path_refusal

    hidden = not_offered(settings, tool)
    if hidden is not None:
        why = f"Gemini CLI does not offer {tool}: {hidden}"
        return RuntimeAnswer("gemini", VERSION, CallDecision((), dict(args), refused=why), why,
                             {"offered": False, "fidelity": "reproduced", "gemini_decision": None})
    path = path_refusal(settings, tool, args)
    if path is not None:
        why = f"Gemini CLI refuses the call: {path}"
        return RuntimeAnswer("gemini", VERSION, CallDecision((), dict(args), refused=why), why,
                             {"offered": True, "fidelity": "reproduced", "gemini_decision": None})
    return None


def modelled_part(decision: GeminiDecision, tool: str, settings: GeminiSettings) -> str | None:
    """What of this answer forge-tools has not reproduced, or None: an allowed edit in autoEdit mode
    passes Gemini's allowed-path safety checker too (an edit outside the workspace is refused
    before, `registry.path_refusal`; the checker's sensitive-path and `.vscode` checks are not
    run); a settings value with `$VAR` is expanded by Gemini (not here)."""
    if decision.decision == "allow" and settings.mode == "autoEdit" and tool in ("write_file", "replace"):
        return "Gemini's allowed-path safety checker also judges this edit (sensitive paths); it is not run"
    if any("$" in json.dumps(node.plain()) for node in settings.merged.values()):
        return "a settings value holds `$VAR`, which Gemini expands and forge-tools does not"
    return None


def gemini_call(tool: str, args: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """A call in Gemini's words: a Gemini tool name as it is, a forge-tools id (`bash`, `read`) or
    another agent's name (`Bash`) put in Gemini's (`run_shell_command`); MCP as `mcp_server_tool`."""
    from forge_tools.runtimes.gemini.tools import known
    from forge_tools.runtimes.vocabulary import own_call, shared_call

    if known(tool) and not tool.startswith("mcp__"):
        return tool, dict(args)
    own = own_call("gemini", shared_call(tool, args))
    return (own.tool, own.args) if own is not None else (tool, dict(args))


def as_rule(rule: GeminiRule) -> Any:
    """A Gemini rule in the seam's `Rule` terms: permission the tool name, pattern what narrows it
    (the command prefix, the argsPattern, or `*`)."""
    from forge_tools.origin import Origin
    from forge_tools.rule import Rule

    action = {"ask_user": "ask"}.get(rule.decision, rule.decision)
    pattern = (" ".join(rule.command_prefix) if rule.command_prefix else rule.args_pattern or "*")
    origin = rule.origin if rule.origin is not None else Origin("default", name=rule.source)
    return Rule(rule.tool_name, pattern, action, origin)  # type: ignore[arg-type]


def call_decision(decision: GeminiDecision, tool: str, args: dict[str, Any]) -> CallDecision:
    """Gemini's decision as one check (the rule Gemini names, if any)."""
    from forge_tools.permission.calls import CallDecision, PatternDecision

    subject = str(args.get("command", tool)) if isinstance(args, dict) else tool
    rule = as_rule(decision.rule) if decision.rule is not None else None
    check = PatternDecision(tool, subject, decision.action, rule)  # type: ignore[arg-type]
    return CallDecision((check,), dict(args))


RUNTIME = GeminiRuntime()
