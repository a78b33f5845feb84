"""`forge-tools diff OLD NEW` / `forge-tools diff --base REF`: what a permission config change does."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from forge_tools.cli.common import FormatOpt, LaunchOpt, LoadCodeOpt, json_errors


def register(app: typer.Typer) -> None:
    @app.command("diff")
    @json_errors
    def diff_command(
        old: Annotated[Path | None, typer.Argument(help="The old project directory or git ref (with "
                                                   "--base: the project).", show_default=False,
                                                   metavar="OLD")] = None,
        new: Annotated[Path | None, typer.Argument(help="The new project directory or git ref.",
                                                   show_default=False, metavar="NEW")] = None,
        base: Annotated[str | None, typer.Option("--base", metavar="REF",
                                                 help="Compare the project at this git ref with "
                                                 "the working tree.", show_default=False)] = None,
        expect: Annotated[Path | None, typer.Option("--expect", metavar="FILE",
                                                    help="Assertions file whose calls are "
                                                    "compared.", show_default=False)] = None,
        fmt: FormatOpt = "text",
        project_opt: Annotated[Path | None, typer.Option(
            "--project", metavar="DIR",
            help="With --base: the project (same as PROJECT; default: the enclosing git worktree).",
            show_default=False)] = None,
        config: Annotated[list[Path] | None, typer.Option(
            "--config", "-c", metavar="FILE",
            help="Overlay a config file on both sides (repeatable, applied in order).",
            show_default=False)] = None,
        fail_on_change: Annotated[bool, typer.Option("--fail-on-change",
                                                     help="Exit 1 when anything changed.")] = False,
        load_code: LoadCodeOpt = False,
        launch: LaunchOpt = None,
    ) -> int:
        """Per agent: tools that became visible or hidden, --expect calls whose decision changed, and
        rules added, removed, changed or moved (with locations on both sides). An old side (the --base
        commit, or OLD) whose config cannot be loaded is named on one line and everything of the new
        side is shown as new; a new side that cannot be loaded is an error (exit 3). Exit 0, or 1 with
        --fail-on-change when anything changed."""
        import sys

        from forge_tools.check.diff import (
            ReadFiles,
            commit_tree,
            diff_sides,
            forget_own_trees,
            load_old_side,
            load_side,
            render_diff_json,
            render_diff_text,
        )
        from forge_tools.cli.common import check_format, start_launch
        from forge_tools.config import find_project_root
        from forge_tools.errors import UsageError

        check_format(fmt, ("text", "json"))
        start_launch(launch, None)  # the agent's start for both sides' answers
        overlays = tuple(p if p.is_absolute() else Path.cwd() / p for p in (config or ()))
        if project_opt is not None:
            if base is None:
                raise UsageError("--project is the project of --base; without --base give OLD and NEW",
                                 where="--project")
            if old is not None and old != project_opt:
                raise UsageError("give the project once: as PROJECT or as --project", where="--project")
            old = project_opt
        expect_path = (expect if expect.is_absolute() else Path.cwd() / expect) if expect else None
        read: ReadFiles = {}  # the person's config files and the overlays are read once, for both sides
        if base is not None:
            if new is not None:
                raise UsageError("with --base give at most one PROJECT directory", where="diff")
            project = (old or Path.cwd()).resolve()
            if not project.is_dir():
                raise UsageError(f"{old} is not a directory", where="PROJECT")
            project = find_project_root(project) if old is None else project
            with commit_tree(base, project, whole=load_code) as (tree, old_dir):
                before = load_old_side(base, old_dir, load_code, git_tree=tree, overlays=overlays, read=read)
                before.shown_root = f"git {base}"
                before.settle(expect_path)  # the old side's context goes before the new side loads
                forget_own_trees(read, tree, project)
                after = load_side("working tree", project, load_code, overlays=overlays, read=read)
                report = diff_sides(before, after, expect_path)
                render = render_diff_json if fmt == "json" else render_diff_text
                render(report, sys.stdout)
        elif old is not None and new is not None and not old.exists() and not new.exists():
            # two git refs (`diff HEAD~2 HEAD`): the project at each commit, both read from git
            project = find_project_root(Path.cwd())
            with commit_tree(str(old), project, whole=load_code, where="OLD") as (old_tree, old_dir), \
                    commit_tree(str(new), project, whole=load_code, where="NEW") as (new_tree, new_dir):
                before = load_old_side(str(old), old_dir, load_code, git_tree=old_tree, overlays=overlays,
                                       read=read)
                before.shown_root = f"git {old}"
                before.settle(expect_path)
                forget_own_trees(read, old_tree, new_dir)
                after = load_side(str(new), new_dir, load_code, overlays=overlays, git_tree=new_tree,
                                  read=read)
                after.shown_root = f"git {new}"
                report = diff_sides(before, after, expect_path)
                (render_diff_json if fmt == "json" else render_diff_text)(report, sys.stdout)
        else:
            if old is None or new is None:
                raise UsageError("give OLD and NEW project directories (or two git refs), or --base GIT_REF",
                                 where="diff")
            for given, name in ((old, "OLD"), (new, "NEW")):
                if not given.is_dir():
                    raise UsageError(f"{given} is not a directory", where=name)
            before = load_old_side(str(old), old.resolve(), load_code, overlays=overlays, read=read)
            before.settle(expect_path)  # the old side's context goes before the new side loads
            forget_own_trees(read, old, new)
            after = load_side(str(new), new.resolve(), load_code, overlays=overlays, read=read)
            report = diff_sides(before, after, expect_path)
            (render_diff_json if fmt == "json" else render_diff_text)(report, sys.stdout)
        return 1 if (fail_on_change and report.changed) else 0
