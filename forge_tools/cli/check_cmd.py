"""`forge-tools check [PROJECT]`: findings about the permission config, for CI (never runs project code
unless --load-code)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from forge_tools.cli.common import ConfigOpt

ExpectOpt = Annotated[
    Path | None,
    typer.Option("--expect", help="Assertions file (YAML, TOML or JSON) checked against the pipeline.",
                 show_default=False),
]
LoadCodeOpt = Annotated[
    bool,
    typer.Option("--load-code", help="Import tool scripts and plugins (only for trusted code)."),
]


def register(app: typer.Typer) -> None:
    @app.command("check")
    def check_command(
        project: Annotated[Path | None, typer.Argument(help="Project directory (default: the cwd's project).",
                                                       show_default=False, metavar="PROJECT")] = None,
        config: ConfigOpt = None,
        strict: Annotated[bool, typer.Option("--strict", help="Warnings fail the check too.")] = False,
        expect: ExpectOpt = None,
        fmt: Annotated[str, typer.Option("--format", "-f",
                                         help="text, json, github, sarif, or auto (github under "
                                              "GitHub Actions, else text).")] = "auto",
        load_code: LoadCodeOpt = False,
    ) -> int:
        """Check every config file that applies, for CI.
        Exit 0 when clean; 1 on errors or failed expectations (warnings too with --strict): a config
        or --expect file that cannot be read or parsed is such an error; 2 on a bad option; 3 when the
        project directory or the --expect file cannot be found."""
        import sys

        from forge_tools.check.run import CheckOptions, exit_code, project_paths, run_check
        from forge_tools.cli.common import check_format
        from forge_tools.report.findings import FORMATS, REPORTER_BY_NAME, pick_format

        check_format(fmt, FORMATS)
        cwd, root = project_paths(project)
        overlays = tuple(p if p.is_absolute() else Path.cwd() / p for p in (config or ()))
        expect_path = (expect if expect.is_absolute() else Path.cwd() / expect) if expect else None
        report = run_check(CheckOptions(cwd=cwd, project=root, overlays=overlays, expect=expect_path,
                                        load_code=load_code))
        REPORTER_BY_NAME[pick_format(fmt)](report, sys.stdout)
        return int(exit_code(report, strict))
