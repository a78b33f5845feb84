"""`forge-tools rule CODE` / `rule --all` (what a finding code means) and `forge-tools schema` (the
config's JSON Schema for editors)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Literal

import typer

if TYPE_CHECKING:
    from forge_tools.config.loader import LoadedConfig


def register(app: typer.Typer) -> None:
    register_complete(app)

    @app.command("rule")
    def rule_command(
        code: Annotated[str | None, typer.Argument(help="A finding code, e.g. FT104.", show_default=False,
                                                   metavar="CODE")] = None,
        all_codes: Annotated[bool, typer.Option("--all", help="Every code.")] = False,
        fmt: Annotated[Literal["text", "markdown", "json"],
                       typer.Option("--format", "-f",
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
        fmt: Annotated[Literal["json"], typer.Option(
            "--format", "-f", help="Output format: json (JSON Schema 2020-12).")] = "json",
    ) -> int:
        """Print the JSON Schema of the config (forge.json/yaml/toml and opencode.json) for editors.
        The same file ships in the package: forge_tools/data/forge-config.schema.json."""
        import sys

        from forge_tools.config.json_schema import shipped_text

        sys.stdout.write(shipped_text())
        return 0


def complete_names(kind: str, project: Path | None = None) -> list[str]:
    """Names for shell completion: the project's agents, its tool ids (builtin, config-dir scripts and
    opencode's script tools read as syntax trees, never run, and MCP tools from the listing cache: no
    server is started), or the finding codes. A config that cannot be loaded gives no names
    (completion must not print errors)."""
    from forge_tools.errors import ForgeToolsError

    if kind == "codes":
        from forge_tools.check.codes import CODES

        return list(CODES)
    try:
        from forge_tools.cli.common import load

        loaded = load(None, project)
        if kind == "agents":
            from forge_tools.permission.agents import load_agents

            return [name for name, agent in load_agents(loaded).items() if not agent.disabled]
        from forge_tools.permission.names import builtin_ids
        from forge_tools.sources import ask
        from forge_tools.tools.contract import SourceQuery

        ids = dict.fromkeys(builtin_ids())  # flag-gated ones included
        scripts = ask(SourceQuery(config_dirs=tuple(loaded.config_dirs)), load_code=False,
                      only=("scripts", "opencode-scripts"))  # the statically known ids: nothing runs
        ids.update(dict.fromkeys(entry.id for _source, listing in scripts for entry in listing.tools))
        ids.update(dict.fromkeys(cached_mcp_ids(loaded)))
        return list(ids)
    except (ForgeToolsError, OSError):
        return []


def cached_mcp_ids(loaded: LoadedConfig) -> list[str]:
    """The ids of the MCP tools whose servers' listings are in the cache (nothing is connected)."""
    if loaded.tree.get("mcp") is None:
        return []
    from forge_tools.sources.mcp import ListingCache, mcp_tool_id, servers_from_config

    servers, _problems = servers_from_config(loaded.tree, loaded.cwd)
    cache = ListingCache.from_env()
    return [mcp_tool_id(server.name, tool.name) for server in servers
            for tool in cache.get(server) or ()]


def register_complete(app: typer.Typer) -> None:
    @app.command("__complete", hidden=True)
    def complete_command(
        kind: Annotated[Literal["agents", "tools", "codes"], typer.Argument()],
        project: Annotated[Path | None, typer.Option("--project", metavar="DIR")] = None,
    ) -> int:
        """Names for the completion scripts (one a line): the project's agents or tools, or the codes."""
        for name in complete_names(kind, project):
            typer.echo(name)
        return 0
