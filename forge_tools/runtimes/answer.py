"""The answering agent's answer about one call, the one way every command gets it (issue 28).

`runtimes.runtime_for` picks the answering runtime from the project's files; `call_answers` puts the
call (written in any agent's words: `bash`, `Bash`, `exec_command`, `run_shell_command`, an MCP name
in any agent's form) in that runtime's words (`vocabulary.translate`), asks that runtime's decider, and
puts forge-tools' gate (`visibility.call_decision.decide_call`, what `run` enforces) beside it.
`explain --call`, `check --expect`, `diff --expect` and the library's `call_answers` all come here, so
the same call gets the same agent's answer whichever command asks and however the tool is spelled.

`notes` says what the answering agent leaves out (`ignored_files`: a rules file an untrusted project's
agent does not read, with the fix) and which of its built-in checks decided (`builtin_checks`); `others`
gives one line per other agent the repository configures whose answer differs.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from forge_tools.config.loader import LoadedConfig
    from forge_tools.permission.calls import CallDecision
    from forge_tools.permission.gate import PermissionSession
    from forge_tools.runtimes import Chosen
    from forge_tools.runtimes.base import RuntimeAnswer
    from forge_tools.runtimes.compare import Answers
    from forge_tools.runtimes.found import Ignored
    from forge_tools.visibility.pipeline import PipelineResult

#: the runtimes whose agents are opencode's (a turn is one agent's); the others have none
WITH_AGENTS = frozenset({"opencode", "forge"})


def has_agents(runtime: str) -> bool:
    """Whether the runtime's answers are per agent (opencode's `build`, `plan`, ...)."""
    return runtime in WITH_AGENTS


def call_answers(chosen: Chosen, loaded: LoadedConfig, result: PipelineResult, tool: str,
                 args: dict[str, Any], decided: CallDecision | None = None, *,
                 session: PermissionSession | None = None) -> Answers:
    """The chosen runtime's answer about `tool` `args` (any agent's spelling) beside the gate's
    decision of the same call in forge-tools' words (`decided` when already made), over `result`'s
    turn with the answering agent's rules in the gate's terms (`runtimes/gate_rules.gate_turn`);
    `session` carries earlier `always` answers."""
    from forge_tools.runtimes.across import mcp_servers
    from forge_tools.runtimes.compare import Answers
    from forge_tools.runtimes.found import agent_cwd
    from forge_tools.runtimes.vocabulary import translate
    from forge_tools.visibility.call_decision import decide_call

    runtime = chosen.runtime
    root, cwd = Path(loaded.project_root), agent_cwd(loaded)
    words = translate(runtime.name, tool, args, mcp_servers(loaded))
    own, shared = words.own, words.shared
    if runtime.name == "claude" and own is not None:
        from forge_tools.runtimes.claude.decide import decide
        from forge_tools.runtimes.claude.gate import gate_decision
        from forge_tools.runtimes.claude.runtime import ClaudeRuntime

        assert isinstance(runtime, ClaudeRuntime)  # the chosen one: a `claude@VERSION` pin too
        settings = runtime.settings(cwd)
        answer = runtime.answer(decide(settings, own.tool, own.args, cwd), own.tool, own.args)
        if decided is None:
            decided, untranslated = gate_decision(result, settings, own.tool, own.args, root)
            if untranslated and answer.extra is not None:
                answer.extra["gate_untranslated"] = list(untranslated)
        return Answers(chosen, answer, decided, words.said)
    if decided is None:
        from forge_tools.permission.gate import dry_gate
        from forge_tools.runtimes.gate_rules import gate_turn

        turn, _ = gate_turn(result, runtime.name, cwd, root)
        decided = decide_call(turn, shared.tool, shared.args, root, dry_gate(turn.ruleset, session))
    if own is None:
        answer = no_such_tool(runtime.name, runtime.version, tool, args, words.said or "")
    elif runtime.name == "forge":
        from forge_tools.runtimes.forge.runtime import RUNTIME as FORGE

        answer = FORGE.answer(decided, root)
    else:
        answer = runtime.decide(result, own.tool, own.args, root, cwd)
    return Answers(chosen, answer, decided, words.said)


def no_such_tool(name: str, version: str, tool: str, args: dict[str, Any], why: str) -> RuntimeAnswer:
    """The answer of an agent that has no such tool: the model cannot make the call (a deny)."""
    from forge_tools.permission.calls import CallDecision
    from forge_tools.runtimes.base import RuntimeAnswer

    refused = why or f"{tool} is not a tool of this agent"
    return RuntimeAnswer(name, version, CallDecision((), dict(args), refused=refused), refused,
                         {"no_such_tool": True})


def others(loaded: LoadedConfig, result: PipelineResult, tool: str, args: dict[str, Any],
           both: Answers) -> list[str]:
    """One line per other agent runtime the repository configures whose answer about the call differs
    from the answering one's: `Codex CLI 0.171.0 would deny it: forbidden prefix_rule ... at ...`."""
    from forge_tools.runtimes.across import answers_by_runtime
    from forge_tools.runtimes.found import found_runtimes

    answering = both.chosen.runtime.name
    names = [f.name for f in found_runtimes(loaded) if f.agent and f.name != answering]
    if not names:
        return []
    across = answers_by_runtime(loaded, result, tool, args, names, gate=False)
    lines = []
    for e in across.entries:
        got = e.action or "deny"
        if got != both.runtime.action:
            lines.append(f"{e.runtime.label} would {got} it: {e.words(across.root)}")
    return lines


def ignored_files(name: str, loaded: LoadedConfig) -> list[Ignored]:
    """The files runtime `name` would read here but does not (an untrusted project, folder trust,
    managed-only rules, a rules file it refuses), each with the reason and the fix: its package's
    `files.ignored` (none for a runtime without one)."""
    from importlib import import_module

    from forge_tools.runtimes import RUNTIMES

    files = import_module(f"{RUNTIMES[name]}.files")
    ignored = getattr(files, "ignored", None)
    return list(ignored(loaded)) if ignored is not None else []


def builtin_checks(answer: RuntimeAnswer) -> list[str]:
    """The agent's own built-in checks (no rule of any file) that took part in the answer, in its words:
    Gemini's dangerous-command heuristic, Codex's safe-command list and approval policy, Claude's
    read-only commands."""
    extra = answer.extra or {}
    said: dict[str, None] = {}
    for key in ("gemini_steps", "codex_checks", "claude_checks"):
        for step in extra.get(key, ()):
            if step.get("rule") is None and step.get("why"):
                said.setdefault(f"{step['why']} ({step.get('subject', '')})", None)
    return list(said)


def framing(chosen: Chosen, loaded: LoadedConfig, result: PipelineResult | None, tool: str,
            args: dict[str, Any] | None, both: Answers | None = None,
            translated: str | None = None) -> dict[str, Any]:
    """What every answer says around itself (explain's text and JSON, whoever answers): who answers and
    why (`runtime`), what of the call was translated, the files the agent ignores, the built-in checks
    that decided, and the other configured agents whose answer differs (with a call)."""
    said = both.translated if both is not None else translated
    launch = chosen.launch
    asks = both is not None and both.runtime.action == "ask"
    headless = (f"{launch.text!r} asks nobody: a call that would ask does not run"
                if launch is not None and launch.headless and asks else None)
    return {"runtime": chosen.to_json() | {"display": chosen.display}, "headless": headless,
            "translated": said,
            "ignored": [i.to_json() for i in ignored_files(chosen.runtime.name, loaded)],
            "builtin_checks": builtin_checks(both.runtime) if both is not None else [],
            "hook": forge_hook(chosen.runtime.name, loaded, tool, args),
            "others": (others(loaded, result, tool, args, both)
                       if both is not None and result is not None and args is not None else [])}


def forge_hook(name: str, loaded: LoadedConfig, tool: str, args: dict[str, Any] | None
               ) -> dict[str, Any] | None:
    """forge-tools' own pre-tool hook (`forge-tools hook`) for agent runtime `name`, when one is
    installed where that agent reads it (`runtimes.hooks.hook_said`): whether it runs, and with a call
    what it decides before the agent's own rules (the call in the agent's words, as its hook gets it)."""
    from forge_tools.runtimes.hooks import AGENTS

    if name not in AGENTS:
        return None
    from forge_tools.runtimes.across import mcp_servers
    from forge_tools.runtimes.found import agent_cwd, display_name
    from forge_tools.runtimes.hooks import hook_said
    from forge_tools.runtimes.vocabulary import translate

    own = translate(name, tool, args or {}, mcp_servers(loaded)).own if args is not None else None
    return hook_said(name, display_name(name), Path(loaded.project_root), agent_cwd(loaded),
                     own.tool if own is not None else None, own.args if own is not None else None)


def head_lines(data: dict[str, Any]) -> list[str]:
    """The first lines: `Answering: Codex CLI 0.171.0 (config: ...)`, then what was translated."""
    runtime = data["runtime"]
    note = f"; {runtime['installed']}" if runtime.get("installed") else ""
    lines = [f"Answering: {runtime['display']} ({runtime['chosen_by']}){note}"]
    if runtime.get("version_warning"):
        lines.append(runtime["version_warning"])
    if data.get("translated"):
        lines.append(f"  translated: {data['translated']}")
    return lines


def tail_lines(data: dict[str, Any]) -> list[str]:
    """The last lines: each ignored file with its fix, each built-in check, each other agent."""
    from forge_tools.runtimes.found import display_name

    agent = display_name(data["runtime"]["name"])
    lines = [f"headless: {data['headless']}"] if data.get("headless") else []
    lines += [f"ignored: {agent} does not read {i['path']}: {i['reason']}; fix: {i['fix']}"
              for i in data.get("ignored", [])]
    lines += [f"built-in check: {agent}: {c}" for c in data.get("builtin_checks", [])]
    if data.get("hook"):
        lines.append(f"hook: {data['hook']['line']}")
    lines += [f"other agent: {line}" for line in data.get("others", [])]
    return lines
