"""An option more than one command takes is declared once (`cli/common.py`) and reads the same in each
command; the options of one turn reach `layers`, `explain` and `run` through `@pipeline_options`, in
one order, and arrive packed in one `PipelineOptions`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from forge_tools.cli.common import PIPELINE_OPTIONS
from forge_tools.cli.completion_scripts import command_tree

SHARED = ("--project", "--config", "--agent", "--runtime", "--format", "--load-code", "--pure", "--no-mcp",
          "--model", "--flag", "--client", "--session-permission", "--tools")
#: where an option means something else in one command, and says so in its own help
OWN_MEANING = {("diff", "--project"), ("diff", "--config"), ("config", "--format"), ("check", "--format"),
               ("rule", "--format"), ("schema", "--format"),
               # `hook`'s --runtime names the agent whose hook it is, not the answering runtime
               ("hook", "--runtime"), ("hook install", "--runtime"), ("hook uninstall", "--runtime"),
               ("hook status", "--runtime")}


def test_a_shared_option_reads_the_same_in_every_command() -> None:
    helps: dict[str, dict[str, str]] = {}
    for command in command_tree():
        for option in command.options:
            for name in option.names:
                if name in SHARED and (command.name, name) not in OWN_MEANING:
                    helps.setdefault(name, {})[command.name] = option.help
    assert set(helps) == set(SHARED)
    for name, by_command in helps.items():
        assert len(set(by_command.values())) == 1, (name, by_command)
    assert {"check", "diff"} <= set(helps["--load-code"])
    assert {"check", "explain"} <= set(helps["--runtime"])


def test_the_turn_options_come_in_one_order_in_each_turn_command() -> None:
    flags = ["--" + name.replace("_", "-") for name, _type, _default in PIPELINE_OPTIONS]
    for command in command_tree():
        if command.name not in ("layers", "explain", "run"):
            continue
        positions = [next(i for i, o in enumerate(command.options) if flag in o.names) for flag in flags]
        assert positions == list(range(positions[0], positions[0] + len(flags))), command.name


def test_each_turn_command_receives_the_values_it_was_given(project: Path, cli: Any) -> None:
    (project / "session.json").write_text('{"permission": {"webfetch": "deny"}}\n')
    args = ("--model", "openai/gpt-5", "--flag", "lsp", "--client", "app", "--session-permission",
            "session.json", "--tools", '{"edit": false}', "--pure", "--no-mcp", "--format", "json")
    code, out, err = cli("layers", *args)
    assert code == 0, err
    data = json.loads(out)
    assert (data["model"], data["client"], data["flags"]) == ("openai/gpt-5", "app", ["lsp"])
    code, out, err = cli("explain", "webfetch", *args)
    assert code == 0, err
    story = json.loads(out)
    assert not story["visible"] and story["client"] == "app" and story["model"] == "openai/gpt-5"
    assert story["deciding_rule"]["origin"]["path"].endswith("session.json")
    code, out, err = cli("run", "edit", "--args", '{"filePath": "x", "oldString": "", "newString": "y"}',
                         *args)
    assert code != 0 and "edit" in err + out  # hidden by --tools {"edit": false}: refused, not run
    assert not (project / "x").exists()
