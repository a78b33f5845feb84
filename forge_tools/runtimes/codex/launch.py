"""Codex CLI's start flags (`codex exec -s workspace-write -c key=value`), read with its own grammar
(recorded from 0.171.0: tests/compat/codex/launch-*.json) into `CodexLaunch`, which the config reader
(`config.read_codex`) applies as the command line of the session: `-c` and `--profile` as Codex reads
them, `-a` / `-s` / `--dangerously-bypass-approvals-and-sandbox` above every file, and `codex exec`
never asking a person (approval_policy never, whatever the files say)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from forge_tools.named_tuple import NamedTuple
from forge_tools.runtimes.launch import flag_dest, neutral_flags

if TYPE_CHECKING:
    from forge_tools.runtimes.launch import Launch

APPROVALS = ("on-request", "never")  # `-a`'s choices in 0.171 (recorded: `untrusted` is refused)
SANDBOXES = ("read-only", "workspace-write", "danger-full-access")
#: flags of both the top level and `exec` that change no permission answer: (names, takes a value)
NEUTRAL = ((("-m", "--model"), True), (("-i", "--image"), True), (("--oss",), False),
           (("--local-provider",), True), (("--strict-config",), False), (("--remote",), True),
           (("--remote-auth-token-env",), True), (("--dangerously-bypass-hook-trust",), False))
#: `codex exec`'s own such flags
EXEC_NEUTRAL = ((("--skip-git-repo-check",), False), (("--ephemeral",), False), (("--json",), False),
                (("--color",), True), (("-o", "--output-last-message"), True), (("--output-schema",), True),
                (("--thread-source",), True), (("--cyber-access-program",), True))
#: the top level's (the interactive UI)
TOP_NEUTRAL = ((("--search",), False), (("--no-alt-screen",), False), (("--no-daemon",), False))
#: flags Codex has whose effect forge-tools does not reproduce
NOT_MODELLED = {"--approve-for-me": "automatic review of approval requests is a model's answer",
                "-C": "another working root is not modelled; run forge-tools there (--project)",
                "--cd": "another working root is not modelled; run forge-tools there (--project)",
                "--add-dir": "more writable roots are not modelled",
                "--worktree": "worktrees are not modelled",
                "--trust": "the trust it saves is not modelled; trust the project in config.toml",
                "--ignore-user-config": "not modelled", "--ignore-rules": "not modelled"}
#: flags of earlier releases that 0.171 refuses (recorded: launch-grammar-0.171.0.json), with what to write
GONE = {"--full-auto": "Codex CLI 0.171.0 refuses it (`unexpected argument`); write -s workspace-write",
        "-a": "codex exec takes no -a (it never asks a person); give it before exec: codex -a never exec"}
#: subcommands that start a session forge-tools answers for (`e` is `exec`'s alias)
SESSIONS = {"exec": True, "e": True}


class CodexLaunch(NamedTuple):
    """What the flags set: `-c` overrides (with `--enable`/`--disable` as theirs), the profile, and the
    values set above the files (key, value, the flag that set it)."""

    overrides: tuple[str, ...] = ()
    profile: str | None = None
    values: tuple[tuple[str, str, str], ...] = ()



def _grammar(p: object, neutral: tuple[tuple[tuple[str, ...], bool], ...], top: bool) -> None:
    import argparse

    from forge_tools.runtimes.launch import once

    assert isinstance(p, argparse.ArgumentParser)
    p.add_argument("-c", "--config", action="append", default=[], dest="config")
    p.add_argument("--enable", action="append", default=[])
    p.add_argument("--disable", action="append", default=[])
    p.add_argument("-p", "--profile", action=once())
    p.add_argument("-s", "--sandbox", choices=SANDBOXES, action=once())
    # `--yolo` is the binary's hidden alias (recorded: accepted, launch-grammar-0.171.0.json)
    p.add_argument("--dangerously-bypass-approvals-and-sandbox", "--yolo", action="store_true", dest="bypass")
    if top:
        p.add_argument("-a", "--ask-for-approval", choices=APPROVALS, dest="approval", action=once())
    for names, value in neutral:
        p.add_argument(*names, action=once() if value else "store_true", dest=flag_dest(names[-1]))


def parse(argv: list[str], text: str, where: str) -> Launch:
    from forge_tools.runtimes.launch import Launch, flag_parser, read_flags, refuse_not_modelled

    refuse_not_modelled("codex", argv, NOT_MODELLED, text, where)
    top_argv, sub, sub_argv = _split(argv)
    if sub is not None and sub not in SESSIONS:
        from forge_tools.errors import UsageError

        raise UsageError(f"codex {sub} is not a session start forge-tools answers for (codex, codex exec) "
                         f"(in {text!r})", where=where)
    top = flag_parser("codex", text, where)
    _grammar(top, NEUTRAL + TOP_NEUTRAL, True)
    top.add_argument("prompt", nargs="?")
    ns = read_flags(top, top_argv, "codex", text, where, GONE)
    found = [ns]
    if sub is not None:
        ex = flag_parser("codex exec", text, where)
        _grammar(ex, NEUTRAL + EXEC_NEUTRAL, False)
        ex.add_argument("prompt", nargs="?")
        found.append(read_flags(ex, sub_argv, "codex exec", text, where, GONE))
    overrides = [c for n in found for c in n.config]
    overrides += [f"features.{f}=true" for n in found for f in n.enable]
    overrides += [f"features.{f}=false" for n in found for f in n.disable]
    profile = next((n.profile for n in reversed(found) if n.profile is not None), None)
    values: list[tuple[str, str, str]] = []
    approval = ns.approval
    if approval is not None:
        values.append(("approval_policy", approval, "--ask-for-approval"))
    sandbox = next((n.sandbox for n in reversed(found) if n.sandbox is not None), None)
    if sandbox is not None:
        values.append(("sandbox_mode", sandbox, "--sandbox"))
    if any(n.bypass for n in found):
        values += [("approval_policy", "never", "--dangerously-bypass-approvals-and-sandbox"),
                   ("sandbox_mode", "danger-full-access", "--dangerously-bypass-approvals-and-sandbox")]
    headless = sub is not None
    if headless:
        values.append(("approval_policy", "never", "codex exec"))
    effects = [f"-c {o}" for o in overrides] + ([f"--profile {profile}"] if profile else [])
    effects += [f"{key} {value} ({by})" for key, value, by in values]
    neutral = tuple(f for n in found for f in neutral_flags(n, NEUTRAL + TOP_NEUTRAL + EXEC_NEUTRAL))
    return Launch("codex", text, headless, CodexLaunch(tuple(overrides), profile, tuple(values)),
                  tuple(effects), neutral)


def _split(argv: list[str]) -> tuple[list[str], str | None, list[str]]:
    """The top-level flags, the subcommand (the first word that is no flag's value) and its words."""
    takes_value = {n for names, value in NEUTRAL + TOP_NEUTRAL if value for n in names}
    takes_value |= {"-c", "--config", "--enable", "--disable", "-p", "--profile", "-s", "--sandbox",
                    "-a", "--ask-for-approval"}
    i = 0
    while i < len(argv):
        word = argv[i]
        if word == "--":
            return argv, None, []
        if word.startswith("-"):
            i += 2 if word in takes_value else 1
            continue
        if word in SESSIONS or word in SUBCOMMANDS:
            return argv[:i], word, argv[i + 1:]
        return argv, None, []  # the prompt of an interactive session
    return argv, None, []


#: Codex 0.171's other subcommands (`codex --help`): none starts a session forge-tools answers for
SUBCOMMANDS = ("agents", "review", "login", "logout", "mcp", "plugin", "app-server", "remote-control",
               "completion", "update", "doctor", "sandbox", "debug", "apply", "a", "resume", "queue",
               "archive", "delete", "migrate-rollouts", "migrate-nfs-db", "unarchive", "fork", "cloud",
               "exec-server", "features", "help")
