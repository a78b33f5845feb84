"""What Codex CLI 0.171 does with one tool call, from the settings it reads (`config.read_codex`).

Verified against the binary (tests/compat/codex): the exec policy's matches and decision for an
argv, which files and rules Codex loads (trust, layers, a refused file empties the policy), the MCP
servers it starts, and under `approval_policy = "never"` (what `codex exec` runs with) the lowering
of `exec_command`'s line (`shell.lower`), `prompt` becoming a refusal and the fallback for a command
no rule matches. Modelled (each check says `fidelity: modelled`): the same under an approval policy
that asks a person, apply_patch under the sandbox, MCP tools' `enabled_tools` / `disabled_tools`
and MCP calls' approval.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from forge_tools.runtimes.codex.config import CodexSettings
from forge_tools.runtimes.codex.rules import PrefixRule

Behavior = Literal["allow", "ask", "deny"]
Fidelity = Literal["reproduced", "modelled"]
ACTION = {"allow": "allow", "prompt": "ask", "forbidden": "deny"}
SHELL_TOOLS = ("exec_command", "shell", "local_shell")
#: the tools Codex 0.171 offers through code mode's `exec` with no MCP server configured (recorded;
#: `clock__curr_time` is Codex's own clock tool, there with no MCP server and an empty HOME)
CODE_MODE_TOOLS = ("apply_patch", "clock__curr_time", "exec_command", "list_mcp_resource_templates",
                   "list_mcp_resources", "read_mcp_resource", "view_image", "write_stdin")
#: commands Codex runs without asking when no rule matches (a small part of its safe list, modelled)
SAFE = {"ls", "cat", "pwd", "echo", "head", "tail", "wc", "grep", "rg", "find", "true", "which",
        "sort", "uniq", "cut", "stat", "nl", "tr", "file", "date", "whoami"}
SAFE_GIT = {"status", "log", "diff", "show", "branch"}


#: what Codex does with a command, in the words of tests/compat/codex/record.py's `outcome`
Outcome = Literal["ran", "sandboxed", "forbidden", "approval-required", "rejected", "ask", "refused"]
#: which refusal Codex gives when a line's commands are refused for different reasons (first wins)
_REFUSALS = {"forbidden": 0, "rejected": 1, "approval-required": 2}


@dataclass(frozen=True)
class CodexCheck:
    subject: str  # the command (shell-joined argv) or the tool
    behavior: Behavior
    why: str
    fidelity: Fidelity
    rule: PrefixRule | None = None
    outcome: Outcome = "refused"


@dataclass
class CodexDecision:
    tool: str
    checks: list[CodexCheck] = field(default_factory=list)
    offered: bool = True

    @property
    def behavior(self) -> Behavior:
        order = {"allow": 0, "ask": 1, "deny": 2}
        return max((c.behavior for c in self.checks), key=order.__getitem__, default="allow")

    @property
    def deciding(self) -> CodexCheck | None:
        """The first check of the strictest behaviour; of refusals, a forbidden rule's before an `rm
        -f` style refusal before an approval `never` cannot give (recorded: `curl -X && ls` with ls
        forbidden and curl prompt is refused as forbidden)."""
        behavior = self.behavior
        strictest = [c for c in self.checks if c.behavior == behavior]
        return min(strictest, key=lambda c: _REFUSALS.get(c.outcome, len(_REFUSALS)), default=None)

    @property
    def outcome(self) -> Outcome:
        """What Codex does with the whole call: the deciding check's outcome, and a command whose
        parts are allowed runs in the sandbox when any part is allowed only by the sandbox."""
        deciding = self.deciding
        if deciding is None:
            return "ran"
        if deciding.behavior == "allow" and any(c.outcome == "sandboxed" for c in self.checks):
            return "sandboxed"
        return deciding.outcome


def _dangerous(argv: tuple[str, ...]) -> bool:
    """`rm -f`, `rm -rf`, `rm --force`, ...: what Codex refuses under approval_policy never, wherever
    it is in the line (recorded: the program's basename, `/usr/bin/rm` and `./rm` too; through `sudo`
    and `env` with no option of theirs, a redirection, a list, a nested `bash -lc`; not through
    `sudo -n`, `timeout` or `nice`; an `-f` after `--` is a file; `git reset --hard`, `git clean -fd`
    and plain `rm` run)."""
    from forge_tools.runtimes.codex.shell import every_command

    return any(_rm_force(cmd) for cmd in every_command(argv))


def _rm_force(argv: tuple[str, ...]) -> bool:
    while len(argv) > 1 and argv[0].rsplit("/", 1)[-1] in ("sudo", "env") and not argv[1].startswith("-"):
        argv = argv[1:]
    if not argv or argv[0].rsplit("/", 1)[-1] != "rm":
        return False
    for arg in argv[1:]:
        if arg == "--":
            return False
        if arg == "--force" or (arg.startswith("-") and not arg.startswith("--") and "f" in arg):
            return True
    return False


def _safe(argv: tuple[str, ...]) -> bool:
    if not argv:
        return False
    if argv[0] == "git":
        return len(argv) > 1 and argv[1] in SAFE_GIT
    if argv[0] == "find":
        return not any(a in ("-exec", "-execdir", "-delete", "-ok") for a in argv)
    return argv[0] in SAFE


def _verified(settings: CodexSettings) -> Fidelity:
    """The shell lowering and the fallback are recorded under approval_policy never (what `codex
    exec` runs with); under an approval policy that asks a person they are modelled."""
    return "reproduced" if settings.approval_policy == "never" else "modelled"


def fallback(settings: CodexSettings, argv: tuple[str, ...]) -> CodexCheck:
    """No rule matches `argv`: Codex's approval policy and sandbox decide."""
    check = _fallback(settings, argv)
    fidelity = _verified(settings)
    why = check.why if fidelity == "reproduced" else f"modelled: {check.why}"
    return CodexCheck(check.subject, check.behavior, why, fidelity, None, check.outcome)


def _fallback(settings: CodexSettings, argv: tuple[str, ...]) -> CodexCheck:
    subject = shlex.join(argv)
    approval, sandbox = settings.approval_policy, settings.sandbox_mode
    if _dangerous(argv):
        if approval == "never":
            return CodexCheck(subject, "deny", "no rule; Codex refuses an `rm -f` style command under "
                              "approval_policy never", "modelled", None, "rejected")
        return CodexCheck(subject, "ask", f"no rule; a dangerous command asks ({approval})", "modelled",
                          None, "ask")
    where: Outcome = "ran" if sandbox == "danger-full-access" else "sandboxed"
    runs = "runs" if where == "ran" else f"runs in the sandbox (sandbox_mode {sandbox})"
    if _safe(argv):
        return CodexCheck(subject, "allow", f"no rule; a known safe command {runs}", "modelled", None, where)
    if approval == "unless-trusted":
        return CodexCheck(subject, "ask", "no rule allows it; approval_policy unless-trusted (the "
                          "project is marked untrusted) asks", "modelled", None, "ask")
    later = ("" if approval == "never"
             else f"; approval_policy {approval}: a failure there may ask to run it outside")
    return CodexCheck(subject, "allow", f"no rule; {runs}{later}", "modelled", None, where)


def decide_argv(settings: CodexSettings, argv: tuple[str, ...], cwd: Path, lowered: bool) -> CodexCheck:
    policy = settings.policy
    evaluation = policy.evaluate(argv, True, cwd)
    deciding = evaluation.deciding
    if deciding is None:
        return fallback(settings, argv)
    rule = deciding.rule
    behavior: Behavior = ACTION[rule.decision]  # type: ignore[assignment]
    why = f"prefix_rule {rule.text()} ({rule.decision}) at {rule.origin}"
    outcome: Outcome = {"allow": "ran", "ask": "ask", "deny": "forbidden"}[behavior]  # type: ignore[assignment]
    fidelity: Fidelity = _verified(settings) if lowered else "reproduced"
    if behavior == "ask" and settings.approval_policy == "never":
        behavior, outcome = "deny", "approval-required"
        why += "; approval_policy never refuses what would ask"
    if lowered and fidelity == "modelled":
        why += " (modelled: how Codex's shell tool turns the line into this argv)"
    return CodexCheck(shlex.join(argv), behavior, why, fidelity, rule, outcome)


def decide(settings: CodexSettings, tool: str, args: dict[str, Any], cwd: Path) -> CodexDecision:
    """Codex's answer about `tool` (its own name: `exec_command`, `apply_patch`, `mcp__srv__tool`)."""
    from forge_tools.runtimes.codex.shell import lower

    out = CodexDecision(tool)
    if settings.start_error is not None:
        out.offered = False
        out.checks.append(CodexCheck(tool, "deny", f"Codex does not start: {settings.start_error}",
                                     "reproduced"))
        return out
    if tool in SHELL_TOOLS:
        command = args.get("cmd", args.get("command"))
        if isinstance(command, list):
            out.checks.append(decide_argv(settings, tuple(str(c) for c in command), cwd, False))
            return out
        if not isinstance(command, str):
            out.offered = False
            out.checks.append(CodexCheck(tool, "deny", "no `cmd` string in the call", "reproduced"))
            return out
        lowered = lower(command, login=args.get("login", True) is not False)
        for argv in lowered.commands:
            out.checks.append(decide_argv(settings, argv, cwd, True))
        return out
    if tool == "apply_patch":
        out.checks.append(_patch(settings, args, cwd))
        return out
    if tool.startswith("mcp__"):
        server, _, name = tool[len("mcp__"):].partition("__")
        offered, why = settings.mcp_tool_offered(server, name)
        if not offered:
            out.offered = False
            out.checks.append(CodexCheck(tool, "deny", f"no such tool: {why}", "reproduced"))
            return out
        out.checks.append(_mcp(settings, server, name))
        return out
    out.offered = False
    out.checks.append(CodexCheck(tool, "deny", f"Codex CLI has no tool {tool!r}", "modelled"))
    return out


def _patch(settings: CodexSettings, args: dict[str, Any], cwd: Path) -> CodexCheck:
    path = args.get("path") or args.get("filePath")
    sandbox, approval = settings.sandbox_mode, settings.approval_policy
    inside = True
    if isinstance(path, str):
        full = Path(path) if Path(path).is_absolute() else cwd / path
        root = settings.project_root
        inside = full.resolve() == root or root in full.resolve().parents
    subject = f"apply_patch {path}" if path else "apply_patch"
    if sandbox == "danger-full-access" or (sandbox == "workspace-write" and inside):
        return CodexCheck(subject, "allow", f"sandbox_mode {sandbox} lets it write there", "modelled")
    behavior: Behavior = "deny" if approval == "never" else "ask"
    where = "outside the workspace" if not inside else "under a read-only sandbox"
    return CodexCheck(subject, behavior, f"a write {where} (sandbox_mode {sandbox}, approval_policy "
                      f"{approval})", "modelled")


def _mcp(settings: CodexSettings, server: str, tool: str) -> CodexCheck:
    conf = settings.mcp_servers().get(server, {})
    tools = conf.get("tools")
    own = tools.get(tool) if isinstance(tools, dict) else None
    mode = own.get("approval_mode") if isinstance(own, dict) else None
    mode = mode or conf.get("default_tools_approval_mode", "auto")
    subject = f"mcp__{server}__{tool}"
    if mode == "approve":
        return CodexCheck(subject, "allow", f"approval_mode approve ({server})", "modelled")
    behavior: Behavior = "deny" if settings.approval_policy == "never" and mode == "prompt" else "ask"
    return CodexCheck(subject, behavior, f"an MCP call asks (approval_mode {mode})", "modelled")
