"""`forge-tools outputs`: list, show and clean the full outputs kept in the truncation directory."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from forge_tools.cli.common import ConfigOpt, FormatOpt, ProjectOpt, json_errors

if TYPE_CHECKING:
    from forge_tools.tools.outputs import OutputEntry, OutputStore

outputs_app = typer.Typer(
    name="outputs",
    help="Manage the full outputs of truncated tool calls (the private truncation directory).",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,
)


def register(app: typer.Typer) -> None:
    app.add_typer(outputs_app, name="outputs")


def _store() -> OutputStore:
    from forge_tools.tools.outputs import OutputStore

    return OutputStore.from_env()


def _size(n: int) -> str:
    size = float(n)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if size < 1024 or unit == "GiB":
            return f"{int(size)} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{n} B"


def _age(entry: OutputEntry) -> str:
    days = entry.age_days()
    if days < 1 / 24:
        return f"{max(int(days * 1440), 0)}m ago"
    if days < 1:
        return f"{int(days * 24)}h ago"
    return f"{int(days)}d ago"


@outputs_app.command("list")
@json_errors
def list_command(fmt: FormatOpt = "text") -> int:
    """List stored outputs, oldest first: id, tool, size, age and path."""
    import json

    from forge_tools.cli.common import check_format

    check_format(fmt, ("text", "json"))
    store = _store()
    entries = store.list()
    if fmt == "json":
        data = {"directory": str(store.directory), "directories": [str(d) for d in store.searched()],
                "outputs": [e.to_json() for e in entries]}
        typer.echo(json.dumps(data, indent=2))
        return 0
    if not entries:
        typer.echo(f"no stored outputs in {store.where(entries)}")
        return 0
    rows = [(e.id, e.tool or "-", _size(e.size), _age(e), str(e.path) + (" (fallback)" if e.fallback else ""))
            for e in entries]
    header = ("ID", "TOOL", "SIZE", "AGE", "PATH")
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(4)]
    for row in [header, *rows]:
        typer.echo("  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row[:4])) + "  " + row[4])
    total = sum(e.size for e in entries)
    typer.echo(f"{len(entries)} output(s), {_size(total)} in {store.where(entries)}")
    return 0


def _find(store: OutputStore, wanted: str) -> OutputEntry:
    """By id or file name, or by a prefix that names exactly one output (`tool_` may be left out);
    a prefix shared by several is ambiguous (its matches are listed); else did-you-mean."""
    import difflib

    from forge_tools.errors import UnknownNameError, UsageError

    entry = store.get(wanted)
    if entry is not None:
        return entry
    entries = store.list()
    prefixes = [wanted] if not wanted or wanted.startswith("tool_") else [wanted, f"tool_{wanted}"]
    by_prefix = [e for e in entries if any(e.id.startswith(p) or e.path.name.startswith(p)
                                           for p in prefixes)] if wanted else []
    if len(by_prefix) == 1:
        return by_prefix[0]
    if len(by_prefix) > 1:
        shown = ", ".join(e.id for e in by_prefix[:10])
        more = f" and {len(by_prefix) - 10} more" if len(by_prefix) > 10 else ""
        raise UsageError(
            f"{wanted!r} is ambiguous: it starts {len(by_prefix)} outputs ({shown}{more}); "
            "give more of the id", where="outputs show",
        )
    ids = [e.id for e in entries]
    suggestions = difflib.get_close_matches(wanted, ids, n=3, cutoff=0.6)
    error = UnknownNameError("output", wanted, suggestions)
    error.message += f"; `forge-tools outputs list` shows the {len(ids)} stored in {store.where(entries)}"
    raise error


@outputs_app.command("show")
@json_errors
def show_command(
    output_id: Annotated[
        str, typer.Argument(metavar="ID", help="An id from `outputs list` (a unique prefix works).")
    ],
    path_only: Annotated[bool, typer.Option("--path", help="Print only the file's path.")] = False,
    fmt: FormatOpt = "text",
) -> int:
    """Print one stored output exactly as the tool produced it (JSON: its entry and whole text)."""
    import sys

    from forge_tools.cli.common import check_format

    check_format(fmt, ("text", "json"))
    entry = _find(_store(), output_id)
    if fmt == "json":
        import json

        data = entry.to_json()
        if not path_only:
            data["content"] = entry.path.read_bytes().decode("utf-8", "replace")
        typer.echo(json.dumps(data, indent=2, ensure_ascii=False))
        return 0
    if path_only:
        typer.echo(str(entry.path))
        return 0
    import shutil

    buffer = getattr(sys.stdout, "buffer", None)
    with entry.path.open("rb") as source:  # streamed: an output can be gigabytes
        if buffer is not None:
            sys.stdout.flush()
            shutil.copyfileobj(source, buffer, 1024 * 1024)
            buffer.flush()
        else:
            for chunk in iter(lambda: source.read(1024 * 1024), b""):
                sys.stdout.write(chunk.decode("utf-8", "replace"))
    return 0


#: the largest --older-than (a hundred years); more is not a number of days anyone means
MAX_DAYS = 36500


@outputs_app.command("clean")
@json_errors
def clean_command(
    older_than: Annotated[
        float | None,
        typer.Option("--older-than", metavar="DAYS", show_default=False,
                     help="Remove outputs older than DAYS (default: tool_output.retention_days, else 7)."),
    ] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Only say what would be removed.")] = False,
    config: ConfigOpt = None,
    project: ProjectOpt = None,
    fmt: FormatOpt = "text",
) -> int:
    """Remove old stored outputs (the at-most-hourly automatic cleanup does the same with the default)."""
    from forge_tools.tools.outputs import OutputStore

    if older_than is not None:
        from forge_tools.cli.common import number_in_range

        number_in_range(older_than, "--older-than", "days", 0, MAX_DAYS)
    if older_than is None:
        from forge_tools.cli.common import load

        store = OutputStore.from_config(load(config, project))
    else:
        store = _store()
    removed = store.clean(older_than, dry_run=dry_run)
    days = store.retention_days if older_than is None else older_than
    verb = "would remove" if dry_run else "removed"
    if fmt == "json":
        import json

        typer.echo(json.dumps({"directory": str(store.directory), "dry_run": dry_run, "older_than_days": days,
                               "removed": [e.to_json() for e in removed],
                               "bytes": sum(e.size for e in removed)}, indent=2))
        return 0
    for entry in removed:
        typer.echo(f"{verb} {entry.path}")
    total = sum(e.size for e in removed)
    typer.echo(f"{verb} {len(removed)} output(s), {_size(total)}, older than {days:g} day(s), "
               f"in {store.where(removed)}")
    return 0
