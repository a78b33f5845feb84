"""`forge-tools check [PROJECT]`: findings about the permission config, for CI (never runs project code
unless --load-code)."""

# No `from __future__ import annotations` here: typer reads this module's command signatures at
# start-up, and string annotations would each be compiled and evaluated then (about 2 ms for check).

from pathlib import Path
from typing import Annotated, Literal, get_args

import typer

from forge_tools.cli.common import ConfigOpt, LaunchOpt, LoadCodeOpt, ProjectOpt, RuntimeOpt, json_errors

ExpectOpt = Annotated[
    Path | None,
    typer.Option("--expect", metavar="FILE",
                 help="Assertions file (YAML, TOML or JSON) checked against the pipeline.",
                 show_default=False),
]
CodesOpt = Annotated[list[str] | None, typer.Option(show_default=False, metavar="CODES")]
CheckFormat = Literal["auto", "text", "concise", "json", "github", "sarif", "junit", "gitlab"]
CHECK_FORMATS: tuple[str, ...] = get_args(CheckFormat)


def register(app: typer.Typer) -> None:
    @app.command("check")
    @json_errors
    def check_command(
        project_arg: Annotated[Path | None, typer.Argument(help="Project directory (same as --project).",
                                                           show_default=False, metavar="PROJECT")] = None,
        project: ProjectOpt = None,
        config: ConfigOpt = None,
        strict: Annotated[bool, typer.Option("--strict", help="Warnings fail the check too.")] = False,
        expect: ExpectOpt = None,
        runtime: RuntimeOpt = None,
        launch: LaunchOpt = None,
        fmt: Annotated[CheckFormat, typer.Option(
            "--format", "-f",
            help="auto (github under GitHub Actions, else text), text, concise (one line a finding), "
                 "json, github, sarif, junit (JUnit XML for GitLab, Jenkins, Azure) or gitlab (GitLab "
                 "Code Quality).")] = "auto",
        load_code: LoadCodeOpt = False,
        select: Annotated[list[str] | None, typer.Option(
            "--select", metavar="CODES", show_default=False,
            help="Report only these codes or prefixes (comma-separated, repeatable; starts over: the "
                 "config's check.select and check.ignore no longer apply).")] = None,
        extend_select: Annotated[list[str] | None, typer.Option(
            "--extend-select", metavar="CODES", show_default=False,
            help="Report these codes or prefixes too (comma-separated, repeatable; added to what is "
                 "selected, such as an informational hint that is off by default).")] = None,
        ignore: Annotated[list[str] | None, typer.Option(
            "--ignore", metavar="CODES", show_default=False,
            help="Do not report these codes or prefixes (comma-separated, repeatable; added to the "
                 "config's check.ignore).")] = None,
        exit_zero: Annotated[bool, typer.Option("--exit-zero",
                                                help="Exit 0 even when there are findings.")] = False,
        output_file: Annotated[Path | None, typer.Option(
            "--output-file", "-o", show_default=False, metavar="FILE",
            help="Also write the report to FILE: SARIF for *.sarif, JUnit XML for *.xml, JSON for *.json "
                 "(the --format output still goes to stdout).")] = None,
        statistics: Annotated[bool, typer.Option(
            "--statistics", help="Print the number of findings per code instead of the findings.")] = False,
        fix: Annotated[bool, typer.Option(
            "--fix", help="Apply the safe fixes (FT101 unique rename, FT104 reorder, FT107 tools to "
                          "permission, FT110 write to edit) in place, keeping comments.")] = False,
        diff: Annotated[bool, typer.Option(
            "--diff", help="With --fix: print the changes as a diff and write nothing.")] = False,
    ) -> int:
        """Check every config file that applies, for CI.
        Exit 0 when clean (always with --exit-zero); 1 on errors or failed expectations (warnings too
        with --strict): a config or --expect file that cannot be read or parsed is such an error; 2 on a
        bad option; 3 when the project directory or the --expect file cannot be found."""
        import sys

        from forge_tools.check.run import CheckOptions, exit_code, project_paths, run_check
        from forge_tools.check.select import parse_codes
        from forge_tools.errors import ExitCode, UsageError
        from forge_tools.report.findings import REPORTER_BY_NAME, pick_format

        if project_arg is not None and project is not None and project_arg != project:
            raise UsageError("give the project once: as PROJECT or as --project", where="PROJECT")
        if diff and not fix:
            raise UsageError("--diff shows what --fix would change; give --fix too", where="--diff")
        out_format = _output_format(output_file) if output_file is not None else None
        chosen = pick_format(fmt)
        if statistics and chosen not in ("text", "concise", "json"):
            raise UsageError("--statistics prints text or json; use --format text or json",
                             where="--statistics")
        selected = parse_codes(select, "--select")
        from forge_tools.cli.common import start_launch

        runtime = start_launch(launch, runtime)
        if runtime is not None:
            from forge_tools.runtimes import get_runtime

            get_runtime(runtime)
        ignored = parse_codes(ignore, "--ignore") or []
        extended = parse_codes(extend_select, "--extend-select") or []
        cwd, root = project_paths(project_arg or project)
        overlays = tuple(p if p.is_absolute() else Path.cwd() / p for p in (config or ()))
        expect_path = (expect if expect.is_absolute() else Path.cwd() / expect) if expect else None
        from forge_tools.cli.progress import TerminalStatus, wants_progress

        machine = chosen in ("json", "sarif", "junit", "gitlab")
        status = TerminalStatus("checking", wants_progress("json" if machine else "text"))
        opts = CheckOptions(cwd=cwd, project=root, overlays=overlays, expect=expect_path,
                            load_code=load_code, select=tuple(selected) if selected is not None else None,
                            ignore=tuple(ignored), extend_select=tuple(extended), runtime=runtime,
                            progress=status.update)
        if fix:
            from forge_tools.check.fix import apply_fixes

            with status:
                outcome = apply_fixes(lambda: run_check(opts), write=not diff, stream=sys.stdout)
            if diff:
                return int(ExitCode.FINDINGS if outcome.made else ExitCode.OK)
            report = outcome.report
        else:
            with status:
                report = run_check(opts)
        report.strict = strict
        if statistics:
            from forge_tools.report.concise import render_statistics

            render_statistics(report, sys.stdout, as_json=chosen == "json")
        else:
            REPORTER_BY_NAME[chosen](report, sys.stdout)
        if output_file is not None and out_format is not None:
            import io

            from forge_tools.report.concise import write_private

            buffer = io.StringIO()
            REPORTER_BY_NAME[out_format](report, buffer)
            target = output_file if output_file.is_absolute() else Path.cwd() / output_file
            try:
                write_private(target, buffer.getvalue())
            except OSError as exc:
                raise UsageError(f"cannot write {output_file}: {exc.strerror or exc}",
                                 where="--output-file") from None
        return 0 if exit_zero else int(exit_code(report, strict))


def _output_format(path: Path) -> str:
    from forge_tools.errors import UsageError

    name = path.name.lower()
    if name.endswith(".sarif") or name.endswith(".sarif.json"):
        return "sarif"
    if name.endswith(".xml"):
        return "junit"
    if name.endswith(".json"):
        return "json"
    raise UsageError(f"{path}: name the file *.sarif (SARIF), *.xml (JUnit XML) or *.json (JSON)",
                     where="--output-file")
