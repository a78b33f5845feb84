"""Gemini CLI's start flags (`gemini -p "..." --approval-mode plan`), read with its own grammar
(recorded from 0.61.0: tests/compat/gemini/launch-*.json) into `GeminiLaunch`, which the settings
reader (`settings.read_settings`) applies: the approval mode (`--approval-mode`, `--yolo`), headless
(`-p`: no person is asked, and a folder that is not trusted stops the CLI) and `--skip-trust`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from forge_tools.named_tuple import NamedTuple
from forge_tools.runtimes.launch import flag_dest, neutral_flags

if TYPE_CHECKING:
    from forge_tools.runtimes.launch import Launch

#: `--approval-mode`'s choices -> the mode's name in Gemini's policy engine
MODES = {"default": "default", "auto_edit": "autoEdit", "yolo": "yolo", "plan": "plan"}
#: flags that change no permission answer: (names, takes a value)
NEUTRAL = ((("-m", "--model"), True), (("-d", "--debug"), False),
           (("--screen-reader",), False), (("--raw-output",), False), (("--accept-raw-output-risk",), False),
           (("--session-id",), True))
#: flags Gemini has whose effect forge-tools does not reproduce
NOT_MODELLED = {"--policy": "policy files from the command line are not read",
                "--admin-policy": "policy files from the command line are not read",
                "--allowed-mcp-server-names": "not modelled",
                "--allowed-tools": "not modelled (deprecated in 0.61: use a policy file)",
                "--include-directories": "more workspace directories are not modelled",
                "-e": "extensions are not read", "--extensions": "extensions are not read",
                "--acp": "ACP mode is not modelled", "--experimental-acp": "ACP mode is not modelled",
                "-s": "the sandbox container is not modelled",
                "--sandbox": "the sandbox container is not modelled",
                "-w": "worktrees are not modelled", "--worktree": "worktrees are not modelled",
                "-r": "a resumed session is not modelled", "--resume": "a resumed session is not modelled",
                "--session-file": "a resumed session is not modelled"}


class GeminiLaunch(NamedTuple):
    mode: str | None = None  # the policy engine's name: default, autoEdit, yolo, plan
    interactive: bool = True
    skip_trust: bool = False



def parse(argv: list[str], text: str, where: str) -> Launch:
    from forge_tools.errors import UsageError
    from forge_tools.runtimes.launch import Launch, flag_parser, read_flags, refuse_not_modelled

    refuse_not_modelled("gemini", argv, NOT_MODELLED, text, where)
    p = flag_parser("gemini", text, where)
    p.add_argument("-p", "--prompt")
    p.add_argument("-i", "--prompt-interactive")
    p.add_argument("-y", "--yolo", action="store_true")
    p.add_argument("--approval-mode", choices=tuple(MODES))
    p.add_argument("--skip-trust", action="store_true")
    p.add_argument("-o", "--output-format", choices=("text", "json", "stream-json"))
    for names, value in NEUTRAL:
        p.add_argument(*names, action="store" if value else "store_true", dest=flag_dest(names[-1]))
    p.add_argument("query", nargs="*")
    ns = read_flags(p, argv, "gemini", text, where)
    if ns.yolo and ns.approval_mode is not None:
        raise UsageError("gemini: Cannot use both --yolo (-y) and --approval-mode together "
                         f"(in {text!r})", where=where)
    if ns.prompt is not None and ns.prompt_interactive is not None:
        raise UsageError("gemini: Cannot use both --prompt (-p) and --prompt-interactive (-i) together "
                         f"(in {text!r})", where=where)
    mode = "yolo" if ns.yolo else MODES.get(ns.approval_mode) if ns.approval_mode else None
    headless = ns.prompt is not None
    effects = []
    if mode is not None:
        effects.append(f"approval mode {mode} ({'--yolo' if ns.yolo else '--approval-mode'})")
    if headless:
        effects.append("a folder that is not trusted stops it")
    if ns.skip_trust:
        effects.append("the folder trusted for this session (--skip-trust)")
    neutral = neutral_flags(ns, NEUTRAL)
    neutral += ("--output-format",) if ns.output_format is not None else ()
    return Launch("gemini", text, headless, GeminiLaunch(mode, not headless, bool(ns.skip_trust)),
                  tuple(effects), neutral)
