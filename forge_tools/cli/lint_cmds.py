"""`forge-tools rule CODE` / `rule --all` (what a finding code means) and `forge-tools schema` (the
config's JSON Schema for editors)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Literal

import typer

from forge_tools.cli.common import ProjectOpt

if TYPE_CHECKING:
    from forge_tools.config.loader import LoadedConfig
    from forge_tools.report.codeinfo import CodeInfo


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
        """What a finding of `check` means, why it matters, an example that triggers it and its fix.
        `--all` lists every code with its level and whether it is on by default."""
        import json

        from forge_tools.check.codes import CODES
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
            rows = [info.to_json() for info in infos]
            typer.echo(json.dumps(rows if all_codes else rows[0], indent=2))
        elif all_codes and fmt == "text":
            typer.echo(_code_table(infos), nl=False)
        else:
            typer.echo("\n".join(info.render(markdown=fmt == "markdown") for info in infos), nl=False)
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


def _code_table(infos: list[CodeInfo]) -> str:
    """`rule --all`: one line a code (CODE NAME LEVEL DEFAULT SUMMARY); `rule CODE` has the rest."""
    name_width = max(len(i.name) for i in infos)
    lines = [f"{'CODE':<6} {'NAME':<{name_width}} {'LEVEL':<7} {'DEFAULT':<7} SUMMARY"]
    lines += [f"{i.code:<6} {i.name:<{name_width}} {i.level:<7} {'on' if i.default else 'off':<7} {i.summary}"
              for i in infos]
    lines += ["", "Codes that are off are reported only when selected (`check --extend-select CODE`, or "
                  "`extend_select` in the check settings); `forge-tools rule CODE` explains one."]
    return "\n".join(lines) + "\n"


def complete_names(kind: str, project: Path | None = None) -> list[str]:
    """Names for shell completion: the project's agents, its tool ids (builtin, config-dir scripts and
    opencode's script tools read as syntax trees, never run, and MCP tools from the listing cache: no
    server is started), or the finding codes. A config that cannot be loaded gives no names
    (completion must not print errors)."""
    from forge_tools.errors import ForgeToolsError

    if kind == "codes":
        from forge_tools.check.codes import CODES

        return list(CODES)
    if kind == "outputs":  # the ids `outputs show` takes, newest last
        from forge_tools.tools.outputs import OutputStore

        try:
            return list(dict.fromkeys(e.id for e in OutputStore.from_env().list()))
        except OSError:
            return []
    try:
        from forge_tools.cli.common import load

        loaded = load(None, project)
        if kind == "agents":
            from forge_tools.permission.agents import load_agents

            return [name for name, agent in load_agents(loaded).items() if not agent.disabled]
        from forge_tools.names import builtin_ids
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
        kind: Annotated[Literal["agents", "tools", "codes", "outputs"], typer.Argument()],
        project: ProjectOpt = None,
    ) -> int:
        """Names for the completion scripts (one a line): the project's agents or tools, the codes, or
        the stored outputs' ids."""
        for name in complete_names(kind, project):
            typer.echo(name)
        return 0
