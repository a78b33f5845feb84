"""What `run` reads from its options: `--args` as a JSON object, and warnings for `--approve` names."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from forge_tools.errors import UsageError

if TYPE_CHECKING:
    from forge_tools.visibility.pipeline import PipelineResult


def parse_args_option(value: str | None, stdin: IO[str] | None = None) -> dict[str, Any]:
    """`--args JSON`, `--args @file.json` or `--args -` (stdin) into a dict; `{}` when absent."""
    if value is None:
        return {}
    from forge_tools.config.files import read_failure, read_regular_text, read_stream_text

    source = "--args"
    if value == "-":
        source = "--args - (stdin)"
        try:
            text = read_stream_text(stdin if stdin is not None else sys.stdin)
        except (OSError, UnicodeDecodeError) as exc:
            raise UsageError(f"cannot read the arguments: {read_failure(Path('-'), exc)}",
                             where=source) from None
    elif value.startswith("@"):
        if not value[1:].strip():
            raise UsageError("--args @FILE needs a file name, e.g. --args @call.json")
        path = Path(value[1:]).expanduser()
        source = f"--args @{path}"
        try:
            text = read_regular_text(path)
        except FileNotFoundError:
            raise UsageError(f"file {str(path)!r} does not exist", where="--args") from None
        except IsADirectoryError:
            raise UsageError(f"{str(path)!r} is a directory; --args @FILE needs a JSON file",
                             where="--args") from None
        except (OSError, UnicodeDecodeError, RuntimeError) as exc:
            raise UsageError(f"cannot read {str(path)!r}: {read_failure(path, exc)}; --args @FILE "
                             "reads a regular file of JSON (or --args - for stdin)", where="--args") from None
    else:
        text = value
    if not text.strip():
        return {}
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UsageError(
            f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}; "
            "give a JSON object such as '{\"command\": \"ls\"}'",
            where=source,
        ) from None
    if not isinstance(data, dict):
        raise UsageError(
            f"expected a JSON object of arguments, got {type(data).__name__}", where=source
        )
    return data


def unknown_permission_warnings(permissions: Iterable[str], result: PipelineResult) -> list[str]:
    """A warning for each `--approve` permission that matches no permission name a call could ask
    (`bsah`): builtin ids, the permission-only names (edit, external_directory, doom_loop, ...), and
    the loaded tools' ids and permissions. Only a warning: a project tool may ask for any name."""
    from forge_tools.names import known_names
    from forge_tools.permission.wildcard import wildcard_match

    known = known_names(result.ids)
    warnings: list[str] = []
    for name in dict.fromkeys(permissions):
        if any(wildcard_match(k, name) for k in known):
            continue
        hint = _suggest(name, sorted(known))
        maybe = f" (did you mean {', '.join(repr(h) for h in hint)}?)" if hint else ""
        warnings.append(f"--approve {name!r} matches no permission a call could ask{maybe}")
    return warnings


def _suggest(name: str, names: list[str]) -> list[str]:
    from difflib import get_close_matches

    return get_close_matches(name, names, n=3, cutoff=0.5)
