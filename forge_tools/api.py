"""The library front door (`import forge_tools`): load a project, ask whether a tool is visible for an
agent and why, decide a call, run a call.

Each function is a thin door onto the code the CLI runs: `resolve` is the visibility pipeline,
`decide_call` is what `check --expect` and `explain --call` ask (the permission gate with a dry
approver), `run_call` is `forge-tools run` (the real wrapper and the same gate). A call is always
decided whole: a bash command line is split into its commands first, so `git status && rm -rf /` is
`deny` when `rm *` is denied, never the `ask` a single pattern lookup of the whole line would give.

Project code (config-dir scripts, plugins) is imported only with `load_code=True`.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

    from forge_tools.call import RunOutcome
    from forge_tools.config.loader import LoadedConfig
    from forge_tools.permission.calls import CallDecision
    from forge_tools.permission.gate import Approve, PermissionSession
    from forge_tools.runtimes.across import AcrossAnswers
    from forge_tools.runtimes.compare import Answers
    from forge_tools.visibility.pipeline import McpScope, PipelineResult, ToolVerdict

def _loaded(project: LoadedConfig | str | Path | None) -> LoadedConfig:
    from forge_tools.config.loader import LoadedConfig, load_project

    if isinstance(project, LoadedConfig):
        return project
    return load_project(Path(project) if project is not None else None)


def resolve(project: LoadedConfig | str | Path | None = None, agent: str | None = None, *,
            model: str | None = None, client: str | None = None, flags: Iterable[str] = (),
            tools: Mapping[str, bool] | None = None, load_code: bool = False) -> PipelineResult:
    """One turn of the visibility pipeline for `agent` (default: the config's default agent):
    every candidate tool with every layer's verdict, the turn's ruleset and the problems found.
    As in the CLI, `client` defaults to `OPENCODE_CLIENT`, else `cli`, and opencode's environment
    switches (`OPENCODE_ENABLE_EXA`, ...) add to `flags`."""
    return _turn(_loaded(project), agent, model=model, client=client, flags=flags, tools=tools,
                 load_code=load_code)


def _turn(loaded: LoadedConfig, agent: str | None, *, model: str | None = None, client: str | None = None,
          flags: Iterable[str] = (), tools: Mapping[str, bool] | None = None, load_code: bool = False,
          mcp: McpScope | None = None) -> PipelineResult:
    """`resolve`, with how the turn uses the MCP servers (`run_call`: the one tool, sandboxed)."""
    from forge_tools.visibility.pipeline import Request
    from forge_tools.visibility.pipeline import resolve as resolve_turn
    from forge_tools.visibility.switches import turn_switches

    client, switched = turn_switches(client, flags)
    request = Request(agent=agent, model=model, client=client, flags=switched,
                      tool_overrides=dict(tools or {}))
    return resolve_turn(loaded, request, load_code=load_code, mcp=mcp)


def tool_visibility(project: LoadedConfig | str | Path | None, tool_id: str, agent: str | None = None,
                    *, load_code: bool = False) -> ToolVerdict:
    """Whether `tool_id` is visible to `agent`, and why: `.visible`, `.hidden_at`, `.reason` and each
    layer's verdict with its deciding rule (`.layers`). Unknown tools raise `UnknownNameError`."""
    return resolve(project, agent, load_code=load_code).require(tool_id, allow_hidden=True)


def decide_call(project: LoadedConfig | str | Path | None, tool_id: str, args: dict[str, Any],
                agent: str | None = None, *, session: PermissionSession | None = None,
                load_code: bool = False) -> CallDecision:
    """How the permission gate decides this call for `agent`, without running anything: `.action`
    (deny > ask > allow over every checked pattern), `.deciding_rule` and one `.checks` entry per
    pattern. An unknown or hidden tool, or arguments that do not fit, are a deny with `.refused`
    saying why. `session` (see `new_session`) carries earlier `always` answers."""
    from forge_tools.permission.gate import dry_gate
    from forge_tools.runtimes.gate_rules import project_gate
    from forge_tools.visibility.call_decision import decide_call as decide

    loaded = _loaded(project)
    result = project_gate(loaded, resolve(loaded, agent, load_code=load_code))[0]  # the agent's rules too
    return decide(result, tool_id, args, Path(loaded.project_root), dry_gate(result.ruleset, session))


def call_answers(project: LoadedConfig | str | Path | None, tool_id: str, args: dict[str, Any],
                 agent: str | None = None, *, runtime: str | None = None,
                 session: PermissionSession | None = None, load_code: bool = False,
                 launch: str | None = None) -> Answers:
    """Both answers about a call, as `explain --call` gives them: `.runtime` (what the answering agent
    does; the project's files choose it, as `agents --runtimes` shows: opencode 1.18.33 for opencode's
    files, forge-tools' gate for forge's, Claude Code 2.1.332 for a project with only Claude's
    `.claude/settings*.json`, Codex CLI 0.171.0 for only `.codex/` files, Gemini CLI 0.61 for only
    `.gemini/` files; `runtime` names one instead). The call may be written in any agent's words
    (`bash {"command"}`, `Bash`, `exec_command {"cmd"}`, `run_shell_command`, an MCP name in any
    agent's form): it is put in the answering agent's (`.translated` says how). `.gate` is
    `decide_call`'s decision, what `run_call` enforces (for Claude, of the same call under Claude's
    rules), `.chosen` which runtime and why, `.difference` the one line saying where they differ.
    `launch` is how the agent is started, as `--launch` takes it (`"codex exec -s workspace-write"`:
    its program answers; an unknown flag is a `UsageError`)."""
    from forge_tools.runtimes import runtime_for
    from forge_tools.runtimes.answer import call_answers as answers
    from forge_tools.runtimes.launch import choose, launched, parse_launch

    started = parse_launch(launch, where="launch") if launch is not None else None
    runtime = choose(started, runtime, where="runtime")
    with launched(started):
        loaded = _loaded(project)
        result = resolve(loaded, agent, load_code=load_code)
        return answers(runtime_for(loaded, runtime), loaded, result, tool_id, args, session=session)


def answers_by_runtime(project: LoadedConfig | str | Path | None, tool_id: str, args: dict[str, Any],
                       agent: str | None = None, *, runtimes: Iterable[str] | None = None,
                       load_code: bool = False) -> AcrossAnswers:
    """Every agent runtime's answer about one call, as `explain --call ... --runtime all` gives them:
    the call may be written in any agent's words (`bash {"command": ...}` or Claude Code's `Bash`);
    `.entries` holds one `RuntimeEntry` per agent runtime the project configures (or per name in
    `runtimes`): its call in its own words (`.call`, None where it has no such tool), `.action`, its
    `RuntimeAnswer` and `.words()` (the deciding rule at file:line:col). `.gate` is `decide_call`'s
    decision over forge-tools' config (what `run_call` enforces), `.summary()` the one line
    ("`git push`: opencode deny, Claude Code allow; forge-tools gate deny") and `.disagree` whether
    one agent denies what another allows."""
    from forge_tools.runtimes.across import answers_by_runtime as across

    loaded = _loaded(project)
    result = resolve(loaded, agent, load_code=load_code)
    return across(loaded, result, tool_id, args, list(runtimes) if runtimes is not None else None,
                  load_code=load_code)


def new_session(project: LoadedConfig | str | Path | None = None, agent: str | None = None, *,
                load_code: bool = False) -> PermissionSession:
    """A permission session over `agent`'s rules: pass it to `decide_call` and `run_call` so an
    `always` answer given in one call applies to the next."""
    from forge_tools.permission.gate import PermissionSession

    return PermissionSession(tuple(resolve(project, agent, load_code=load_code).ruleset))


def run_call(project: LoadedConfig | str | Path | None, tool_id: str, args: dict[str, Any],
             agent: str | None = None, *, approve: Approve | None = None,
             session: PermissionSession | None = None, timeout: float | None = None,
             force_hidden: bool = False, load_code: bool = False) -> RunOutcome:
    """Run one call as `forge-tools run` does: the tool must be visible (unless `force_hidden`), its
    input is validated, every permission goes to the gate and `ask`s to `approve(question) -> Answer`
    (default: reject each one), the tool executes and its output is truncated. Returns the outcome
    with the exit code the CLI would use and one decision record per checked pattern."""
    from forge_tools.call import RunSpec, runnable_tool
    from forge_tools.call import run_call as run
    from forge_tools.permission.gate import policy_approver
    from forge_tools.runtimes.gate_rules import project_gate
    from forge_tools.visibility.pipeline import McpScope

    loaded = _loaded(project)
    sandbox = RunSpec.sandbox  # the default setting of `run`'s sandbox (auto)
    # a local MCP server started to list the tool runs inside the call's sandbox, as under `forge-tools run`
    turn = _turn(loaded, agent, load_code=load_code, mcp=McpScope(tool_id=tool_id, sandbox=sandbox))
    result = project_gate(loaded, turn)[0]  # the agent's rules too
    tool = runnable_tool(result.require(tool_id, allow_hidden=force_hidden))
    spec = RunSpec(tool.id, dict(args), approve or policy_approver("reject"),
                   policy="library" if approve is not None else "reject", force_hidden=force_hidden,
                   timeout=timeout, session=session, sandbox=sandbox)
    return run(loaded, result, tool, spec)
