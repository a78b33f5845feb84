"""The options `layers`, `explain` and `run` share, and the one place that turns them into a `Request`
and reads the project they name (`read_project`: the config and the session overlay, once).

Commands declare the options with the types from `cli/common.py` and pass the values here, so the
three commands can never read the same option differently.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from forge_tools.named_tuple import NamedTuple

if TYPE_CHECKING:
    from forge_tools.config import LoadedConfig
    from forge_tools.config.project import Project
    from forge_tools.visibility.pipeline import McpScope, PipelineResult, Request


class PipelineOptions(NamedTuple):
    """The shared option values as a command received them."""

    agent: str | None = None
    model: str | None = None
    flags: tuple[str, ...] = ()
    client: str | None = None
    session_permission: Path | None = None
    tools: str | None = None
    config: tuple[Path, ...] = ()
    project: Path | None = None
    pure: bool = False
    no_mcp: bool = False


def pipeline_options(command: Callable[..., int]) -> Callable[..., int]:
    """A command that takes `opts: PipelineOptions` gets the shared options of one turn
    (`cli.common.PIPELINE_OPTIONS`: --model, --flag, ... --no-mcp) in that parameter's place, as typer
    sees its signature, and receives their values packed in `opts` (with its own `--agent`, which it
    places where it wants it). So the three commands declare them once and cannot read them apart."""
    import functools
    import inspect

    from forge_tools.cli.common import PIPELINE_OPTIONS

    signature = inspect.signature(command, eval_str=True)
    params = list(signature.parameters.values())
    at = next(i for i, p in enumerate(params) if p.name == "opts")
    shared = [inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=default,
                                annotation=annotation) for name, annotation, default in PIPELINE_OPTIONS]
    params[at:at + 1] = shared

    @functools.wraps(command)
    def wrapped(*args: Any, **kwargs: Any) -> int:
        values = {name: kwargs.pop(name, default) for name, _annotation, default in PIPELINE_OPTIONS}
        return command(*args, opts=options(agent=kwargs.get("agent"), **values), **kwargs)

    wrapped.__signature__ = signature.replace(parameters=params)  # type: ignore[attr-defined]
    wrapped.__annotations__ = {p.name: p.annotation for p in params}
    wrapped.__annotations__["return"] = signature.return_annotation
    return wrapped


def load_for(config: Iterable[Path] | None, project: Path | None) -> LoadedConfig:
    """The merged config for the shared `--config`/`--project` options."""
    from forge_tools.cli.common import load

    return load(list(config or ()), project)


def _check_model(model: str | None) -> str | None:
    from forge_tools.config.validators import model_id_problem
    from forge_tools.errors import UsageError

    if model is None:
        return None
    problem = model_id_problem(model)  # the same check as a config `model`
    if problem is not None:
        raise UsageError(problem, where="--model")
    return model


def build_request(
    *,
    agent: str | None = None,
    model: str | None = None,
    flags: Iterable[str] | None = None,
    client: str | None = None,
    session_permission: Path | None = None,
    tools: str | None = None,
    pure: bool = False,
    no_mcp: bool = False,
) -> Request:
    """A pipeline `Request` from option values; bad `--tools`/`--model` values are usage errors (exit 2)."""
    from forge_tools.errors import UsageError
    from forge_tools.visibility.pipeline import Request, parse_tool_overrides
    from forge_tools.visibility.switches import turn_switches

    client, checked_flags = turn_switches(client, _check_flags(flags))
    if not client or not client.strip():
        raise UsageError("must name a client, e.g. cli", where="--client")
    _note_client(client)
    return Request(
        agent=agent,
        model=_check_model(model),
        client=client,
        flags=checked_flags,
        session_permission=session_permission,
        tool_overrides=parse_tool_overrides(tools),
        pure=pure,
        no_mcp=no_mcp,
    )


def _check_flags(flags: Iterable[str] | None) -> frozenset[str]:
    """Only flags some rule reads: a typo (`lspp`) would otherwise silently answer as if it were off."""
    from difflib import get_close_matches

    from forge_tools.errors import UsageError
    from forge_tools.visibility.model_layer import KNOWN_FLAGS

    checked = frozenset(f.strip() for f in (flags or ()) if f.strip())
    for flag in sorted(checked):
        if flag not in KNOWN_FLAGS:
            close = get_close_matches(flag, KNOWN_FLAGS, n=1)
            hint = f" (did you mean --flag {close[0]}?)" if close else ""
            raise UsageError(f"unknown flag {flag!r}{hint}; known flags: {', '.join(KNOWN_FLAGS)}",
                             where="--flag")
    return checked


def _note(text: str) -> None:
    import typer

    typer.echo(f"forge-tools: note: {text}", err=True)


def _note_client(client: str) -> None:
    """Clients are open-ended, so an unknown one is accepted with a note of what it changes."""
    from forge_tools.visibility.model_layer import client_note

    note = client_note(client)
    if note:
        _note(note)


def unknown_tool_names(result: PipelineResult) -> list[str]:
    """`--tools` names that match no candidate tool, its permission name or a flag-gated builtin."""
    from forge_tools.names import known_names
    from forge_tools.permission.wildcard import has_wildcard, wildcard_match

    known = known_names(result.ids)
    unknown = []
    for name in result.request.tool_overrides:
        if name in known:
            continue
        if has_wildcard(name) and any(wildcard_match(k, name) for k in known):
            continue
        unknown.append(name)
    return unknown


def warn_unknown_tools(result: PipelineResult) -> None:
    """A `--tools` name matching nothing is a warning only: a request may name other setups' tools."""
    from difflib import get_close_matches

    from forge_tools.names import permission_name

    names = sorted({*result.ids, *(permission_name(i) for i in result.ids)})
    for name in unknown_tool_names(result):
        close = get_close_matches(name, names, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        import typer

        typer.echo(f"forge-tools: warning: --tools: {name!r} matches no candidate tool{hint}; "
                   "it changes nothing here", err=True)


def request_for(opts: PipelineOptions) -> Request:
    """`build_request` with the option values a command received."""
    return build_request(agent=opts.agent, model=opts.model, flags=opts.flags, client=opts.client,
                         session_permission=opts.session_permission, tools=opts.tools, pure=opts.pure,
                         no_mcp=opts.no_mcp)


def read_project(opts: PipelineOptions) -> tuple[Project, Request]:
    """The project the options name, read once for the whole command, and the request: the merged
    config with its sources (a config error is exit 3), then the option values (a bad one is exit
    2), then the session overlay (a bad file is exit 3, at its file:line), in that order."""
    from forge_tools.config.project import Project, SessionOverlay
    from forge_tools.visibility.pipeline import session_rules

    loaded = load_for(opts.config, opts.project)
    request = request_for(opts)
    path = request.session_permission
    session = SessionOverlay(path, session_rules(request)) if path is not None else None
    return Project(loaded, session), request


def resolve_options(opts: PipelineOptions, load_code: bool = True, focus: str | None = None,
                    mcp: McpScope | None = None, fmt: str = "text") -> tuple[Project, PipelineResult]:
    """Read the project, build the request and run the pipeline: `(project, result)`. While MCP
    servers start, a person on a terminal sees which (not with `fmt` json)."""
    from forge_tools.cli.progress import TerminalStatus, wants_progress
    from forge_tools.visibility.pipeline import McpScope, resolve

    project, request = read_project(opts)
    with TerminalStatus("loading the tools", wants_progress(fmt)) as status:
        scope = (mcp if mcp is not None else McpScope())._replace(progress=status.update)
        result = resolve(project.config, request, load_code=load_code, focus=focus, mcp=scope,
                         session=project.session_rules)
    warn_unknown_tools(result)
    return project, result


def options(
    agent: str | None, model: str | None, flag: list[str] | None, client: str | None,
    session_permission: Path | None, tools: str | None, config: list[Path] | None,
    project: Path | None, pure: bool, no_mcp: bool = False,
) -> PipelineOptions:
    """Pack the typer option values (in the order commands declare them)."""
    return PipelineOptions(agent, model, tuple(flag or ()), client, session_permission, tools,
                           tuple(config or ()), project, pure, no_mcp)
