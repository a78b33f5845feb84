"""Which files Codex CLI 0.171 reads and what it takes from them: config layers, trust, rules.

- the user's `$CODEX_HOME/config.toml` (default `~/.codex/config.toml`) and `$CODEX_HOME/rules/*.rules`;
- with `--profile NAME`, `$CODEX_HOME/NAME.config.toml` over the user's config (below the project's
  and `-c`; a missing file adds nothing); a top-level `profile = "NAME"` in the user's config (or
  `-c profile=NAME`) stops Codex ("legacy ... no longer supported"), and so does `--profile NAME`
  beside a `[profiles.NAME]` table; a `[profiles.*]` table no flag names is ignored, and so is a
  `profile` key in a project's config;
- the project's `.codex/config.toml` and `.codex/rules/*.rules` in every folder from the project
  root (the nearest folder above the working directory holding `.git`, else the working directory)
  down to the working directory, the closest winning, **only when the project is trusted**:
  `[projects."<project root>"] trust_level = "trusted"` in the user's config, the path exactly as
  the root is (an entry for a subfolder, or with a trailing `/`, does not trust it; `untrusted` or no
  entry: not read);
- with no value set: `sandbox_mode` is `workspace-write` for a project with a trust entry and
  `read-only` without one; `approval_policy` is `unless-trusted` for a project marked untrusted,
  else `on-request`;
- `-c key=value` overrides (TOML values) above every file.

An unknown `sandbox_mode`, `approval_policy` or `trust_level` value stops Codex at the value's
file:line:col (`start_error`), and so does `approval_policy = "untrusted"`. A rules file Codex reads
that fails to load stops it too (`Error loading rules: ...`: `codex exec` and the interactive CLI
refuse to start, so no call runs; an unread one, an untrusted project's, changes nothing).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from forge_tools.origin import Node, Origin
from forge_tools.runtimes.codex.paths import codex_home, project_folders, project_root, rules_in
from forge_tools.runtimes.codex.policy import Policy

APPROVAL_POLICIES = ("on-failure", "on-request", "never")  # `granular` takes a table (not modelled)
SANDBOX_MODES = ("read-only", "workspace-write", "danger-full-access")
TRUST_LEVELS = ("trusted", "untrusted")


@dataclass(frozen=True)
class Layer:
    """One config file Codex reads (or would read when trusted)."""

    scope: str  # user, project, cli
    path: Path | None
    data: Node | None  # None: no such file, or not read
    loaded: bool
    why_not: str | None = None


@dataclass
class CodexSettings:
    """What Codex reads for permissions started in `cwd`: its config layers, rules and modes."""

    cwd: Path
    project_root: Path
    codex_home: Path
    trusted: bool
    trust_origin: Origin | None
    trust_level: str | None = None  # as written in the user's config; None: no entry
    layers: list[Layer] = field(default_factory=list)
    #: every rules file: (path, scope, loaded, why not)
    rules_files: list[tuple[Path, str, bool, str | None]] = field(default_factory=list)
    policy: Policy = field(default_factory=Policy)
    values: dict[str, tuple[Any, Origin | None]] = field(default_factory=dict)
    start_error: str | None = None
    start_error_origin: Origin | None = None
    start_fix: str | None = None  # what makes Codex start (FT325's fix), naming the values it takes

    def value(self, key: str, default: Any = None) -> Any:
        return self.values.get(key, (default, None))[0]

    @property
    def approval_policy(self) -> str:
        """The config's, else Codex's default: `unless-trusted` for a project marked untrusted (asks
        before any command no rule allows), `on-request` otherwise."""
        default = "unless-trusted" if self.trust_level == "untrusted" else "on-request"
        return str(self.value("approval_policy", default))

    @property
    def sandbox_mode(self) -> str:
        """The config's, else Codex's default: `workspace-write` for a project with a trust entry
        (trusted or untrusted), `read-only` without one."""
        return str(self.value("sandbox_mode", "read-only" if self.trust_level is None else "workspace-write"))

    def mcp_servers(self) -> dict[str, dict[str, Any]]:
        servers = self.value("mcp_servers", {})
        return servers if isinstance(servers, dict) else {}

    def mcp_tool_offered(self, server: str, tool: str) -> tuple[bool, str]:
        """Whether Codex offers `mcp__server__tool` (the server's own list aside) and why not."""
        conf = self.mcp_servers().get(server)
        if conf is None:
            return False, f"no MCP server {server!r} in the config Codex reads"
        if conf.get("enabled", True) is False:
            return False, f"mcp_servers.{server}.enabled = false"
        enabled = conf.get("enabled_tools")
        if isinstance(enabled, list) and tool not in enabled:
            return False, f"not in mcp_servers.{server}.enabled_tools"
        disabled = conf.get("disabled_tools")
        if isinstance(disabled, list) and tool in disabled:
            return False, f"in mcp_servers.{server}.disabled_tools"
        return True, f"mcp_servers.{server} offers it"

    def offered_mcp_tools(self, server_tools: Mapping[str, tuple[str, ...]]) -> list[str]:
        """`mcp__server__tool` for each tool a server lists (`server_tools`) that Codex offers."""
        return [f"mcp__{s}__{t}" for s, tools in server_tools.items() for t in tools
                if self.mcp_tool_offered(s, t)[0]]


def _read(path: Path) -> tuple[Node | None, str | None, Origin | None]:
    if not path.is_file():  # before importing the TOML reader: most projects have no config.toml
        return None, None, None
    from forge_tools.config.formats.toml_format import parse_toml
    from forge_tools.errors import ConfigError

    try:
        return parse_toml(path.read_text(encoding="utf-8"), Origin("file", str(path))), None, None
    except ConfigError as exc:
        return None, exc.message, exc.origin
    except (OSError, UnicodeDecodeError) as exc:
        return None, str(exc), Origin("file", str(path))


def _override(text: str) -> tuple[str, Any]:
    import tomllib

    key, _, raw = text.partition("=")
    try:
        value = tomllib.loads(f"v = {raw}")["v"]
    except tomllib.TOMLDecodeError:
        value = raw  # Codex takes a value that is not TOML as a string
    return key.strip(), value


def read_codex(cwd: Path, env: Mapping[str, str] | None = None, overrides: list[str] | None = None,
               trust_root: Path | None = None, profile: str | None = None) -> CodexSettings:
    """What Codex started in `cwd` reads (`env`: HOME, CODEX_HOME; `overrides`: `-c` values;
    `trust_root`: take the trust the user's config gives that project root instead of this one's, as
    `diff` reads its old side, a temporary checkout Codex never trusted; `profile`: `--profile NAME`)."""
    env = os.environ if env is None else env
    from forge_tools.runtimes.launch import active

    launch = active("codex") if overrides is None and profile is None else None  # the command's --launch
    if launch is not None:
        overrides, profile = list(launch.options.overrides), launch.options.profile
    cwd = Path(cwd).resolve()
    home = codex_home(env)
    root = project_root(cwd)
    user_path = home / "config.toml"
    user, error, where = _read(user_path)
    settings = CodexSettings(cwd, root, home, False, None)
    if error is not None:
        settings.start_error, settings.start_error_origin = error, where
        return settings
    settings.layers.append(Layer("user", user_path, user, user is not None))
    legacy = _legacy_profile(user, overrides or [])
    if legacy is not None:
        settings.start_error, settings.start_error_origin = legacy
        return settings
    if profile is not None:
        if _profiles_table(user, profile) is not None:
            settings.start_error = (f"--profile `{profile}` cannot be used while {user_path} contains "
                                    f"legacy `profile = \"{profile}\"` or `[profiles.{profile}]` config")
            settings.start_error_origin = _profiles_table(user, profile)
            return settings
        if not _add_layer(settings, "profile", home / f"{profile}.config.toml"):
            return settings
    trust = _trust([layer.data for layer in settings.layers], trust_root if trust_root is not None else root)
    settings.trusted = trust is not None and trust.value == "trusted"
    settings.trust_level = str(trust.value) if trust is not None else None
    settings.trust_origin = trust.origin if trust is not None else None
    if trust is not None and trust.value not in TRUST_LEVELS:
        settings.start_error = (f"unknown variant `{trust.value}`, expected `trusted` or `untrusted` "
                                f"(projects.\"{root}\".trust_level)")
        settings.start_fix = "set `trust_level` to `trusted` or `untrusted`"
        settings.start_error_origin = trust.origin
        return settings
    folders = project_folders(cwd, root)
    why = None if settings.trusted else (
        f"the project {root} is not trusted" + (" (trust_level = \"untrusted\")" if trust is not None
                                                else f" (no [projects.\"{root}\"] entry in {user_path})"))
    rules: list[Path] = []
    for p in rules_in(home):
        settings.rules_files.append((p, "user", True, None))
        rules.append(p)
    for folder in folders:
        path = folder / ".codex" / "config.toml"
        if settings.trusted:
            if not _add_layer(settings, "project", path):
                return settings
        elif path.is_file():
            settings.layers.append(Layer("project", path, None, False, why))
        for p in rules_in(folder / ".codex"):
            settings.rules_files.append((p, "project", settings.trusted, why))
            if settings.trusted:
                rules.append(p)
    for layer in settings.layers:
        if layer.data is not None:
            for key, node in layer.data.items():
                old = settings.values.get(key, (None, None))[0]
                settings.values[key] = (_merged(old, node.plain()), node.origin)
    for text in overrides or []:
        key, value = _override(text)
        top, *rest = key.split(".")
        if rest:  # a dotted path sets one value inside a table (`mcp_servers.srv.enabled=false`)
            import copy

            table = copy.deepcopy(settings.value(top, {}))
            table = table if isinstance(table, dict) else {}
            inner = table
            for part in rest[:-1]:
                if not isinstance(inner.get(part), dict):
                    inner[part] = {}
                inner = inner[part]
            inner[rest[-1]] = value
            value = table
        settings.values[top] = (value, Origin("cli", name=f"-c {key}"))
    settings.policy = Policy.read(rules)
    refused = settings.policy.error
    if refused is not None and refused.error is not None:
        where = refused.error_origin or Origin("file", str(refused.path))
        settings.start_error = f"Error loading rules: {refused.path}: {refused.error}"
        settings.start_error_origin = where
        return settings
    for key, value, flag in launch.options.values if launch is not None else ():
        settings.values[key] = (value, Origin("cli", name=flag))  # -a, -s, codex exec: above the files
    _check_values(settings)
    return settings


def _add_layer(settings: CodexSettings, scope: str, path: Path) -> bool:
    """Read one more config file into `settings.layers` (none there: nothing); False when it stops
    Codex (the error is the settings' `start_error`)."""
    data, error, where = _read(path)
    if error is not None:
        settings.start_error, settings.start_error_origin = error, where
        return False
    if data is not None:
        settings.layers.append(Layer(scope, path, data, True))
    return True


def _merged(old: Any, new: Any) -> Any:
    """A later layer's value over an earlier one's: tables merged key by key, anything else replaced."""
    if isinstance(old, dict) and isinstance(new, dict):
        return {**old, **{k: _merged(old.get(k), v) for k, v in new.items()}}
    return new


def _trust(layers: list[Node | None], root: Path) -> Node | None:
    """The project's `trust_level` in the user's config or the profile's file (the later wins)."""
    found = None
    for data in layers:
        projects = data.get("projects") if data is not None else None
        entry = projects.get(str(root)) if projects is not None else None
        level = entry.get("trust_level") if entry is not None else None
        found = level if level is not None else found
    return found


def _legacy_profile(user: Node | None, overrides: list[str]) -> tuple[str, Origin | None] | None:
    """A top-level `profile = "NAME"` in the user's config or `-c profile=NAME`: Codex stops."""
    node = user.get("profile") if user is not None else None
    value, origin = (node.plain(), node.origin) if node is not None else (None, None)
    for text in overrides:
        key, given = _override(text)
        if key == "profile":
            value, origin = given, Origin("cli", name=f"-c {key}")
    if value is None:
        return None
    return (f"legacy `profile = \"{value}\"` config is no longer supported; use `--profile {value}` with "
            f"`{value}.config.toml` instead"), origin


def _profiles_table(user: Node | None, name: str) -> Origin | None:
    """Where the user's config has a `[profiles.NAME]` table, or None."""
    profiles = user.get("profiles") if user is not None else None
    table = profiles.get(name) if profiles is not None else None
    return table.origin if table is not None else None


def _check_values(settings: CodexSettings) -> None:
    for key, allowed in (("sandbox_mode", SANDBOX_MODES), ("approval_policy", APPROVAL_POLICIES)):
        if key not in settings.values:
            continue
        value, origin = settings.values[key]
        if key == "approval_policy" and value == "untrusted":
            settings.start_error = 'approval_policy = "untrusted" is no longer supported; remove this setting'
            settings.start_fix = ("remove `approval_policy = \"untrusted\"`, or set one of "
                                  + ", ".join(f"`{a}`" for a in allowed))
        elif value not in allowed:
            settings.start_error = (f"unknown variant `{value}`, expected one of "
                                    + ", ".join(f"`{a}`" for a in allowed) + f" (in `{key}`)")
            settings.start_fix = f"set `{key}` to one of " + ", ".join(f"`{a}`" for a in allowed)
        else:
            continue
        settings.start_error_origin = origin
        return
