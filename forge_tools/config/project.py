"""A project as one command reads it: read once, then passed down (docs/architecture.md, "How a command
reads a project").

A command builds one `Project` and hands it (or its parts) to what it calls; nothing below reads the
person's config files, the session overlay or pyproject.toml again. Who fills each part is the reader
that owns it: `config.loader.load_config` the config (every source's own tree is kept in
`LoadedConfig.source_trees`) and `visibility.pipeline.load_session_overlay` the session overlay (the
CLI's `cli.pipeline_opts.read_project` builds both). `check` alone reads its settings (pyproject.toml
`[tool.forge-tools.check]` and each source's `check`, by `check.select.config_layers`), once per run
from the trees its scan read: it must select findings even when the config cannot be loaded at all.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from forge_tools.named_tuple import NamedTuple

if TYPE_CHECKING:
    from forge_tools.config.loader import LoadedConfig
    from forge_tools.rule import Rule


class SessionOverlay(NamedTuple):
    """`--session-permission FILE` as read: the file and its `permission` rules, with file:line origins."""

    path: Path
    rules: tuple[Rule, ...]


class Project(NamedTuple):
    """The merged config with its sources (and each source's own tree), and the session overlay when
    one was given."""

    config: LoadedConfig
    session: SessionOverlay | None = None

    @property
    def session_rules(self) -> tuple[Rule, ...] | None:
        """The session overlay's rules, or None when no overlay was given."""
        return self.session.rules if self.session is not None else None
