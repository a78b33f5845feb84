"""`forge-tools hook`: the decision itself (`hook --runtime NAME`, normally dispatched before the CLI is
built: `cli/entry.py`), and `hook install | uninstall | status` (forge_tools/hook/install.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from forge_tools.cli.common import FormatOpt, ProjectOpt, json_errors

hook_app = typer.Typer(
    name="hook",
    help="Deny means deny inside the agent: forge-tools' gate as the agent's own pre-tool hook "
         "(docs/hooks.md).",
    add_completion=False,
    rich_markup_mode=None,
    invoke_without_command=True,
)

RuntimeArg = Annotated[str, typer.Option("--runtime", metavar="NAME",
                                         help="The agent: claude, codex, gemini or opencode.")]
ScopeOpt = Annotated[str, typer.Option("--scope", metavar="SCOPE",
                                       help="project (the repository's files) or user (your own).")]
SandboxOpt = Annotated[bool, typer.Option("--sandbox", help="The hook rewrites each allowed shell command "
                                                            "to run inside run's sandbox.")]


def register(app: typer.Typer) -> None:
    app.add_typer(hook_app, name="hook")


@hook_app.callback()
def hook_callback(ctx: typer.Context,
                  runtime: Annotated[str | None, typer.Option("--runtime", metavar="NAME",
                                                              help="Decide one call of this agent "
                                                                   "(payload on stdin).")] = None,
                  deadline: Annotated[float | None, typer.Option("--deadline", metavar="SECONDS",
                                                                 help="Deny when undecided by then.")] = None,
                  sandbox: Annotated[bool, typer.Option("--sandbox",
                                                        help="Rewrite an allowed shell command to run "
                                                             "inside run's sandbox.")] = False,
                  ) -> None:
    """Decide one tool call the agent hands its hook on stdin (`hook --runtime NAME`)."""
    if ctx.invoked_subcommand is not None:
        return
    from forge_tools.hook.main import main

    argv = (["--runtime", runtime] if runtime is not None else []) + (
        ["--deadline", str(deadline)] if deadline is not None else []) + (["--sandbox"] if sandbox else [])
    raise typer.Exit(main(argv))


def _project(project: Path | None) -> Path:
    from forge_tools.paths import git_top_or

    return Path(project).resolve() if project is not None else git_top_or(Path.cwd())


def _checked(runtime: str, scope: str) -> None:
    from forge_tools.errors import UsageError
    from forge_tools.runtimes.hooks import AGENTS, SCOPES

    if runtime not in AGENTS:
        raise UsageError(f"unknown runtime {runtime!r}; one of {', '.join(AGENTS)}", where="--runtime")
    if scope not in SCOPES:
        raise UsageError(f"unknown scope {scope!r}; one of {', '.join(SCOPES)}", where="--scope")


@hook_app.command("install")
@json_errors
def install_command(runtime: RuntimeArg, scope: ScopeOpt = "project", project: ProjectOpt = None,
                    sandbox: SandboxOpt = False, fmt: FormatOpt = "text") -> int:
    """Write forge-tools' hook entry for the agent (idempotent; comments and layout kept)."""
    from functools import partial

    from forge_tools.hook.install import install

    return _changed(partial(install, sandbox=sandbox), runtime, scope, project, fmt)


@hook_app.command("uninstall")
@json_errors
def uninstall_command(runtime: RuntimeArg, scope: ScopeOpt = "project", project: ProjectOpt = None,
                      fmt: FormatOpt = "text") -> int:
    """Remove forge-tools' hook entry for the agent (the file's other entries stay)."""
    from forge_tools.hook.install import uninstall

    return _changed(uninstall, runtime, scope, project, fmt)


def _changed(change_with: Any, runtime: str, scope: str, project: Path | None, fmt: str) -> int:
    import json

    from forge_tools.cli.common import check_format

    check_format(fmt, ("text", "json"))
    _checked(runtime, scope)
    change = change_with(runtime, scope, _project(project))
    if fmt == "json":
        typer.echo(json.dumps({"file": str(change.path), "changed": change.changed, "note": change.note}))
    else:
        typer.echo(f"{change.path}: {change.note}")
    return 0


@hook_app.command("status")
@json_errors
def status_command(runtime: Annotated[str | None, typer.Option("--runtime", metavar="NAME",
                                                               help="One agent (default: all four).")] = None,
                   project: ProjectOpt = None, fmt: FormatOpt = "text") -> int:
    """Where forge-tools' hook is installed for each agent and scope, and what keeps it from running."""
    import json

    from forge_tools.cli.common import check_format
    from forge_tools.hook.install import render_status, status
    from forge_tools.runtimes.hooks import AGENTS

    check_format(fmt, ("text", "json"))
    if runtime is not None:
        _checked(runtime, "project")
    root = _project(project)
    rows = [row for agent in ([runtime] if runtime else AGENTS) for row in status(agent, root)]
    if fmt == "json":
        typer.echo(json.dumps({"hooks": rows}, indent=2))
    else:
        typer.echo("\n".join(render_status(rows, Path.cwd())))
    return 0
