"""The sources of candidate tools (SPEC 2), in the order their tools are merged: builtins, forge's Python
tool scripts, opencode's script tools, plugins, MCP servers. A later tool whose id is taken replaces the
earlier one (`candidates.build_candidates`).

Every source implements `tools.contract.Source`: `scan` (nothing of the project runs: `check`,
`load_code=False`) and `load` (code may run: `layers`, `explain` and `run` with code loaded). `ask` is
the one place both are asked from, so the static and the loaded answers come from the same sources.
Each source module exposes its instance as `SOURCE`; `SOURCE_MODULES` lists them in merge order and is
imported on first use only. A source module stays cheap to import: machinery that costs start-up (an
SDK, a parser, pluggy) lives in a module it imports inside `scan`/`load` when there is something to read
(`plugin_refs` -> `plugins`, `opencode_source` -> `opencode_scripts`, `mcp_source` -> `mcp`).
"""

from __future__ import annotations

import importlib
from collections.abc import Collection
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from forge_tools.tools.contract import Listing, Source, SourceQuery

#: the source modules in merge order (the order is SPEC 2's: a later id shadows an earlier one)
SOURCE_MODULES: tuple[str, ...] = (
    "forge_tools.tools.builtins",
    "forge_tools.sources.scripts",
    "forge_tools.sources.opencode_source",
    "forge_tools.sources.plugin_refs",
    "forge_tools.sources.mcp_source",
)


def all_sources() -> list[Source]:
    """Every source, in merge order (each module's `SOURCE`)."""
    return [importlib.import_module(name).SOURCE for name in SOURCE_MODULES]


def ask(query: SourceQuery, load_code: bool, only: Collection[str] | None = None
        ) -> list[tuple[Source, Listing]]:
    """Every source's answer to `query` (or the sources named in `only`), in merge order: `load` when
    code may run, else `scan`."""
    return [(source, source.load(query) if load_code else source.scan(query)) for source in all_sources()
            if only is None or source.name in only]
