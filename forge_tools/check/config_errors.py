"""Every config problem of every source at once, for `check` (the loader itself stops at the first).

This walks the same discovery list as `load_config` and calls the config package's own reader,
parser, substitution and schema pieces on each source separately, so a CI run shows all bad files in
one go. The classification into finding codes reads the loader's messages, which are stable text.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from forge_tools.errors import ConfigError
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


def classify(error: ConfigError) -> str:
    """The finding code for a loader error, from its (stable) message."""
    text = error.message
    if text.startswith(("invalid JSON", "invalid YAML", "invalid TOML", "recursive YAML alias")) or (
            "a key must be" in text):
        return "FT001"
    if "duplicate key" in text:
        return "FT007"
    if "unknown action" in text:
        return "FT003"
    if text.startswith("unknown top-level key") or text.startswith("unknown key"):
        return "FT004"
    if text.startswith("{file:"):
        return "FT005"
    if text.startswith(("cannot read config file", "no such config file")):
        return "FT006"
    if "expected " in text or "must be" in text or "is not one of" in text:
        return "FT002"
    return "FT008"


def finding_for(error: ConfigError) -> Finding:
    code = classify(error)
    return Finding(code, "error", error.message, _HINTS[code], error.origin)


@dataclass
class SourceCheck:
    """One discovered source and what was wrong with it."""

    step: str
    where: Path | str
    tree: Node | None = None
    errors: list[ConfigError] = field(default_factory=list)
    substituted: dict[Spot, str] = field(default_factory=dict)  # where {env:}/{file:} gave the value


Spot = tuple[str | None, int | None, int | None]


def spot_of(origin: Origin) -> Spot:
    """Where a value was written (file, line, column): how a finding is matched to a substituted value."""
    return (origin.path if origin.kind == "file" else origin.name, origin.line, origin.column)


def _substituted_spots(node: Node, substituted: dict[Spot, str]) -> None:
    """Note where a value (or a key) came from `{env:}`/`{file:}`, with the template as written, so that
    no finding shows its content."""
    if node.meta.get("key_substituted") and node.key_origin is not None:
        substituted[spot_of(node.key_origin)] = str(node.meta.get("key_template", "the substitution"))
    if node.meta.get("substituted"):
        substituted[spot_of(node.origin)] = str(node.meta.get("template", "the substitution"))
    children = node.value.values() if isinstance(node.value, dict) else (
        node.value if isinstance(node.value, list) else ())
    for child in children:
        _substituted_spots(child, substituted)


def redact(finding: Finding, substituted: Mapping[Spot, str]) -> Finding:
    """A finding about a value that came from `{env:}` or `{file:}` says so without showing the value:
    `check` runs on untrusted pull requests, and a config must not be able to print a runner's secret
    files or variables into CI logs or a code-scanning upload."""
    import dataclasses

    if finding.origin is None or spot_of(finding.origin) not in substituted:
        return finding
    return dataclasses.replace(finding, message=redacted_message(finding.origin, substituted), data={})


def echoed_substitutions(tree: Node) -> dict[str, str]:
    """Substituted values that other messages quote (the model id in model-layer reasons, the default
    agent and agents' models in `diff`), each with its template, so they can be scrubbed from output."""
    found: dict[str, str] = {}

    def note(node: Node | None) -> None:
        if node is not None and isinstance(node.value, str) and node.value and node.meta.get("substituted"):
            found[node.value] = str(node.meta.get("template", "{substitution}"))

    note(tree.get("model"))
    note(tree.get("small_model"))
    note(tree.get("default_agent"))
    agents = tree.get("agent")
    if agents is not None and agents.is_map:
        for _name, agent in agents.items():
            if agent.is_map:
                note(agent.get("model"))
    return found


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


def schema_errors(tree: Node) -> list[ConfigError]:
    """All schema errors of one source (one per offending node), in file order."""
    from forge_tools.config.schema import validation_errors

    return validation_errors(tree)


def _position(e: ConfigError) -> tuple[str, int, int]:
    o = e.origin
    if o is None:
        return ("", 0, 0)
    return (o.path or "", o.line or 0, o.column or 0)


def check_source(step: str, where: Path | str, env: Mapping[str, str], cwd: Path,
                 home: Path) -> SourceCheck:
    """Read, parse, substitute and validate one source, keeping every error found."""
    from forge_tools.config.loader import ENV_PERMISSION, read_config_text, substitutes
    from forge_tools.config.parse import format_of, parse_text
    from forge_tools.config.substitute import parse_substituted

    result = SourceCheck(step, where)
    if isinstance(where, Path):
        try:
            text = read_config_text(where, step)
        except ConfigError as exc:
            result.errors.append(exc)
            return result
        fmt, base, base_dir = format_of(where), Origin("file", path=str(where)), where.parent
    else:
        text, fmt, base, base_dir = env[where], "json", Origin("env", name=where), cwd
    try:
        text = text.removeprefix("\ufeff")
        tree = (parse_substituted(text, fmt, base, env, base_dir, home, result.errors)
                if substitutes(step) else parse_text(text, fmt, base))
    except ConfigError as exc:
        result.errors.append(exc)
        return result
    _substituted_spots(tree, result.substituted)
    if step in ENV_PERMISSION:
        label = Origin("env", name=str(where))
        tree = Node({"permission": tree}, label, None)
        tree.value["permission"].key_origin = label
    # a value whose substitution failed is reported once (at its token, on the same line)
    failed = {(e.origin.path, e.origin.line) for e in result.errors if e.origin is not None}
    result.errors.extend(e for e in schema_errors(tree)
                         if e.origin is None or (e.origin.path, e.origin.line) not in failed)
    result.tree = tree
    return result


@dataclass
class ConfigScan:
    """What `check` knows about the config before (and whether) the real loader can run."""

    project_root: Path
    config_dirs: list[Path]
    sources: list[SourceCheck]

    @property
    def files(self) -> list[Path]:
        return [s.where for s in self.sources if isinstance(s.where, Path)]

    @property
    def errors(self) -> list[ConfigError]:
        return [e for s in self.sources for e in s.errors]

    @property
    def substituted(self) -> dict[Spot, str]:
        return {k: v for s in self.sources for k, v in s.substituted.items()}


def scan_config(cwd: Path, project: Path | None, overlays: tuple[Path, ...],
                env: Mapping[str, str] | None = None) -> ConfigScan:
    """Every source `load_config` would read, each checked on its own. Raises ConfigError only when
    the project itself cannot be found (nothing could be loaded)."""
    from forge_tools.config.loader import LoadOptions, discover
    from forge_tools.paths import home_dir

    environ = os.environ if env is None else env
    root, real_cwd, found, config_dirs = discover(LoadOptions(cwd=cwd, project=project, overlays=overlays,
                                                              env=env))
    home = home_dir(environ)
    sources = [check_source(step, where, environ, real_cwd, home) for step, where in found]
    return ConfigScan(root, config_dirs, sources)
