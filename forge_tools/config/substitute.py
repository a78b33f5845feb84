"""`{env:VAR}` and `{file:path}` inside string values, as opencode does, but on parsed values.

Substituting after parsing (not in the raw text) means a file's content can never break the syntax
of the config around it, and a missing file is reported at the string that names it.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from pathlib import Path

from forge_tools.config.files import broken_link_note, read_regular_text
from forge_tools.errors import ConfigError
from forge_tools.origin import Node

_TOKEN = re.compile(r"\{(env|file):([^}]*)\}")


def substitute(node: Node, env: Mapping[str, str], base_dir: Path, home: Path) -> Node:
    """A copy of `node` with every string value's `{env:...}` / `{file:...}` replaced.

    A missing env var becomes "" (opencode's behaviour); a `{file:}` path is relative to `base_dir`,
    `~/` is the home directory, and the content is stripped of surrounding whitespace. A substituted
    node keeps the string as written in `meta["template"]` and what it used in `meta["substituted"]`.
    """
    if isinstance(node.value, dict):
        return dataclasses.replace(node, value={k: substitute(v, env, base_dir, home)
                                                for k, v in node.value.items()})
    if isinstance(node.value, list):
        return dataclasses.replace(node, value=[substitute(v, env, base_dir, home) for v in node.value])
    if not isinstance(node.value, str) or "{" not in node.value:
        return node

    used: list[str] = []

    def replace(match: re.Match[str]) -> str:
        kind, arg = match.group(1), match.group(2).strip()
        used.append(f"{kind} {arg}" + (" (unset)" if kind == "env" and not env.get(arg) else ""))
        if kind == "env":
            value = env.get(arg, "")
            if any("\ud800" <= c <= "\udfff" for c in value):  # undecodable bytes (surrogateescape)
                raise ConfigError(f"{{env:{arg}}}: the variable is not UTF-8 text", node.origin)
            return value
        path = _file_path(arg, base_dir, home)
        try:
            return read_regular_text(path).strip()
        except FileNotFoundError:
            broken = broken_link_note(path)
            if broken is not None:
                raise ConfigError(f"{{file:{arg}}}: {str(path)!r} is {broken}", node.origin) from None
            raise ConfigError(f"{{file:{arg}}}: no such file {str(path)!r}", node.origin) from None
        except IsADirectoryError:
            raise ConfigError(f"{{file:{arg}}}: {str(path)!r} is a directory", node.origin) from None
        except (OSError, UnicodeDecodeError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            raise ConfigError(f"{{file:{arg}}}: cannot read {str(path)!r}: {reason}", node.origin) from None

    value = _TOKEN.sub(replace, node.value)
    if not used:
        return node
    # `config` prints the template, not the value: substitutions are how API keys get into configs
    meta = {**node.meta, "template": node.value, "substituted": used}
    return dataclasses.replace(node, value=value, meta=meta)


def _file_path(arg: str, base_dir: Path, home: Path) -> Path:
    if arg == "~":
        return home
    if arg.startswith("~/"):
        return home / arg[2:]
    path = Path(arg)
    return path if path.is_absolute() else base_dir / path
