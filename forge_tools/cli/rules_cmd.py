"""`forge-tools rules`: one agent's final ordered ruleset, each rule with where it came from."""

from __future__ import annotations

import typer

from forge_tools.cli.common import AgentOpt, ConfigOpt, FormatOpt, ProjectOpt, RuntimeOpt, json_errors


def register(app: typer.Typer) -> None:
    @app.command("rules")
    @json_errors
    def rules_command(
        agent: AgentOpt = None,
        fmt: FormatOpt = "text",
        config: ConfigOpt = None,
        project: ProjectOpt = None,
        runtime: RuntimeOpt = None,
    ) -> int:
        """Print the agent's rules in evaluation order; the last matching rule decides. For Claude Code
        (`--runtime claude`, or a project with only .claude settings): its rules from every file; for
        Gemini CLI (`--runtime gemini`, or only .gemini files): its policy rules by priority."""
        import json

        from forge_tools.cli.common import check_format, load
        from forge_tools.permission.agents import load_agents, select_agent
        from forge_tools.report.table import format_table

        check_format(fmt, ("text", "json"))
        loaded = load(config, project)
        from forge_tools.cli.common import LISTED_RUNTIMES, runtime_listing

        for name in LISTED_RUNTIMES:
            shown = runtime_listing(name, loaded, runtime, "rules", fmt)
            if shown is not None:
                typer.echo(shown)
                return 0
        agents = load_agents(loaded)
        chosen = select_agent(agents, agent, loaded)
        if fmt == "json":
            payload = {
                "agent": chosen.to_json(),
                "rules": [{"index": i, **rule.to_json()} for i, rule in enumerate(chosen.ruleset, 1)],
            }
            typer.echo(json.dumps(payload, indent=2))
            return 0
        from forge_tools.runtimes import runtime_for

        typer.echo(runtime_for(loaded, runtime).headline())
        marks = (("disabled", chosen.disabled), ("hidden", chosen.hidden))
        flags = "".join(f", {s}" for s, on in marks if on)
        typer.echo(f"agent {chosen.name} ({chosen.mode}{flags}): {len(chosen.ruleset)} rules, "
                   "the last matching rule decides, no match means ask")
        rows = [
            (str(i), _cell(rule.permission), _cell(rule.pattern), rule.action, str(rule.origin))
            for i, rule in enumerate(chosen.ruleset, 1)
        ]
        typer.echo(format_table(("#", "PERMISSION", "PATTERN", "ACTION", "ORIGIN"), rows))
        return 0


def _cell(text: str) -> str:
    """A pattern as typed, quoted when a plain cell would hide what it matches (empty, edge spaces,
    control characters): `"git "` and `git` are different rules."""
    import json

    if text and text == text.strip() and text.isprintable():
        return text
    return json.dumps(text, ensure_ascii=False)
