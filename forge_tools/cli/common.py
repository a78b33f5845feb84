"""Options shared by several commands, and the one place that turns them into core requests."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

import typer

if TYPE_CHECKING:
    from forge_tools.config import LoadedConfig

ConfigOpt = Annotated[
    list[Path] | None,
    typer.Option("--config", "-c", metavar="FILE",
                 help="Overlay a config file (repeatable, applied in order).",
                 show_default=False),
]
ProjectOpt = Annotated[
    Path | None,
    typer.Option("--project", metavar="DIR",
                 help="Project root (default: the enclosing git worktree, else the cwd).",
                 show_default=False),
]
RuntimeOpt = Annotated[
    str | None, typer.Option("--runtime", metavar="NAME",
                             help="Whose answer it is: opencode, forge, claude, codex or gemini (default: "
                                  "the project's files decide, as `agents --runtimes` shows: any forge file "
                                  "-> forge, .claude settings only -> claude, .codex files only -> codex, "
                                  ".gemini files only -> gemini, else opencode; a tool may be spelt in "
                                  "any agent's words); explain --call and layers take `all` (or "
                                  "NAME,NAME): every agent runtime the project configures, the gate "
                                  "beside them (docs/runtimes.md).",
                             show_default=False)
]
AgentOpt = Annotated[
    str | None, typer.Option("--agent", metavar="NAME",
                             help="Agent name (default: config default_agent, else build).")
]
ModelOpt = Annotated[
    str | None, typer.Option("--model", metavar="PROVIDER/MODEL",
                             help="PROVIDER/MODEL (default: config `model`).", show_default=False)
]
FlagOpt = Annotated[
    list[str] | None,
    typer.Option("--flag", metavar="FLAG",
                 help="Turn on a flag such as lsp, plan, exa, question (repeatable).",
                 show_default=False),
]
ClientOpt = Annotated[str | None, typer.Option(
    "--client", metavar="NAME",
    help="Client name: cli, app, desktop, ... (default: OPENCODE_CLIENT, else cli).",
    show_default=False)]
SessionPermissionOpt = Annotated[
    Path | None,
    typer.Option("--session-permission", metavar="FILE",
                 help="A file whose `permission` map is the session overlay.",
                 show_default=False),
]
ToolsOpt = Annotated[
    str | None, typer.Option("--tools", metavar="JSON",
                             help='Per-request tool booleans as JSON, e.g. \'{"edit": false}\'.',
                             show_default=False)
]
PureOpt = Annotated[bool, typer.Option("--pure", help="Load no external plugins.")]
NoMcpOpt = Annotated[bool, typer.Option("--no-mcp", help="Start no MCP server (their tools are left out).")]
FormatOpt = Annotated[Literal["text", "json"], typer.Option("--format", "-f",
                                                             help="Output format: text or json.")]
LoadCodeOpt = Annotated[
    bool,
    typer.Option("--load-code", help="Import tool scripts and plugins (only for trusted code)."),
]

#: the options of one turn that `layers`, `explain` and `run` share, declared once in this order
#: (`cli.pipeline_opts.pipeline_options` puts them in a command's signature): name, type, default
PIPELINE_OPTIONS: tuple[tuple[str, Any, Any], ...] = (
    ("model", ModelOpt, None),
    ("flag", FlagOpt, None),
    ("client", ClientOpt, None),
    ("session_permission", SessionPermissionOpt, None),
    ("tools", ToolsOpt, None),
    ("config", ConfigOpt, None),
    ("project", ProjectOpt, None),
    ("pure", PureOpt, False),
    ("no_mcp", NoMcpOpt, False),
)


def json_errors(command: Callable[..., int]) -> Callable[..., int]:
    """With `--format json`, an error (bad config, unknown name, bad option value) is also printed on
    stdout as `{"error": ..., "exit_code": ...}`, so a script reading stdout always gets JSON; the
    one-line message on stderr and the exit code stay as they are."""
    import functools

    @functools.wraps(command)
    def wrapped(*args: Any, **kwargs: Any) -> int:
        from forge_tools.errors import ForgeToolsError

        try:
            return command(*args, **kwargs)
        except ForgeToolsError as exc:
            if kwargs.get("fmt") == "json":
                import json

                typer.echo(json.dumps({"error": exc.one_line(), "exit_code": int(exc.exit_code)},
                                      indent=2, ensure_ascii=False))
            raise

    return wrapped


def check_format(value: str, allowed: tuple[str, ...]) -> str:
    from forge_tools.errors import UsageError

    if value not in allowed:
        raise UsageError(f"unknown format {value!r}; use one of: {', '.join(allowed)}", where="--format")
    return value


def number_in_range(value: float, where: str, unit: str, minimum: float, maximum: float,
                    above: bool = False) -> float:
    """`value` when it is finite and within [minimum, maximum] ((minimum, maximum] with `above`);
    else one `UsageError` naming the option and the accepted range (`nan`, `1e999` and `-0.5` alike)."""
    import math

    low_ok = value > minimum if above else value >= minimum
    if math.isfinite(value) and low_ok and value <= maximum:
        return value
    from forge_tools.errors import UsageError

    def show(number: float) -> str:
        number = float(number)
        return str(int(number)) if math.isfinite(number) and number.is_integer() and abs(number) < 1e15 \
            else f"{number:g}"

    low = f"more than {show(minimum)}" if above else f"at least {show(minimum)}"
    raise UsageError(f"must be a number of {unit} {low} and at most {show(maximum)}, got {show(value)}",
                     where=where)


def load(config: list[Path] | None, project: Path | None, **extra: Any) -> LoadedConfig:
    """Load the merged config for a command (all discovery locations plus --config overlays)."""
    from forge_tools.config import LoadOptions, load_config

    return load_config(LoadOptions(cwd=Path.cwd(), project=project, overlays=tuple(config or ()), **extra))


def console(stderr: bool = False) -> Any:
    """A rich console honouring the colour policy (NO_COLOR, then FORCE_COLOR, then TTY)."""
    from forge_tools.report.colour import make_console

    return make_console(stderr=stderr)


#: the agent runtimes with a `rules` and `layers` listing of their own (`runtimes/<name>/listing.py`:
#: `settings_if_<name>`, `rules_payload`/`rules_text`, `layers_payload`/`layers_text`), in the order
#: they are asked
LISTED_RUNTIMES = ("claude", "codex", "gemini")


def runtime_files_here(name: str, project: Path | None) -> bool:
    """A cheap look for runtime `name`'s project files (`runtimes.<name>_files`) before loading anything."""
    import forge_tools.runtimes as runtimes

    return bool(getattr(runtimes, f"{name}_files")(Path(project) if project is not None else Path.cwd()))


def runtime_listing(name: str, loaded: LoadedConfig, runtime: str | None, what: str, fmt: str) -> str | None:
    """Runtime `name`'s `what` listing (`rules` or `layers`) in `fmt`, or None when the project is not
    that runtime's (and `--runtime` does not name it)."""
    from importlib import import_module

    listing = import_module(f"forge_tools.runtimes.{name}.listing")
    settings = getattr(listing, f"settings_if_{name}")(loaded, runtime)
    if settings is None:
        return None
    from forge_tools.runtimes import runtime_for
    from forge_tools.runtimes.answer import ignored_files, tail_lines

    chosen = runtime_for(loaded, name if runtime == name else None)
    ignored = [i.to_json() for i in ignored_files(name, loaded)]
    if fmt == "json":
        import json

        payload = getattr(listing, f"{what}_payload")(settings)
        return json.dumps({**payload, "answering": chosen.to_json(), "ignored": ignored}, indent=2)
    tail = tail_lines({"runtime": {"name": name}, "ignored": ignored})
    return "\n".join([chosen.headline(), str(getattr(listing, f"{what}_text")(settings)), *tail])


LaunchOpt = Annotated[
    str | None, typer.Option("--launch", metavar="COMMAND",
                             help="How the agent is started, as one string read with that agent's own flags "
                                  "(e.g. 'claude -p --permission-mode acceptEdits', 'codex exec -s "
                                  "workspace-write', 'gemini -p x --approval-mode plan'); its program "
                                  "answers unless --runtime says otherwise (docs/runtimes.md).",
                             show_default=False)
]


def start_launch(launch: str | None, runtime: str | None) -> str | None:
    """Put `--launch` and a `--runtime NAME@VERSION` pin in effect for the rest of the command
    (`runtimes.launch`; `cli.app.run` scopes both to one command) and return the runtime that answers:
    `--runtime`'s, else the launch's program's; an unknown flag, a version not modelled or a conflict
    with `--runtime` is a usage error."""
    if runtime is not None and "@" in runtime:
        from forge_tools.runtimes import get_runtime
        from forge_tools.runtimes.launch import set_pin

        pinned = get_runtime(runtime)  # a version not modelled is a usage error here
        set_pin(pinned)
        runtime = pinned.name
    if launch is None:
        return runtime
    from forge_tools.runtimes.launch import choose, parse_launch, set_current

    parsed = parse_launch(launch)
    name = choose(parsed, runtime)
    set_current(parsed)
    return name
