"""Plain coercion of command-line values for typer >= 0.26, without building a pydantic TypeAdapter.

typer 0.26 and later turn every value of every non-flag parameter (defaults included) into its
annotated type through a pydantic `TypeAdapter` built for that parameter on each start; that imports
pydantic's whole model machinery and costs more than the rest of a small `explain` together. The
forge-tools CLI uses only simple annotations (str, Path, float, bool, Literal choices and lists of
those), whose conversion is a constructor call. Each parameter therefore gets a runtime parameter
that converts a plainly valid value directly, with typer's own helpers for paths and choices, and
hands anything else (a wrong choice, a number written as text, a type it does not know) to typer's
own adapter, so every accepted value and every error message is typer's.

typer < 0.26 converts through click types and has no such hook: nothing is installed there.
"""

from __future__ import annotations

import functools
import typing
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any


class _NotPlain(Exception):
    """The value is not plainly valid: typer's own adapter decides (and words any error)."""


def install_plain_coercion(command: Any) -> int:
    """Give every parameter of `command` and its sub-commands plain coercion where typer supports the
    hook; returns how many parameters got it (0 on typer < 0.26)."""
    try:
        from typer import _coercion, _param_types
    except ImportError:
        return 0
    base = getattr(_coercion, "RuntimeParam", None)
    build = getattr(_coercion, "build_runtime_param", None)
    if base is None or build is None:
        return 0
    plain_class = _plain_class(base, build)
    # every command's --help option is made on first use from the context's option names; make it now
    # (the same names every context of this CLI has) so it gets plain coercion too
    help_names = SimpleNamespace(help_option_names=command.context_settings.get("help_option_names",
                                                                                ["--help"]))
    count = 0
    stack = [command]
    while stack:
        cmd = stack.pop()
        stack.extend(getattr(cmd, "commands", {}).values())
        params = list(cmd.params)
        if getattr(cmd, "_help_option", False) is None:
            help_option = cmd.get_help_option(help_names)
            params += [help_option] if help_option is not None else []
        for param in params:
            descriptor = getattr(param, "type_descriptor", None)
            if descriptor is None or getattr(param, "_runtime_param", False) is not None:
                continue
            leaf = _leaf(descriptor, _param_types)
            if leaf is None:
                continue
            convert, many = leaf
            param._runtime_param = plain_class(descriptor.parameter_info, descriptor.annotation,
                                               descriptor, convert, many)
            count += 1
    return count


@functools.cache
def _plain_class(base: type, build: Callable[[Any], Any]) -> type:
    class PlainRuntimeParam(base):
        """typer's frozen runtime-parameter record plus the plain converter (a plain subclass: defining
        another dataclass costs about a millisecond of every start)."""

        def __init__(self, parameter_info: Any, annotation: Any, descriptor: Any,
                     convert: Callable[[Any, Any, Any], Any], many: bool) -> None:
            super().__init__(parameter_info, annotation)
            object.__setattr__(self, "descriptor", descriptor)
            object.__setattr__(self, "convert", convert)
            object.__setattr__(self, "many", many)

        def _coerce_value(self, value: Any, param: Any, ctx: Any) -> Any:
            try:
                if self.many:
                    if not isinstance(value, list | tuple):
                        raise _NotPlain
                    return [self.convert(item, param, ctx) for item in value]
                return self.convert(value, param, ctx)
            except Exception:  # typer's own adapter accepts or refuses it, in its own words
                exact = build(self.descriptor)
                param._runtime_param = exact
                return exact._coerce_value(value, param=param, ctx=ctx)

    return PlainRuntimeParam


def _leaf(descriptor: Any, helpers: Any) -> tuple[Callable[[Any, Any, Any], Any], bool] | None:
    """The plain converter of a parameter's annotation and whether the value is a list of them; None
    for annotations forge-tools does not use (typer's adapter stays)."""
    annotation = descriptor.annotation
    info = descriptor.parameter_info
    many = typing.get_origin(annotation) is list
    if many:
        (annotation,) = typing.get_args(annotation)
    if getattr(info, "parser", None) is not None or descriptor.file_annotation is not None:
        return None
    if annotation is str:
        return _plain_str, many
    if annotation is bool:
        return _plain_bool, many
    if annotation is float:
        return _plain_float, many
    if annotation is Path and getattr(info, "path_type", None) is None:
        def path(value: Any, param: Any, ctx: Any) -> Any:
            if not isinstance(value, str | Path):
                raise _NotPlain
            return helpers.coerce_cli_path(Path(value), info, path_type=Path, param=param, ctx=ctx)

        return path, many
    if typing.get_origin(annotation) is typing.Literal:
        choices = typing.get_args(annotation)
        case_sensitive = info.case_sensitive

        def choice(value: Any, param: Any, ctx: Any) -> Any:
            if not isinstance(value, str):
                raise _NotPlain
            return helpers.coerce_cli_choice(value, choices=choices, case_sensitive=case_sensitive, ctx=ctx)

        return choice, many
    return None


def _plain_str(value: Any, param: Any, ctx: Any) -> str:
    if not isinstance(value, str):
        raise _NotPlain
    return value


def _plain_bool(value: Any, param: Any, ctx: Any) -> bool:
    if not isinstance(value, bool):
        raise _NotPlain
    return value


def _plain_float(value: Any, param: Any, ctx: Any) -> float:
    """A number, or digits with at most one decimal point (`--timeout 1.5`); signs, exponents, `inf`
    and anything else go to typer's adapter."""
    if isinstance(value, str) and value.isascii() and value.replace(".", "", 1).isdigit():
        return float(value)
    if isinstance(value, bool) or not isinstance(value, float | int):
        raise _NotPlain
    return float(value)
