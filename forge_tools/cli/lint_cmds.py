"""`forge-tools rule CODE` / `rule --all` (what a finding code means) and `forge-tools schema` (the
config's JSON Schema for editors)."""

from __future__ import annotations

from typing import Annotated

import click
import typer


def register(app: typer.Typer) -> None:
    @app.command("rule")
    def rule_command(
        code: Annotated[str | None, typer.Argument(help="A finding code, e.g. FT104.", show_default=False,
                                                   metavar="CODE")] = None,
        all_codes: Annotated[bool, typer.Option("--all", help="Every code.")] = False,
        fmt: Annotated[str, typer.Option("--format", "-f",
                                         click_type=click.Choice(("text", "markdown", "json")),
                                         help="Output format: text, markdown or json.")] = "text",
    ) -> int:
        """What a finding of `check` means, why it matters, an example that triggers it and its fix."""
        import json

        from forge_tools.check.codes import CODES
        from forge_tools.check.rule_docs import doc_for, full_description, help_uri, render
        from forge_tools.errors import UsageError

        if all_codes == (code is not None):
            raise UsageError("give one CODE, or --all", where="rule")
        if code is not None and code.upper() not in CODES:
            import difflib

            close = difflib.get_close_matches(code.upper(), list(CODES), n=1)
            hint = f" (did you mean {close[0]}?)" if close else ""
            raise UsageError(f"unknown finding code {code!r}{hint}; `forge-tools rule --all` lists them",
                             where="CODE")
        infos = list(CODES.values()) if all_codes else [CODES[str(code).upper()]]
        if fmt == "json":
            rows = []
            for info in infos:
                doc = doc_for(info.code)
                rows.append({"code": info.code, "name": info.name, "level": info.level,
                             "summary": info.summary, "description": full_description(info),
                             "fix": info.help, "example": doc.example if doc else None,
                             "fixed": doc.fixed if doc else None, "autofix": bool(doc and doc.autofix),
                             "help_uri": help_uri(info.code)})
            typer.echo(json.dumps(rows if all_codes else rows[0], indent=2))
            return 0
        typer.echo("\n".join(render(info, markdown=fmt == "markdown") for info in infos), nl=False)
        return 0

    @app.command("schema")
    def schema_command(
        fmt: Annotated[str, typer.Option("--format", "-f", click_type=click.Choice(("json",)),
                                         help="Output format: json (JSON Schema 2020-12).")] = "json",
    ) -> int:
        """Print the JSON Schema of the config (forge.json/yaml/toml and opencode.json) for editors.
        The same file ships in the package: forge_tools/data/forge-config.schema.json."""
        import sys

        from forge_tools.config.json_schema import shipped_text

        sys.stdout.write(shipped_text())
        return 0
