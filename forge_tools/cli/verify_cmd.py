"""`forge-tools verify`: ask the installed agents' own offline checkers about this project's rules
(`check/verify.py` does the asking and comparing)."""

from __future__ import annotations

from typing import Annotated

import typer

from forge_tools.cli.common import AgentOpt, ConfigOpt, FormatOpt, ProjectOpt, json_errors

OnlyOpt = Annotated[
    list[str] | None, typer.Option("--only", metavar="AGENT",
                                   help="Ask only this installed agent: codex or opencode (repeatable; "
                                        "default both).")
]
TimeoutOpt = Annotated[float, typer.Option("--timeout", min=1.0, metavar="SECONDS",
                                           help="Seconds each run of an agent's checker may take.")]


def register(app: typer.Typer) -> None:
    @app.command("verify")
    @json_errors
    def verify_command(
        only: OnlyOpt = None,
        agent: AgentOpt = None,
        timeout: TimeoutOpt = 60.0,
        fmt: FormatOpt = "text",
        config: ConfigOpt = None,
        project: ProjectOpt = None,
    ) -> int:
        """Ask the installed Codex CLI (`codex execpolicy check`) and opencode (`opencode debug config`,
        `opencode debug agent NAME`) about this project's rules and the other spellings of its deny
        rules, and print each answer that differs from forge-tools' reading. Runs those binaries (found
        on PATH, or named by FORGE_TOOLS_CODEX / FORGE_TOOLS_OPENCODE) against your own setup; they run
        no tool and are given no flag that reaches the network. Exit 1 on any disagreement; an agent
        that cannot be asked is said to be not verified, with the reason. `--agent NAME`: the opencode
        agent whose ruleset is compared (default: the default agent)."""
        import json

        from forge_tools.check.verify import AGENTS, report_lines, verify
        from forge_tools.cli.common import check_format, load
        from forge_tools.errors import ExitCode, UsageError

        check_format(fmt, ("text", "json"))
        chosen = list(dict.fromkeys(only or AGENTS))
        for name in chosen:
            if name not in AGENTS:
                raise UsageError(f"--only {name}: verify asks {', '.join(AGENTS)}")
        loaded = load(config, project)
        results = verify(loaded, agents=chosen, opencode_agents=[agent] if agent else (), timeout=timeout)
        if fmt == "json":
            typer.echo(json.dumps({"agents": [r.to_json() for r in results]}, indent=2))
        else:
            typer.echo("\n".join(report_lines(results)))
        return ExitCode.FINDINGS if any(r.disagreements for r in results) else ExitCode.OK
