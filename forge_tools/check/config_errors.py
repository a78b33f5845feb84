"""Every config problem of every source at once, for `check` (the loader itself stops at the first).

This walks the same discovery list as `load_config` and reads each source with the same reader
(`config.reader.read_source`), which keeps every error of a source, so a CI run shows all bad files
in one go. Each error carries its finding code from where it was raised (`ConfigError.code`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from forge_tools.config.reader import SourceRead, Spot, model_nodes, spot_of
from forge_tools.errors import ConfigError
from forge_tools.named_tuple import NamedTuple
from forge_tools.origin import Node, Origin, format_key_path
from forge_tools.report.findings import Finding

_HINTS = {
    "FT001": "fix the syntax at this position",
    "FT002": "give the value the expected type",
    "FT003": "use allow, ask or deny",
    "FT004": "remove the key or fix its spelling",
    "FT005": "create the file or fix the path (relative to this config file)",
    "FT006": "make the file a readable UTF-8 text file, or remove it",
    "FT007": "keep only one of the duplicate keys",
    "FT008": "fix the value at this location",
}


def ignored_finding(error: ConfigError) -> Finding:
    """FT117: something opencode ignores in its own config, which forge-tools ignored as well."""
    env = error.origin is not None and error.origin.kind == "env"
    hint = ("give OPENCODE_PERMISSION a JSON object" if env
            else "fix the key's spelling or remove it; opencode ignores it, and so does forge-tools")
    return Finding("FT117", "warning", error.message, hint, error.origin)


def finding_for(error: ConfigError) -> Finding:
    """The finding of a loader error, under the code the error was raised with."""
    code = str(error.code)
    return Finding(code, "error", error.message, _HINTS[code], error.origin)


def redact(finding: Finding, substituted: Mapping[Spot, str]) -> Finding:
    """A finding about a value that came from `{env:}` or `{file:}` says so without showing the value:
    `check` runs on untrusted pull requests, and a config must not be able to print a runner's secret
    files or variables into CI logs or a code-scanning upload."""
    import dataclasses

    if finding.origin is None or spot_of(finding.origin) not in substituted:
        return finding
    if finding.code not in _HINTS:  # a finding about a valid rule: its text is scrubbed instead
        return finding
    return dataclasses.replace(finding, message=redacted_message(finding.origin, substituted), data={})


def echoed_substitutions(tree: Node) -> dict[str, str]:
    """Substituted values that other messages quote (the model id in model-layer reasons, the default
    agent and agents' models in `diff`), each with its template, so they can be scrubbed from output."""
    found: dict[str, str] = {}

    def note(node: Node | None) -> None:
        if node is not None and isinstance(node.value, str) and node.value and node.meta.get("substituted"):
            found[node.value] = str(node.meta.get("template", "{substitution}"))

    def keys(node: Node) -> None:  # a key made by a substitution is a rule's pattern, quoted everywhere
        if isinstance(node.value, dict):
            for key, child in node.value.items():
                if key and child.meta.get("key_substituted"):
                    found[key] = str(child.meta.get("key_template", "{substitution}"))
                keys(child)
        elif isinstance(node.value, list):
            for child in node.value:
                keys(child)

    keys(tree)
    for node in model_nodes(tree):
        note(node)
    note(tree.get("default_agent"))
    return found


def scrub_finding(finding: Finding, secrets: Mapping[str, str]) -> Finding:
    """The finding with each substituted value in its message, hint, related labels and key paths
    replaced by the template that produced it."""
    import dataclasses

    def place(origin: Origin | None) -> Origin | None:
        if origin is None or not origin.key_path:
            return origin
        return origin._replace(key_path=tuple(scrub(k, secrets) for k in origin.key_path))

    return dataclasses.replace(
        finding, message=scrub(finding.message, secrets),
        hint=scrub(finding.hint, secrets) if finding.hint else finding.hint, origin=place(finding.origin),
        related=tuple(r._replace(label=scrub(r.label, secrets), origin=place(r.origin) or r.origin)
                      for r in finding.related))


def scrub(text: str, secrets: Mapping[str, str]) -> str:
    """`text` with each substituted value replaced by the template that produced it."""
    for value, template in sorted(secrets.items(), key=lambda kv: -len(kv[0])):
        text = text.replace(value, template)
    return text


def redacted_message(origin: Origin, substituted: Mapping[Spot, str]) -> str:
    keys = format_key_path(origin.key_path)
    template = substituted[spot_of(origin)]
    return (f"{keys + ': ' if keys else ''}the value that {template} gives is not valid here; its content "
            "is not shown (it may be secret)")


class ConfigScan(NamedTuple):
    """What `check` knows about the config before (and whether) the real loader can run."""

    project_root: Path
    config_dirs: list[Path]
    sources: list[SourceRead]

    @property
    def files(self) -> list[Path]:
        return [s.where for s in self.sources if isinstance(s.where, Path)]

    @property
    def errors(self) -> list[ConfigError]:
        return [e for s in self.sources for e in s.errors]

    @property
    def ignored(self) -> list[ConfigError]:
        """What opencode ignores in its own sources (unknown keys, a non-JSON OPENCODE_PERMISSION)."""
        return [e for s in self.sources for e in s.ignored]

    @property
    def substituted(self) -> dict[Spot, str]:
        return {k: v for s in self.sources for k, v in s.substituted.items()}


def scan_config(cwd: Path, project: Path | None, overlays: tuple[Path, ...],
                env: Mapping[str, str] | None = None) -> ConfigScan:
    """Every source `load_config` would read, each checked on its own. Raises ConfigError only when
    the project itself cannot be found (nothing could be loaded)."""
    from forge_tools.config.loader import LoadOptions, discover
    from forge_tools.config.reader import read_source
    from forge_tools.paths import home_dir

    environ = os.environ if env is None else env
    root, real_cwd, found, config_dirs = discover(LoadOptions(cwd=cwd, project=project, overlays=overlays,
                                                              env=env))
    home = home_dir(environ)
    sources = [read_source(step, where, environ, real_cwd, home) for step, where in found]
    return ConfigScan(root, config_dirs, sources)
