"""How the answering agent is started: `--launch 'claude -p --permission-mode acceptEdits'` (issue 28).

One string, split as a POSIX shell splits it (`shlex`), whose program name (`claude`, `codex`,
`gemini`, a path to one of them) picks the agent and whose flags are read with that agent's own
grammar by its package's `launch.parse` (`runtimes/claude/launch.py`, ...). A flag the agent does not
have is a usage error naming the flag (exit 2), as the agent itself refuses it; a flag it has that
changes no permission answer (`--model`, `--output-format`) is taken and said; a flag it has whose
effect forge-tools does not reproduce is an error saying so, never silently ignored.

The parsed launch is the agent's start for the whole command (`launched`): each agent's settings
reader asks `active(name)` for its own launch, so every reading of that agent's files in the command
(`explain`, `layers`, `check --expect`, `diff --expect`, the gate's translation of its rules) is the
one of that start. An expectation's `launch:` is the same string, for that expectation only.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import PurePath
from typing import TYPE_CHECKING, Any, NoReturn

from forge_tools.named_tuple import NamedTuple

if TYPE_CHECKING:
    import argparse

#: program name -> the runtime whose launch grammar it is
PROGRAMS = {"claude": "claude", "codex": "codex", "gemini": "gemini"}


class Launch(NamedTuple):
    """One start of one agent: its runtime, the string as written, headless or not, and the agent's
    own parsed options (the runtime package's `launch` type)."""

    runtime: str  # "claude", "codex", "gemini"
    text: str  # as written: `claude -p --permission-mode acceptEdits`
    headless: bool  # `claude -p`, `codex exec`, `gemini -p`: no person is asked
    options: Any  # ClaudeLaunch, CodexLaunch, GeminiLaunch
    effects: tuple[str, ...]  # what the flags change, in words (`permission mode acceptEdits`)
    neutral: tuple[str, ...] = ()  # flags taken that change no permission answer

    def describe(self) -> str:
        """`claude -p --permission-mode acceptEdits: headless, permission mode acceptEdits`."""
        said = ["headless (nobody is asked)" if self.headless else "interactive", *self.effects]
        if self.neutral:
            said.append("no effect on permissions: " + " ".join(self.neutral))
        return f"--launch {self.text!r}: " + ", ".join(said)

    def to_json(self) -> dict[str, Any]:
        return {"runtime": self.runtime, "text": self.text, "headless": self.headless,
                "effects": list(self.effects), "no_effect": list(self.neutral)}


_ACTIVE: ContextVar[Launch | None] = ContextVar("forge_tools_launch", default=None)
#: `--runtime claude@2.1.328`: the kept version that answers for its runtime in this command
_PIN: ContextVar[Any] = ContextVar("forge_tools_pin", default=None)


def active(runtime: str) -> Launch | None:
    """The launch of `runtime` in effect (`launched`), or None: a plain start."""
    launch = _ACTIVE.get()
    return launch if launch is not None and launch.runtime == runtime else None


def current() -> Launch | None:
    """The launch in effect, whichever agent's."""
    return _ACTIVE.get()


@contextmanager
def launched(launch: Launch | None) -> Iterator[Launch | None]:
    """Answer as `launch` starts its agent inside the block (None: a plain start)."""
    token, pin = _ACTIVE.set(launch), _PIN.set(None)
    try:
        yield launch
    finally:
        _ACTIVE.reset(token)
        _PIN.reset(pin)


def parse_launch(text: str, where: str = "--launch") -> Launch:
    """`text` read as the agent's command line; a usage error (at `where`) naming what is wrong."""
    import shlex
    from importlib import import_module

    from forge_tools.errors import UsageError

    try:
        argv = shlex.split(text)
    except ValueError as e:
        raise UsageError(f"cannot split {text!r} as a shell would: {e}", where=where) from None
    if not argv:
        raise UsageError("empty launch: give the agent's command line, e.g. 'claude -p'", where=where)
    program = PurePath(argv[0]).name
    runtime = PROGRAMS.get(program)
    if runtime is None:
        known = ", ".join(PROGRAMS)
        why = (" (opencode's start flags change no permission answer; answer for it with --runtime "
               "opencode)" if program == "opencode" else "")
        raise UsageError(f"{program!r} is not an agent whose launch forge-tools reads{why}; known: {known}",
                         where=where)
    parser = import_module(f"forge_tools.runtimes.{runtime}.launch")
    launch: Launch = parser.parse(argv[1:], text, where)
    return launch


def choose(launch: Launch | None, runtime: str | None, where: str = "--runtime") -> str | None:
    """The runtime name the command answers for: `--runtime`'s, else the launch's program's; both
    given and different is a usage error (an agent cannot answer for another's start)."""
    if launch is None or runtime is None or runtime == "all" or "," in runtime:
        return runtime if runtime is not None else (launch.runtime if launch is not None else None)
    if runtime != launch.runtime:
        from forge_tools.errors import UsageError

        raise UsageError(f"--runtime {runtime} conflicts with --launch {launch.text!r}, which starts "
                         f"{launch.runtime}", where=where)
    return runtime


def flag_parser(agent: str, text: str, where: str) -> argparse.ArgumentParser:
    """An empty flag grammar for `agent` (argparse, no abbreviations, no help) whose errors are
    one-line usage errors naming `text` at `where`, never an exit."""
    import argparse

    class Parser(argparse.ArgumentParser):
        def error(self, message: str) -> NoReturn:
            from forge_tools.errors import UsageError

            raise UsageError(f"{self.prog}: {message} (in {text!r})", where=where)

    return Parser(prog=agent, add_help=False, allow_abbrev=False, exit_on_error=False)


def once() -> type[argparse.Action]:
    """An argparse action for a flag given at most once (clap's: `the argument '--sandbox' cannot be
    used multiple times`)."""
    import argparse

    class Once(argparse.Action):
        def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                     values: Any, option_string: str | None = None) -> None:
            if getattr(namespace, self.dest, None) is not None:
                raise argparse.ArgumentError(self, f"the argument '{self.option_strings[-1]}' cannot be used "
                                                   "multiple times")
            setattr(namespace, self.dest, values)

    return Once


def read_flags(parser: argparse.ArgumentParser, argv: list[str], agent: str, text: str,
               where: str, hints: dict[str, str] | None = None) -> argparse.Namespace:
    """`argv` read by `parser` (flags and the prompt in any order); a flag it does not know is an
    error naming it, as the agent says (`unknown option '--bogus'`), with `hints[flag]` when given."""
    import argparse

    from forge_tools.errors import UsageError

    try:
        ns, extra = parser.parse_known_intermixed_args(argv)
    except argparse.ArgumentError as e:
        raise UsageError(f"{agent}: {e} (in {text!r})", where=where) from None
    unknown = next((a for a in extra if a.startswith("-") and a != "-"), None)
    if unknown is not None:
        flag = unknown.split("=", 1)[0]
        hint = f"; {hints[flag]}" if hints and flag in hints else ""
        raise UsageError(f"{agent} has no flag {flag!r} (in {text!r}){hint}", where=where)
    if extra:
        raise UsageError(f"{agent}: unexpected argument {extra[0]!r} (in {text!r})", where=where)
    return ns


def flag_dest(flag: str) -> str:
    """The argparse destination of a flag that is read but changes no answer (`neutral_*`)."""
    return "neutral_" + flag.lstrip("-").replace("-", "_")


def neutral_flags(ns: Any, table: Any) -> tuple[str, ...]:
    """The flags of `table` ((names, takes a value) pairs) that `ns` was given: read, no effect."""
    return tuple(names[-1] for names, _ in table
                 if getattr(ns, flag_dest(names[-1]), None) not in (None, False))


def refuse_not_modelled(agent: str, argv: list[str], table: dict[str, str], text: str, where: str) -> None:
    """Stop at the first flag of `argv` (`--flag` or `--flag=value`) that `table` lists as not modelled."""
    flag = next((a.split("=", 1)[0] for a in argv if a.split("=", 1)[0] in table), None)
    if flag is not None:
        not_modelled(agent, flag, text, where, table[flag])


def not_modelled(agent: str, flag: str, text: str, where: str, why: str) -> NoReturn:
    """A flag the agent has whose effect forge-tools does not reproduce: said, never ignored."""
    from forge_tools.errors import UsageError

    raise UsageError(f"{agent} flag {flag} is not modelled by forge-tools: {why} (in {text!r})", where=where)


def set_pin(runtime: Any) -> None:
    """Answer as `runtime` (a pinned kept version, `runtimes.versions.pinned`) wherever its runtime
    answers until the enclosing `launched` block ends."""
    _PIN.set(runtime)


def pinned_runtime(name: str) -> Any:
    """The pinned runtime for `name` in effect, or None."""
    pin = _PIN.get()
    return pin if pin is not None and pin.name == name else None


def set_current(launch: Launch | None) -> None:
    """Put `launch` in effect until the enclosing `launched` block ends (the CLI's command)."""
    _ACTIVE.set(launch)
