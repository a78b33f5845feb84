"""The one decision behind `forge-tools hook` (issue 32), which `explain` and `check --expect` also ask
(`runtimes.hooks.hook_said`): one agent's tool call, decided by the gate
over the rules that agent reads, translated into the gate's terms (`runtimes/gate_rules.py`).

The hook only ever adds refusals: its rules are an allow of everything (the agent then decides as it
would without the hook, its own prompts included) followed by the agent's written rules (for opencode,
the default agent's rules from the person's files). So a `deny` the agent's rule meant is a deny here
too, also where the agent's own reading lets a spelling through (`/bin/rm`, `sudo rm`, `bash -c 'rm'`),
and the gate's opaque reading makes `ask` what it cannot pin down. Neither pydantic nor the tools'
runners are imported for the common tools (`tools/builtins/requests.py`).
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any, Literal

from forge_tools.lazy_re import lazy
from forge_tools.named_tuple import NamedTuple
from forge_tools.origin import Origin
from forge_tools.rule import Rule

Decision = Literal["allow", "ask", "deny"]
NO_RULE = Origin("default", name="no rule of the agent's: the agent decides")

#: the agent tools the shared vocabulary does not name, as (forge-tools tool, {their arg: ours})
EXTRA_CALLS: dict[str, tuple[str, dict[str, str]]] = {
    "MultiEdit": ("edit", {"file_path": "filePath"}),
    "NotebookEdit": ("edit", {"notebook_path": "filePath"}),
    "read_many_files": ("read", {}),
}
_URL = lazy(r"https?://[^\s<>\"'`)\]]+")


class Unreadable(Exception):
    """A known tool's input the hook cannot read: the guard denies the call."""


class Verdict(NamedTuple):
    """What the hook answers: `action` None means no decision (the agent decides)."""

    action: Decision | None
    reason: str
    rule: Rule | None = None
    tool: str = ""  # the gate's tool or permission it decided as
    note: str | None = None  # for the audit log (an unknown tool, ...)

    def to_json(self) -> dict[str, Any]:
        return {"action": self.action or "none", "reason": self.reason, "gate_tool": self.tool,
                "rule": self.rule.to_json() if self.rule is not None else None, "note": self.note}


def hook_rules(runtime: str, cwd: Path, root: Path) -> tuple[Rule, ...]:
    """An allow of everything, then the agent's written rules in the gate's terms."""
    base = Rule("*", "*", "allow", NO_RULE)
    if runtime == "opencode":
        return (base, *_opencode_rules(cwd, root))
    from forge_tools.runtimes.gate_rules import translate

    translation = translate(runtime, cwd, root)
    return (base, *(translation.written if translation is not None else ()))


def _opencode_rules(cwd: Path, root: Path) -> tuple[Rule, ...]:
    """The default agent's rules from opencode's files a person wrote (its defaults are opencode's
    own decision, not the hook's)."""
    from forge_tools.config.loader import LoadOptions, load_config
    from forge_tools.permission.agents import default_agent_name, load_agents
    from forge_tools.runtimes.gate_rules import WRITTEN

    loaded = load_config(LoadOptions(cwd=cwd, project=root))
    agents = load_agents(loaded)
    agent = agents[default_agent_name(loaded, agents)]
    return tuple(r for r in agent.ruleset if r.origin.kind in WRITTEN)


def gate_call(tool: str, args: dict[str, Any]) -> tuple[str, dict[str, Any], tuple[str, str] | None]:
    """The call in forge-tools' words (tool id, arguments, MCP (server, tool) or None)."""
    extra = EXTRA_CALLS.get(tool)
    if extra is not None:
        name, keys = extra
        return name, {keys[k]: v for k, v in args.items() if k in keys}, None
    from forge_tools.runtimes.vocabulary import shared_call

    if "." in tool and not tool.startswith("mcp") and tool.count(".") == 1:  # Codex's `server.tool`
        server, _, name = tool.partition(".")
        tool = f"mcp__{server}__{name}"
    shared = shared_call(tool, args)
    return shared.tool, shared.args, shared.mcp


def decide(runtime: str, tool: str, args: Any, cwd: Path) -> Verdict:
    """The gate's verdict on one call of the agent's tool `tool` with input `args`, started in `cwd`."""
    from forge_tools.paths import git_top_or

    if not isinstance(args, dict):
        raise Unreadable(f"the input of {tool} is not an object")
    root = git_top_or(cwd)
    rules = hook_rules(runtime, cwd, root)
    forge_id, forge_args, mcp = gate_call(tool, args)
    requests = _requests(forge_id, forge_args, tool, root)
    if requests is None:  # a tool the gate has no builtin for: MCP, or one it does not know
        return _by_name(forge_id if mcp is not None else _permission(runtime, tool), tool, rules,
                        mcp is not None)
    from forge_tools.permission.gate import dry_decide, dry_gate

    decision = dry_decide(dry_gate(rules), requests, forge_args)
    return _verdict(decision, forge_id)


def _permission(runtime: str, tool: str) -> str:
    if runtime == "gemini":
        from forge_tools.runtimes.gemini.gate import permission

        return permission(tool)
    return tool


def _requests(forge_id: str, args: dict[str, Any], tool: str, root: Path) -> list[Any] | None:
    from forge_tools.tools.builtins.requests import REQUESTS

    entry = REQUESTS.get(forge_id)
    if entry is None:
        from forge_tools.tools.context import ToolContext

        return _other_builtin(forge_id, args, tool, ToolContext(agent="build", project_root=root))
    # what the lean request builders read of a ToolContext (`tools/builtins/requests.py`): the project
    # root, and no output store or peek of a run (building the real one costs the hook a thirtieth)
    ctx: Any = SimpleNamespace(agent="build", project_root=root, outputs=None, peek=None, extra={})
    if forge_id == "webfetch" and isinstance(args.get("url"), str) and not _URL().fullmatch(args["url"]):
        urls = _URL().findall(args["url"])  # Gemini's web_fetch takes a prompt with the URLs in it
        if not urls:
            return []
        from forge_tools.tools.builtins.requests import webfetch

        return [r for u in urls for r in webfetch(SimpleNamespace(url=u), ctx)]
    make, required, optional = entry
    for key in required:
        if not isinstance(args.get(key), str) or not args[key]:
            raise Unreadable(f"{tool} without a readable {key!r}")
    for key in optional:
        if args.get(key) is not None and not isinstance(args[key], str):
            raise Unreadable(f"{tool} with an unreadable {key!r}")
    values = {k: args.get(k) for k in (*required, *optional)}
    try:
        return make(SimpleNamespace(**values), ctx)
    except Exception as exc:
        raise Unreadable(f"{tool}: {exc}") from exc


def _other_builtin(forge_id: str, args: dict[str, Any], tool: str, ctx: Any) -> list[Any] | None:
    """A builtin outside the lean table (apply_patch): its own requests, through its model."""
    from forge_tools.names import ALL_BUILTINS

    if forge_id not in ALL_BUILTINS or forge_id in ("invalid",):
        return None
    from forge_tools.tools.arguments import default_permission_requests, permission_requests_for
    from forge_tools.tools.builtins import import_builtin
    from forge_tools.tools.wrapper import validate_args

    built = import_builtin(forge_id)
    if built.permission_requests is None:
        return default_permission_requests(built)
    try:
        return permission_requests_for(built, validate_args(built, args), ctx)
    except Exception as exc:
        raise Unreadable(f"{tool}: {str(exc).strip().splitlines()[0] if str(exc).strip() else exc}") from exc


def _by_name(permission: str, tool: str, rules: tuple[Rule, ...], mcp: bool) -> Verdict:
    """A tool the gate has no builtin for: decided only when a rule names it."""
    from forge_tools.permission.evaluate import evaluate

    found = evaluate(permission, "*", rules)
    if found.rule is None or found.rule.origin == NO_RULE:
        what = "an MCP tool" if mcp else "a tool forge-tools does not know"
        return Verdict(None, f"{tool} is {what} and no rule names it: the agent decides", None, permission,
                       note="unknown tool" if not mcp else None)
    if found.action == "allow":
        return Verdict(None, f"allowed by {_words(found.rule)}", found.rule, permission)
    return Verdict(found.action, f"{tool}: {found.action} by {_words(found.rule)}", found.rule, permission)


def _verdict(decision: Any, forge_id: str) -> Verdict:
    action = decision.action
    deciding = decision.deciding
    rule = decision.deciding_rule
    if action == "allow":
        return Verdict(None, "the gate allows it: the agent decides", rule, forge_id)
    if deciding is None:
        return Verdict(action, decision.refused or f"the gate says {action}", rule, forge_id)
    subject = f"{deciding.permission} {deciding.pattern!r}"
    if deciding.escalated_by is not None and deciding.note:
        return Verdict(action, f"{subject}: {deciding.note}", rule, forge_id)
    by = _words(rule) if rule is not None else "no rule (the gate asks)"
    return Verdict(action, f"{subject}: {action} by {by}", rule, forge_id)


def _words(rule: Rule) -> str:
    return f"rule {rule.permission} {rule.pattern!r} at {rule.origin}"


#: below the agent's own rules in the sandbox's: `run`'s sandbox over opencode's defaults (the project
#: writable, an outside directory only where a rule allows it, the network only for a program that
#: needs it or where a rule allows webfetch)
SANDBOX_BASE = (Rule("*", "*", "allow", NO_RULE), Rule("external_directory", "*", "ask", NO_RULE),
                Rule("webfetch", "*", "ask", NO_RULE))
#: above them: the agents' config folders stay read-only inside, so no sandboxed command can rewrite the
#: rules (or the hook entry) the next call is decided by
AGENT_DIRS = (".claude", ".codex", ".gemini", ".opencode", ".forge")
HELD = Origin("default", name="forge-tools hook --sandbox: the agents' config is read-only inside")
SHELL = "/bin/bash"  # what `run`'s bash runs a command line with (tools/builtins/bash.py)
#: where the sandboxed command starts: the directory the agent's shell runs the line in (its tracked
#: cwd after a `cd`, Gemini's `dir_path`, opencode's `workdir`), as the agent's own shell finds it
HERE = '"$PWD"'


class NoSandbox(Exception):
    """The sandbox was asked for but cannot be built or started here: the hook refuses the call."""


def sandboxed(runtime: str, tool: str, args: dict[str, Any], cwd: Path) -> str:
    """An allowed shell call's command line rewritten to run inside the bubblewrap sandbox `run` puts a
    command in (`tools/sandbox.py`), derived from the agent's rules in the gate's terms: edit-denied
    paths read-only, read-denied ones hidden, the agents' config folders read-only, a private /tmp and
    home, outside directories only where a rule allows them, the network only where `run` would give
    it. Raises NoSandbox when bubblewrap cannot start here or the project cannot
    be mapped (the hook then refuses the call: a sandbox asked for is never silently dropped)."""
    import shlex
    import shutil

    from forge_tools.paths import git_top_or
    from forge_tools.tools.sandbox import availability, bwrap_argv, call_plan

    command = args.get("command")
    if not isinstance(command, str):
        raise Unreadable(f"{tool} without a readable 'command'")
    why_not = availability()
    if why_not is not None:
        raise NoSandbox(why_not)
    root = git_top_or(cwd)
    written = hook_rules(runtime, cwd, root)[1:]
    held = tuple(Rule("edit", p, "deny", HELD) for d in AGENT_DIRS for p in (d, f"{d}/*"))
    forge_id, forge_args, _ = gate_call(tool, args)
    # the call's own outside paths are not approved here (the hook's gate allows what no rule names):
    # outside the project only what a rule allows is mounted, the system folders read-only
    requests = [r for r in _requests(forge_id, forge_args, tool, root) or []
                if r.permission != "external_directory"]
    plan = call_plan({"ruleset": (*SANDBOX_BASE, *written, *held)}, root, requests)
    if plan.problem is not None:
        raise NoSandbox(plan.problem)
    bwrap = shutil.which("bwrap") or "bwrap"  # by its absolute path: the agent's PATH cannot swap it
    argv = bwrap_argv(plan, [SHELL, "-c", command], str(cwd), bwrap)
    at = argv.index("--chdir")  # bwrap_argv ends `--chdir DIR -- COMMAND...`
    return f"{shlex.join(argv[:at])} --chdir {HERE} {shlex.join(argv[at + 2:])}"


def agent_allows(runtime: str, tool: str, args: dict[str, Any], cwd: Path) -> bool:
    """Whether the agent itself, by its own rules and modes as forge-tools reproduces them, runs the call
    without asking (a rewrite may then carry an `allow`, which skips the agent's prompt but nothing the
    agent would not do anyway)."""
    from forge_tools.paths import git_top_or
    from forge_tools.runtimes import get_runtime

    if runtime == "opencode":
        return False
    decider: Any = get_runtime(runtime)  # the agents' own deciders need no pipeline turn
    answer = decider.decide(None, tool, args, git_top_or(cwd), cwd)
    return bool(answer.action == "allow")
