"""A bad choice for any option or argument of any command is one line in forge-tools' own words:
`forge-tools: error: --format: 'xml' is not one of ...; see 'forge-tools check --help'`, exit 2, the
same under every typer pyproject allows (typer 0.26+ words it through pydantic, `Value error, ...`;
older typer through click)."""

from __future__ import annotations

import inspect
import typing
from collections.abc import Iterator
from typing import Any

import pytest


def _choice_params() -> Iterator[tuple[str, str, bool, tuple[str, ...]]]:
    """(command, option or argument as typed, is an argument, choices) for every Literal parameter,
    read from the commands' own signatures (not from the parser under test)."""
    import typer.main

    from forge_tools.cli.app import build_app

    group = typer.main.get_command(build_app())
    stack: list[tuple[str, Any]] = [("", group)]
    while stack:
        name, cmd = stack.pop()
        stack += [(f"{name} {sub}".strip(), c) for sub, c in getattr(cmd, "commands", {}).items()]
        if cmd.callback is None:
            continue
        hints = typing.get_type_hints(inspect.unwrap(cmd.callback), include_extras=True)
        for param in cmd.params:
            annotation = hints.get(param.name)
            while typing.get_origin(annotation) is typing.Annotated:
                annotation = typing.get_args(annotation)[0]
            if typing.get_origin(annotation) is not typing.Literal:
                continue
            argument = param.param_type_name == "argument"
            where = (param.metavar or param.name.upper()) if argument else \
                next(o for o in param.opts if o.startswith("--"))
            yield name, where, argument, typing.get_args(annotation)


CHOICES = list(_choice_params())


def test_the_walk_finds_the_choices_of_every_command() -> None:
    found = {(command, where) for command, where, _arg, _choices in CHOICES}
    for expected in [("check", "--format"), ("diff", "--format"), ("layers", "--format"),
                     ("config", "--format"), ("rule", "--format"), ("", "--format"), ("explain", "--format")]:
        assert expected in found
    assert len(found) >= 12


@pytest.mark.parametrize("command,where,argument,choices", CHOICES,
                         ids=[f"{c or 'forge-tools'} {w}" for c, w, _a, _ch in CHOICES])
def test_a_bad_choice_is_one_clean_line(cli: Any, command: str, where: str, argument: bool,
                                        choices: tuple[str, ...]) -> None:
    args = command.split()
    args += ["xml"] if argument else [where, "xml"]
    if command == "explain" and not argument:
        args.insert(1, "bash")
    if command == "outputs show" and not argument:
        args.insert(2, "ID")
    code, out, err = cli(*args)
    shown = ", ".join(repr(c) for c in choices)
    path = f"forge-tools {command}" if command else "forge-tools"
    assert (code, out) == (2, "")
    assert err == f"forge-tools: error: {where}: 'xml' is not one of {shown}; see '{path} --help'\n"


def test_a_near_miss_gets_a_did_you_mean(cli: Any) -> None:
    code, _out, err = cli("check", "--format", "sarfi")
    assert code == 2
    assert err.startswith("forge-tools: error: --format: 'sarfi' is not one of 'auto', ")
    assert "(did you mean 'sarif'?); see 'forge-tools check --help'\n" in err
    assert "Value error" not in err and "Invalid value" not in err


def test_other_bad_values_name_the_option_once(cli: Any) -> None:
    code, _out, err = cli("run", "bash", "--timeout", "soon", "--args", '{"command": "true"}')
    assert code == 2
    assert err.startswith("forge-tools: error: --timeout: "), err
    assert err.endswith("; see 'forge-tools run --help'\n") and err.count("\n") == 1, err
    assert "Invalid value" not in err and "Value error" not in err


def test_other_usage_errors_keep_one_line_with_where_to_look(cli: Any) -> None:
    code, _out, err = cli("layers", "--bogus")
    assert code == 2
    assert err.startswith("forge-tools: error: No such option") and "--bogus" in err  # click's words
    assert err.endswith("; see 'forge-tools layers --help'\n") and err.count("\n") == 1, err
