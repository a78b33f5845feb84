"""The `forge-tools` entry point: builds the typer app and maps errors to documented exit codes.

Command modules import only typer at module level; each imports the core it needs inside its
function, so `forge-tools --help` and every command start fast.
"""

# No `from __future__ import annotations` here: typer reads this module's command signatures at
# start-up, and string annotations would each be compiled and evaluated then (about 2 ms for check).

import functools
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any

import typer

from forge_tools.cli.common import AgentOpt, ConfigOpt, FormatOpt, ProjectOpt
from forge_tools.errors import ExitCode, ForgeToolsError

_APP_SETTINGS: dict[str, Any] = {
    "name": "forge-tools",
    "help": "See and run an AI coding agent's tool pipeline: visibility layers, permissions, truncation.",
    "no_args_is_help": False,
    "add_completion": False,
    "pretty_exceptions_enable": False,
    "rich_markup_mode": None,
    "context_settings": {"help_option_names": ["-h", "--help"]},
}

#: command name -> the module that registers it, in the order `--help` lists them
_COMMAND_MODULES = {
    "config": "config_cmd",
    "agents": "agents_cmd",
    "rules": "rules_cmd",
    "layers": "layers_cmd",
    "explain": "explain_cmd",
    "run": "run_cmd",
    "outputs": "outputs_cmd",
    "check": "check_cmd",
    "hook": "hook_cmd",
    "diff": "diff_cmd",
    "verify": "verify_cmd",
    "completions": "completions_cmd",
    "rule": "lint_cmds",
    "schema": "lint_cmds",
    "__complete": "lint_cmds",
}


class Terminated(KeyboardInterrupt):
    """SIGTERM (the console script's handler raises it): handled as Ctrl-C is, so the MCP servers and
    tool processes a command started are ended (they run in sessions of their own, which the signal
    does not reach), then the command exits 143."""


TERMINATED_EXIT = 128 + 15


class ClosedPipe(Exception):
    """stdout was closed by the reader (`forge-tools layers | head -1`): not an error, exit 0.

    A plain exception on purpose: typer turns an `OSError` with EPIPE into exit 1 before `run` sees it.
    """


def _pipe_safe(callback: Callable[..., Any]) -> Callable[..., Any]:
    if getattr(callback, "_forge_pipe_safe", False):
        return callback

    @functools.wraps(callback)  # typer reads the signature through __wrapped__
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return callback(*args, **kwargs)
        except BrokenPipeError:
            raise ClosedPipe() from None

    wrapper._forge_pipe_safe = True  # type: ignore[attr-defined]
    return wrapper


def _register_pipe_safe(group: typer.Typer) -> None:
    """Every command, group callback and sub-command turns a closed stdout into `ClosedPipe`."""
    for info in group.registered_commands:
        if info.callback is not None:
            info.callback = _pipe_safe(info.callback)
    root = group.registered_callback
    if root is not None and root.callback is not None:
        root.callback = _pipe_safe(root.callback)
    for sub in group.registered_groups:
        if sub.typer_instance is not None:
            _register_pipe_safe(sub.typer_instance)


def _silence_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's last flush cannot fail on the closed pipe."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass


def _root(
    ctx: typer.Context,
    version: bool = typer.Option(False, "--version", help="Print the version and exit."),
    agent: AgentOpt = None,
    fmt: FormatOpt = "text",
    config: ConfigOpt = None,
    project: ProjectOpt = None,
) -> None:
    """forge-tools: why a tool is visible, hidden or asked for, and what a call may do."""
    if version:
        from forge_tools import __version__

        typer.echo(f"forge-tools {__version__}")
        raise typer.Exit(0)
    given = [name for name, value in (("--agent", agent), ("--format", fmt != "text" or None),
                                      ("--config", config), ("--project", project)) if value]
    if ctx.invoked_subcommand is not None and given:
        from forge_tools.errors import UsageError

        raise UsageError(f"put {given[0]} after the command (forge-tools {ctx.invoked_subcommand} "
                         f"{given[0]} ...); before a command it is for the bare layers table",
                         where=given[0])
    if ctx.invoked_subcommand is None:
        from forge_tools.cli.default_cmd import run_default

        raise typer.Exit(run_default(agent=agent, fmt=fmt, config=config, project=project))


def build_app(command: str | None = None) -> typer.Typer:
    """The typer app with every command, or with only `command` (what `run` needs for one call).

    typer inspects every command's signature and builds every parameter when it turns the app into a
    click group, so building just the invoked command saves most of that on each start. `--help`, an
    unknown command and the completion scripts get the whole app.
    """
    import importlib

    app = typer.Typer(**_APP_SETTINGS)
    wanted = _COMMAND_MODULES.values() if command is None else [_COMMAND_MODULES[command]]
    for name in dict.fromkeys(wanted):
        importlib.import_module(f"forge_tools.cli.{name}").register(app)
    app.callback(invoke_without_command=True)(_root)
    _register_pipe_safe(app)
    return app


@functools.cache
def full_app() -> typer.Typer:
    return build_app()


def __getattr__(name: str) -> Any:
    if name == "app":  # the whole app, built on first use (completion scripts, tests)
        return full_app()
    raise AttributeError(name)


def _command_for(args: Sequence[str]) -> Any:
    """The click command `run` parses `args` with: only the invoked command's when args start with
    one, else every command."""
    first = args[0] if args else None
    return _click_command(first if first in _COMMAND_MODULES else None)


@functools.cache
def _click_command(name: str | None) -> Any:
    """Built once per process (click commands are reusable; a library caller or a test that calls
    `run` many times pays for typer's build once); parameters get plain coercion (`cli.coercion`)."""
    import typer.main

    from forge_tools.cli.coercion import install_plain_coercion

    command = typer.main.get_command(build_app(name) if name is not None else full_app())
    install_plain_coercion(command)
    return command


def usage_line(exc: Exception) -> str:
    """A parser's usage error as one line: where (the option or argument of a bad value), what is
    wrong (repeated sentences once, no parser prefix such as pydantic's "Value error, "), and where to
    get help: `--format: 'xml' is not one of 'text', 'json'; see 'forge-tools layers --help'`."""
    import re

    ctx = getattr(exc, "ctx", None)
    command = ctx.command_path if ctx is not None else "forge-tools"
    param = getattr(exc, "param", None)
    if type(exc).__name__ == "BadParameter" and param is not None:
        message = str(getattr(exc, "message", "")).removeprefix("Value error, ")
        message = f"{_param_name(param)}: {_choice_message(param, message) or message}"
    else:
        message = exc.format_message() if hasattr(exc, "format_message") else str(exc)
    sentences: list[str] = []
    for sentence in re.split(r"(?<=[.?!])\s+", " ".join(message.split())):
        if sentence and sentence not in sentences:
            sentences.append(sentence)
    text = " ".join(sentences).removesuffix(".")
    return f"{text} See '{command} --help'" if text.endswith("?") else f"{text}; see '{command} --help'"


def _param_name(param: Any) -> str:
    """An option as typed (its long name) or an argument as `--help` shows it (KIND)."""
    opts = [o for o in getattr(param, "opts", ()) if o.startswith("-")]
    if opts:
        return next((o for o in opts if o.startswith("--")), opts[0])
    return str(getattr(param, "metavar", None) or (param.name or "argument").upper())


def _choice_message(param: Any, message: str) -> str | None:
    """`'xml' is not one of 'text', 'json'` (with did-you-mean) for a choice parameter, worded the same
    under every typer: 0.26+ (choices from the Literal annotation) and older (click's Choice type),
    which word one choice differently; None when `param` takes no fixed choices."""
    import ast
    import difflib
    import re
    import typing

    descriptor = getattr(param, "type_descriptor", None)
    if descriptor is not None:
        annotation = descriptor.annotation
        if typing.get_origin(annotation) is list:
            (annotation,) = typing.get_args(annotation)
        choices = typing.get_args(annotation) if typing.get_origin(annotation) is typing.Literal else None
    else:
        choices = getattr(getattr(param, "type", None), "choices", None)
    given = re.match(r"""('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*") is not""", message)
    if not choices or given is None:
        return None
    try:
        value = ast.literal_eval(given.group(1))
    except (ValueError, SyntaxError):
        return None
    close = difflib.get_close_matches(str(value), [str(c) for c in choices], n=1, cutoff=0.6)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    return f"{value!r} is not one of {', '.join(repr(c) for c in choices)}{hint}"


def _usage_error_class() -> type[Exception]:
    """The parser's usage-error base (ClickException): click's in typer < 0.26, typer's own copy of
    click after that. Found through the public `typer.BadParameter`, so every typer release works."""
    for cls in typer.BadParameter.__mro__:
        if cls.__name__ == "ClickException":
            return cls
    return typer.BadParameter


def run(argv: Sequence[str] | None = None) -> int:
    """Run the CLI and return the exit code (only `cli.entry.main` calls sys.exit)."""
    usage_error = _usage_error_class()
    args = list(sys.argv[1:] if argv is None else argv)
    from forge_tools.report import terminal

    streams = terminal.install(sys)  # no control character reaches the terminal raw (issue 22)
    import contextvars

    try:
        # in a context of its own, so a command's --launch and version pin end with the command
        # (without importing runtimes.launch for the commands that never use it: --help, completions)
        result = contextvars.copy_context().run(
            _command_for(args).main, args=args, prog_name="forge-tools", standalone_mode=False)
        sys.stdout.flush()  # here, where a closed pipe is still caught, not at interpreter exit
    except (ClosedPipe, BrokenPipeError):
        _silence_stdout()
        return 0
    except SystemExit:
        # typer's sign of a closed pipe (e.g. in --help): click's PacifyFlushWrapper around stdout (named,
        # not imported: typer 0.26+ carries its own copy of click; click 8.3 spells it _PacifyFlushWrapper)
        if type(sys.stdout).__name__.lstrip("_") == "PacifyFlushWrapper":
            _silence_stdout()
            return 0
        raise
    except ForgeToolsError as exc:
        typer.echo(f"forge-tools: error: {exc.one_line()}", err=True)
        return int(exc.exit_code)
    except typer.Exit as exc:
        return int(exc.exit_code or 0)
    except typer.Abort as exc:
        if isinstance(exc.__cause__, Terminated):
            typer.echo("forge-tools: terminated", err=True)
            return TERMINATED_EXIT
        typer.echo("forge-tools: interrupted", err=True)
        return int(ExitCode.INTERRUPTED)
    except usage_error as exc:
        typer.echo(f"forge-tools: error: {usage_line(exc)}", err=True)
        return int(ExitCode.USAGE)
    except Terminated:
        typer.echo("forge-tools: terminated", err=True)
        return TERMINATED_EXIT
    except KeyboardInterrupt:
        typer.echo("forge-tools: interrupted", err=True)
        return int(ExitCode.INTERRUPTED)
    except Exception as exc:  # a bug: still one line, with a way to see the traceback
        if os.environ.get("FORGE_DEBUG"):
            raise
        typer.echo(
            f"forge-tools: internal error: {type(exc).__name__}: {exc} "
            "(set FORGE_DEBUG=1 for the traceback, and please report it)",
            err=True,
        )
        return int(ExitCode.FINDINGS)
    finally:
        terminal.restore(sys, streams)
    return int(result) if isinstance(result, int) else 0
