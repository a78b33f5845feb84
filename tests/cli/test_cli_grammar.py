"""Issue 11's one CLI grammar: --project/--config/--format the same way everywhere, --format as a choice
list, JSON errors on stdout with --format json, the bare command as the layers table, explain's
wording, and completion of the project's own agents and tools."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from forge_tools.cli.completion_scripts import command_tree, render

#: commands that read no project config (so --project and --config would mean nothing)
NO_PROJECT = {"completions", "rule", "schema", "outputs list", "outputs show", "hook install",
              "hook uninstall", "hook status"}


def test_every_project_command_takes_project_config_and_format() -> None:
    for command in command_tree():
        if command.subcommands:
            continue
        names = {n for o in command.options for n in o.names}
        if command.name != "completions":
            assert "--format" in names, command.name
        if command.name not in NO_PROJECT:
            assert {"--project", "--config"} <= names, command.name


def test_format_is_a_choice_list_everywhere() -> None:
    for command in command_tree():
        for option in command.options:
            if "--format" in option.names:
                assert option.choices and "TEXT" not in option.choices, command.name


def test_format_choices_show_in_help(cli) -> None:
    for command in ("layers", "explain", "rules", "agents", "diff", "run", "check"):
        code, out, _ = cli(command, "--help")
        # click-based typer prints [text|json], typer 0.26+ <text|json>
        shown = [f"{o}{first}" for o in "[<" for first in ("text|", "auto|text")]
        assert code == 0 and any(s in out for s in shown), command


BAD = '{"permission": {"edit": "allwo"}}\n'


@pytest.mark.parametrize("args", [("layers",), ("explain", "edit"), ("rules",), ("agents",), ("config",),
                                  ()])
def test_json_error_object_on_a_config_error(project: Path, cli, args: tuple[str, ...]) -> None:
    (project / "forge.json").write_text(BAD)
    code, out, err = cli(*args, "--format", "json")
    assert code == 3
    data = json.loads(out)
    assert data["exit_code"] == 3 and "unknown action 'allwo'" in data["error"]
    assert "forge.json:1:" in data["error"] and "unknown action" in err


def test_bare_command_is_the_layers_table_with_its_options(project: Path, cli) -> None:
    code, out, _ = cli("--agent", "plan", "--format", "json")
    assert code == 0
    assert json.loads(out) == json.loads(cli("layers", "--agent", "plan", "--format", "json")[1])
    code, out, _ = cli("--agent", "plan")
    assert code == 0 and "agent plan" in out
    code, _, err = cli("--agent", "plan", "rules")
    assert code == 2 and "put --agent after the command" in err


def test_check_and_diff_take_project_and_config(project: Path, cli, tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    (project / "forge.json").write_text('{"permission": {"grpe": "deny"}}\n')
    overlay = tmp_path / "overlay.json"
    overlay.write_text('{"permission": {"bash": "deny"}}\n')
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    subprocess.run(["git", "-c", "user.email=a@b", "-c", "user.name=a", "commit", "-qm", "x",
                    "--allow-empty"], cwd=project, check=True)
    monkeypatch.chdir(tmp_path)
    code, out, _ = cli("check", "--project", str(project), "--format", "concise")
    assert code == 1 and "FT101" in out
    code, out, err = cli("diff", "--base", "HEAD", "--project", str(project), "--config", str(overlay),
                         "--format", "json")
    assert code == 0, err
    assert "grpe" in out  # the working tree's rule is new
    assert cli("diff", str(project), str(project), "--project", str(project))[0] == 2


def test_outputs_show_and_clean_in_json(cli, isolated_env: dict[str, Path]) -> None:
    from forge_tools.tools.outputs import OutputStore

    entry = OutputStore.from_env().write_text("bash", "first\nsecond\n")
    code, out, _ = cli("outputs", "show", entry.id, "--format", "json")
    data = json.loads(out)
    assert code == 0 and data["id"] == entry.id and data["content"] == "first\nsecond\n"
    code, out, _ = cli("outputs", "clean", "--older-than", "0", "--dry-run", "--format", "json")
    data = json.loads(out)
    assert code == 0 and data["dry_run"] is True and [e["id"] for e in data["removed"]] == [entry.id]
    assert entry.path.exists()


def test_explain_says_what_the_deciding_rule_decides(project: Path, cli) -> None:
    code, out, _ = cli("explain", "edit", "--agent", "plan")
    assert code == 0 and "3. Deciding rule (visibility" in out


def test_explain_notes_a_top_level_rule_overriding_a_builtin_agent(project: Path, cli) -> None:
    (project / "forge.json").write_text('{"permission": {"edit": "allow"}}\n')
    _, out, _ = cli("explain", "edit", "--agent", "plan")
    assert "builtin agent plan's own rule `edit * deny` is overridden by the top-level rule `edit * allow`" \
        in out and "agent.plan.permission" in out
    _, out, _ = cli("explain", "edit", "--agent", "build")
    assert "overridden" not in out  # build has no edit restriction of its own
    (project / "forge.json").write_text('{"agent": {"plan": {"permission": {"edit": "allow"}}}}\n')
    _, out, _ = cli("explain", "edit", "--agent", "plan")
    assert "overridden" not in out  # the agent's own section is a deliberate change


def test_completion_offers_the_projects_agents_and_tools(project: Path, tmp_path: Path) -> None:
    bash = shutil.which("bash")
    if bash is None:
        pytest.skip("bash is not installed")
    (project / "forge.json").write_text('{"agent": {"reviewer": {"description": "reviews"}}}\n')
    (project / ".forge" / "tools").mkdir(parents=True)
    (project / ".forge" / "tools" / "greet.py").write_text(
        "from forge_tools import tool\n\n@tool\ndef hello(name: str) -> str:\n    return name\n")
    (project / ".forge" / "tools" / "boom.py").write_text("raise SystemExit('imported!')\n")
    script = tmp_path / "c.bash"
    script.write_text(render("bash"), encoding="utf-8")
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}

    def complete(line: str) -> set[str]:
        words = line.split(" ")
        program = (f"source {script}\nCOMP_WORDS=({' '.join(repr(w) for w in words)})\n"
                   f"COMP_CWORD={len(words) - 1}\n_forge_tools\nprintf '%s\\n' \"${{COMPREPLY[@]}}\"\n")
        proc = subprocess.run([bash, "-c", program], capture_output=True, text=True, timeout=60,
                              cwd=project, env=env)
        assert proc.returncode == 0, proc.stderr
        return set(proc.stdout.split())

    assert complete("forge-tools layers --agent r") == {"reviewer"}
    assert complete("forge-tools explain gre") == {"greet_hello", "grep"}
    (project / "forge.json").write_text(BAD)
    assert complete("forge-tools layers --agent p") == {"plan"}  # a broken config: the builtins only


def test_every_value_option_and_argument_names_its_value_in_help() -> None:
    """Help says what a value is (`--config FILE`, `--agent NAME`, `explain TOOL`), not the Python type
    typer 0.26+ would print (`<list[Path]>`, `<str>`) or click's `TEXT`; choices list themselves."""
    import typer.main

    from forge_tools.cli.app import full_app
    from forge_tools.cli.completion_scripts import _choices

    missing, seen = [], 0
    stack = [typer.main.get_command(full_app())]
    while stack:
        cmd = stack.pop()
        stack.extend(getattr(cmd, "commands", {}).values())
        for param in cmd.params:
            if getattr(param, "is_flag", False) or _choices(param) or param.name == "help":
                continue
            seen += 1
            metavar = getattr(param, "metavar", None)
            if not metavar or not str(metavar).replace("/", "").replace("[=", "").strip("]").isupper():
                missing.append(f"{cmd.name} {param.name}")
    assert seen > 25 and not missing, missing


@pytest.mark.parametrize("args", [("--select", "XX9"), ("--project", "no-such-dir")])
def test_check_json_says_why_it_could_not_run_on_stdout(project: Path, cli, args: tuple[str, ...]) -> None:
    """A CI step reading `check --format json` gets JSON when check cannot run at all."""
    code, out, err = cli("check", "--format", "json", *args)
    assert code in (2, 3) and err.startswith("forge-tools: error:"), err
    data = json.loads(out)
    assert data["exit_code"] == code and data["error"] in err



def test_no_help_or_output_cites_a_spec_the_user_does_not_have(project: Path, cli) -> None:
    """The behaviour specification is the developers' document: help text, JSON output and finding
    docs name the behaviour itself (or opencode's), never a SPEC section."""
    import typer.main

    from forge_tools.cli.app import full_app

    texts: list[str] = []
    stack: list[tuple[tuple[str, ...], object]] = [((), typer.main.get_command(full_app()))]
    while stack:
        path, cmd = stack.pop()
        texts.append(cli(*path, "--help")[1])
        stack.extend(((*path, name), sub) for name, sub in getattr(cmd, "commands", {}).items())
    for args in (("layers", "--format", "json"), ("explain", "edit", "--format", "json"),
                 ("rule", "--all"), ("schema",)):
        code, out, err = cli(*args)
        assert code == 0, err
        texts.append(out)
    assert len(texts) > 15
    cited = [t[max(0, t.index("SPEC") - 60):t.index("SPEC") + 20] for t in texts if "SPEC" in t]
    assert not cited, cited
