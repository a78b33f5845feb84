"""Which versions of each agent forge-tools models, and which one the user has installed (issue 29).

`MODELLED` is the one table: per runtime, the versions whose answers are recorded in tests/compat and
reproduced, the current release first (the one that answers by default). An older one is kept while
its records are (`--runtime claude@2.1.328`: `pinned`). The installed version is found without
running anything (`installed`): the agent's program on `PATH`, its symlinks resolved, then the npm
package's `package.json` in a folder above it (`@anthropic-ai/claude-code`, `@openai/codex`,
`@google/gemini-cli`, `opencode-ai`), or a version-named file (Claude Code's native installer keeps
`~/.local/share/claude/versions/2.1.332`). docs/runtimes.md ("Adding a version") says how a version
is added: a re-recording and a reviewed diff of the answers.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING

from forge_tools.lazy_re import lazy
from forge_tools.named_tuple import NamedTuple

if TYPE_CHECKING:
    from collections.abc import Mapping

    from forge_tools.runtimes.base import Runtime

#: runtime -> the versions modelled, the answering (current) one first
MODELLED: dict[str, tuple[str, ...]] = {
    "opencode": ("1.18.33",),
    "claude": ("2.1.332", "2.1.328"),
    "codex": ("0.171.0", "0.169.0"),
    "gemini": ("0.61.0",),
}
#: runtime -> (its program on PATH, its npm package)
PACKAGES: dict[str, tuple[str, str]] = {
    "opencode": ("opencode", "opencode-ai"),
    "claude": ("claude", "@anthropic-ai/claude-code"),
    "codex": ("codex", "@openai/codex"),
    "gemini": ("gemini", "@google/gemini-cli"),
}
_VERSION = lazy(r"\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.-]+)?")


class Installed(NamedTuple):
    """The agent's version on this machine and where it was read."""

    version: str
    program: str  # the program found on PATH
    source: str  # the package.json (or the version-named file) the version was read from


def installed(name: str, env: Mapping[str, str] | None = None) -> Installed | None:
    """The installed version of runtime `name`'s agent, read from files only (nothing is run); None
    when the program is not on `PATH` or no version can be read beside it."""
    import shutil

    package = PACKAGES.get(name)
    if package is None:
        return None
    program, npm = package
    env = os.environ if env is None else env
    found = shutil.which(program, path=env.get("PATH", ""))
    if found is None:
        return None
    real = Path(os.path.realpath(found))
    if _VERSION().fullmatch(real.name):
        return Installed(real.name, found, str(real))
    for folder in real.parents:
        manifest = folder / "package.json"
        if not manifest.is_file():
            continue
        try:
            data = json.loads(manifest.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(data, dict) and data.get("name") == npm and isinstance(data.get("version"), str):
            return Installed(data["version"], found, str(manifest))
        if folder.name == "node_modules":
            break
    return None


def modelled(name: str, runtime: Runtime | None = None) -> tuple[str, ...]:
    """The versions modelled for `name`, the one that answers first."""
    versions = MODELLED.get(name, ())
    if runtime is not None and runtime.version not in versions:
        versions = (runtime.version, *versions)
    return versions


def split_pin(text: str) -> tuple[str, str | None]:
    """`claude@2.1.328` -> ("claude", "2.1.328"); `claude` -> ("claude", None)."""
    name, sep, version = text.partition("@")
    return name, (version if sep else None)


def pinned(runtime: Runtime, version: str, where: str) -> Runtime:
    """`runtime` answering as `version`, a kept one (the same model: the kept records give the same
    answers, as the compat tests check); another version is a usage error naming those modelled."""
    import copy

    from forge_tools.errors import UsageError

    versions = modelled(runtime.name, runtime)
    if version not in versions:
        raise UsageError(f"{runtime.name} {version} is not modelled; modelled: {', '.join(versions)}",
                         where=where)
    if version == runtime.version:
        return runtime
    kept = copy.copy(runtime)
    kept.version = version
    return kept


def version_note(runtime: Runtime, env: Mapping[str, str] | None = None) -> tuple[str, str | None]:
    """(what the first line says of the versions, a warning or None): `installed: 2.1.332` when the
    installed agent is the modelled one; the installed version not modelled is one warning line
    naming both."""
    from forge_tools.runtimes.found import display_name

    found = installed(runtime.name, env)
    if found is None:
        return "", None  # not on PATH: nothing to compare (agents --runtimes says "not on PATH")
    if found.version in modelled(runtime.name, runtime):
        same = ("" if found.version == runtime.version
                else f", modelled too (--runtime {runtime.name}@{found.version})")
        return f"installed: {found.version}{same}", None
    return (f"installed: {found.version}, not modelled",
            f"warning: {display_name(runtime.name)} {found.version} is installed ({found.source}); "
            f"forge-tools answers as {runtime.version}, the version it models")
