"""Claude Code's start flags (`claude -p --permission-mode acceptEdits --add-dir ../lib`), read with its
own grammar (recorded: tests/compat/claude/launch-*.json) into `ClaudeOptions`, which the settings
reader (`settings.read_settings`) takes as the command line of the session."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from forge_tools.runtimes.launch import flag_dest, neutral_flags

if TYPE_CHECKING:
    from forge_tools.runtimes.launch import Launch

#: `--permission-mode`'s choices, as the binary lists them (`default` is taken too, unlisted)
MODES = ("acceptEdits", "auto", "bypassPermissions", "manual", "dontAsk", "plan", "default")
#: flags that change no permission answer: (names, takes a value)
NEUTRAL = ((("--model",), True), (("--input-format",), True),
           (("--verbose",), False), (("--append-system-prompt",), True), (("--system-prompt",), True),
           (("-c", "--continue"), False), (("-n", "--name"), True), (("--session-id",), True),
           (("--effort",), True), (("--fallback-model",), True), (("--no-session-persistence",), False),
           (("--include-partial-messages",), False), (("--json-schema",), True),
           (("--max-budget-usd",), True), (("--allow-dangerously-skip-permissions",), False),
           (("--exclude-dynamic-system-prompt-sections",), False), (("--replay-user-messages",), False))
#: flags Claude has that change what it offers or allows in ways forge-tools does not reproduce
NOT_MODELLED = {"--tools": "the built-in tool list it sets is not read",
                "--restricted": "restricted mode is not modelled",
                "--mcp-config": "MCP servers from the command line are not read",
                "--strict-mcp-config": "MCP servers from the command line are not read",
                "--agent": "agents are not modelled", "--agents": "agents are not modelled",
                "--plugin-dir": "plugins are not read", "--plugin-url": "plugins are not read",
                "--safe-mode": "safe mode is not modelled", "--bare": "bare mode is not modelled",
                "--permission-prompt-tool": "a prompt tool's answers cannot be known",
                "-w": "worktrees are not modelled", "--worktree": "worktrees are not modelled",
                "-r": "a resumed session's earlier approvals are not known",
                "--resume": "a resumed session's earlier approvals are not known"}
_SPLIT = re.compile(r"[^\s,(]+(?:\([^)]*\))?")


def tool_list(values: list[str]) -> tuple[str, ...]:
    """`--allowedTools "Bash(git add:*),Edit" Read`: comma- or space-separated rules, a `(...)` kept
    whole."""
    return tuple(m.group(0) for value in values for m in _SPLIT.finditer(value))



def parse(argv: list[str], text: str, where: str) -> Launch:
    from forge_tools.runtimes.claude.settings import ClaudeOptions
    from forge_tools.runtimes.launch import Launch, flag_parser, read_flags, refuse_not_modelled

    refuse_not_modelled("claude", argv, NOT_MODELLED, text, where)
    p = flag_parser("claude", text, where)
    p.add_argument("-p", "--print", action="store_true")
    p.add_argument("--permission-mode", choices=MODES)
    p.add_argument("--permission-prompts", choices=("host", "none"))
    p.add_argument("--dangerously-skip-permissions", action="store_true")
    p.add_argument("--add-dir", nargs="+", action="extend", default=[])
    p.add_argument("--allowedTools", "--allowed-tools", nargs="+", action="extend", default=[],
                   dest="allowed")
    p.add_argument("--disallowedTools", "--disallowed-tools", nargs="+", action="extend", default=[],
                   dest="disallowed")
    p.add_argument("--settings", action="append", default=[])
    p.add_argument("--setting-sources")
    p.add_argument("--output-format", choices=("text", "json", "stream-json"))
    p.add_argument("-d", "--debug", nargs="?", const="")
    for names, value in NEUTRAL:
        p.add_argument(*names, action="store" if value else "store_true", dest=flag_dest(names[-1]))
    p.add_argument("prompt", nargs="*")
    ns = read_flags(p, argv, "claude", text, where)
    mode, mode_flag = ns.permission_mode, "--permission-mode"
    if ns.dangerously_skip_permissions:
        mode, mode_flag = "bypassPermissions", "--dangerously-skip-permissions"
    if mode == "manual":
        mode = "default"
    sources = None
    if ns.setting_sources is not None:
        sources = tuple(s.strip() for s in ns.setting_sources.split(",") if s.strip())
        bad = next((s for s in sources if s not in ("user", "project", "local")), None)
        if bad is not None:
            from forge_tools.errors import UsageError

            raise UsageError(f"claude: --setting-sources {bad!r} is not user, project or local "
                             f"(in {text!r})", where=where)
    refused = bool(ns.print) and ns.permission_prompts != "none"  # recorded: launch-prompts-host
    options = ClaudeOptions(mode, tool_list(ns.allowed), tool_list(ns.disallowed), tuple(ns.settings),
                            sources, tuple(ns.add_dir), mode_flag, refused)
    effects = []
    if mode is not None:
        effects.append(f"permission mode {mode} ({mode_flag})")
    effects += [f"--add-dir {d}" for d in ns.add_dir]
    effects += [f"allow {r} (--allowedTools)" for r in options.allowed_tools]
    effects += [f"deny {r} (--disallowedTools)" for r in options.disallowed_tools]
    effects += [f"--settings {s}" for s in ns.settings]
    if sources is not None:
        effects.append("setting sources " + (",".join(sources) or "none"))
    if refused:
        effects.append("no one answers a prompt: what would ask is refused")
    elif ns.permission_prompts == "none":
        effects.append("--permission-prompts none: what would ask is refused, reported as a permission "
                       "request denied")
    neutral = neutral_flags(ns, NEUTRAL)
    neutral += ("--output-format",) if ns.output_format is not None else ()
    return Launch("claude", text, bool(ns.print), options, tuple(effects), neutral)
