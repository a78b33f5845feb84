"""Claude Code 2.1.332's settings files, read as it reads them: which files, in which order, which of
their permission rules it loads (and why not), its mode and its trust of the workspace.

Files, lowest to highest for a single value (`defaultMode`); permission rule arrays are merged from
all of them (deny > ask > allow whatever the file, `decide.py`):

- user: `$CLAUDE_CONFIG_DIR/settings.json`, else `~/.claude/settings.json`;
- project: `<dir>/.claude/settings.json`, `<dir>` being where Claude is started (the working
  directory);
- local: `<dir>/.claude/settings.local.json`;
- command line: `--allowedTools`, `--disallowedTools`, `--permission-mode` (`ClaudeOptions`);
- managed: `/etc/claude-code/managed-settings.json`, then `managed-settings.d/*.json` in name order.
  `FORGE_TOOLS_CLAUDE_MANAGED_DIR` names another directory (tests, or a copy of a fleet's policy).

Trust is `projects[<dir>].hasTrustDialogAccepted` in the state file, `$CLAUDE_CONFIG_DIR/.claude.json`
when that variable is set, else `~/.claude.json`, for the directory or a parent up to its git root. In an
untrusted workspace the allow rules of `.claude/settings.json` are not loaded (and said so); those
of `settings.local.json` are, as the binary shows. `allowManagedPermissionRulesOnly: true` in a
managed file drops every other file's rules, denies included. The MCP servers Claude would start are
read too (`mcp.py`), never started.

Every file is read by forge-tools' located JSON reader (`config.formats.json_format.parse_json`), so
each rule knows its file:line:col. A file Claude cannot read (not JSON) is skipped, with a problem
saying where; a rule Claude rejects is skipped, with a problem at the rule.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from forge_tools.named_tuple import NamedTuple
from forge_tools.origin import Node, Origin
from forge_tools.runtimes.claude.mcp import ClaudeMcpServer, read_mcp_servers
from forge_tools.runtimes.claude.paths import (
    Scope,
    config_dir,
    managed_dir,
    settings_paths,
)
from forge_tools.runtimes.claude.rules import Spec, parse_rule

Behavior = Literal["allow", "ask", "deny"]
BEHAVIORS: tuple[Behavior, ...] = ("allow", "ask", "deny")
#: lowest to highest for single values
SCOPES: tuple[Scope, ...] = ("user", "project", "local", "cli", "managed")
MODES = ("default", "acceptEdits", "plan", "auto", "dontAsk", "bypassPermissions")


class ClaudeOptions(NamedTuple):
    """Claude's command-line permission options (none by default: a plain `claude` start)."""

    permission_mode: str | None = None
    allowed_tools: tuple[str, ...] = ()
    disallowed_tools: tuple[str, ...] = ()
    settings: tuple[str, ...] = ()  # --settings: a file or inline JSON, a layer of its own
    setting_sources: tuple[str, ...] | None = None  # --setting-sources user,project,local
    add_dirs: tuple[str, ...] = ()  # --add-dir: more working directories
    mode_flag: str = "--permission-mode"  # the flag that set permission_mode (--dangerously-skip-permissions)
    asks_refused: bool = False  # `claude -p` with no one to answer a prompt (--permission-prompts host)


@dataclass(frozen=True)
class ClaudeRule:
    """One entry of a `permissions.allow|ask|deny` array, as Claude reads it."""

    behavior: Behavior
    text: str  # as written
    spec: Spec
    origin: Origin
    scope: Scope
    base: Path  # the directory a `/x` path is relative to: the settings file's project directory
    loaded: bool = True
    why_not: str | None = None  # why Claude does not use it (untrusted workspace, managed-only, invalid)

    @property
    def tool(self) -> str:
        return self.spec.tool

    @property
    def content(self) -> str | None:
        return self.spec.content

    def describe(self) -> str:
        return f"{self.behavior} {self.text!r} ({self.origin})"

    def to_json(self) -> dict[str, object]:
        return {"behavior": self.behavior, "rule": self.text, "tool": self.tool, "content": self.content,
                "scope": self.scope, "origin": self.origin.to_json(), "loaded": self.loaded,
                "why_not": self.why_not}


@dataclass(frozen=True)
class SettingsFile:
    """One settings file Claude reads (or would): its scope, whether it exists, its located JSON."""

    scope: Scope
    path: Path
    exists: bool
    tree: Node | None = None  # None: missing or unreadable
    error: str | None = None  # the one-line error when Claude cannot read it


@dataclass
class ClaudeSettings:
    """Everything Claude Code reads for permissions in one workspace."""

    cwd: Path
    home: Path
    config_dir: Path
    managed_dir: Path
    files: list[SettingsFile] = field(default_factory=list)
    rules: list[ClaudeRule] = field(default_factory=list)  # every rule, loaded or not, in file order
    mode: str = "default"
    mode_origin: Origin | None = None
    trusted: bool = False
    trust_origin: Origin | None = None
    state_file: Path | None = None
    managed_only: bool = False
    bypass_disabled: bool = False
    additional_dirs: list[Path] = field(default_factory=list)
    problems: list[tuple[Origin, str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    is_root: bool = False
    asks_refused: bool = False  # `claude -p` and no prompt host: what would ask is refused (launch)
    start_error: str | None = None  # Claude Code does not start at all with these settings
    disabled_mcp: set[str] = field(default_factory=set)  # disabledMcpjsonServers: no tools from these
    mcp_servers: list[ClaudeMcpServer] = field(default_factory=list)  # mcp.read_mcp_servers
    env: Mapping[str, str] = field(default_factory=dict)

    @property
    def loaded_rules(self) -> list[ClaudeRule]:
        return [r for r in self.rules if r.loaded]

    @property
    def working_dirs(self) -> list[Path]:
        return [self.cwd, *self.additional_dirs]

    @property
    def present_files(self) -> list[SettingsFile]:
        return [f for f in self.files if f.exists]


def read_settings(cwd: Path, env: Mapping[str, str] | None = None, options: ClaudeOptions | None = None,
                  home: Path | None = None, is_root: bool | None = None,
                  trusted: bool | None = None) -> ClaudeSettings:
    """Claude Code's settings for a session started in `cwd` (nothing is run). `is_root`: whether
    Claude runs as root (default: whether this process does), which refuses bypassPermissions;
    `trusted` overrides the workspace's trust state."""
    env = dict(os.environ if env is None else env)
    if options is None:  # the command's --launch, when it starts Claude (runtimes/launch.py)
        from forge_tools.runtimes.launch import active

        launch = active("claude")
        options = launch.options if launch is not None else ClaudeOptions()
    home = home if home is not None else Path(env.get("HOME") or os.path.expanduser("~"))
    cwd = Path(os.path.abspath(cwd))
    settings = ClaudeSettings(cwd=cwd, home=home, config_dir=config_dir(env, home),
                              managed_dir=managed_dir(env), env=env,
                              is_root=(hasattr(os, "geteuid") and os.geteuid() == 0) if is_root is None
                              else is_root)
    settings.asks_refused = options.asks_refused
    _read_trust(settings)
    if trusted is not None:  # a caller's own answer (diff reads a checkout with the worktree's trust)
        settings.trusted, settings.trust_origin = trusted, None
    for scope, path in settings_paths(cwd, env, home):
        if options.setting_sources is not None and scope in ("user", "project", "local") \
                and scope not in options.setting_sources:
            continue  # --setting-sources leaves it out
        settings.files.append(_read_file(scope, path, settings))
    for i, value in enumerate(options.settings):
        settings.files.append(_cli_settings(value, i, settings))
    _collect(settings, options)
    settings.mcp_servers = read_mcp_servers(settings)
    return settings


def _read_file(scope: Scope, path: Path, settings: ClaudeSettings) -> SettingsFile:
    from forge_tools.config.formats.json_format import parse_json
    from forge_tools.errors import ConfigError

    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return SettingsFile(scope, path, False)
    except (OSError, UnicodeDecodeError) as exc:
        message = f"cannot read it ({exc.__class__.__name__}); Claude Code skips it"
        settings.problems.append((Origin("file", str(path)), message))
        return SettingsFile(scope, path, True, None, message)
    base = Origin("file", str(path))
    try:
        tree = parse_json(text, base)
        json.loads(text)  # Claude reads strict JSON: comments or trailing commas make the file unreadable
    except ConfigError as exc:
        settings.problems.append((exc.origin or base, f"{exc.message}; Claude Code skips this file"))
        return SettingsFile(scope, path, True, None, exc.one_line())
    except ValueError as exc:
        line, col = getattr(exc, "lineno", None), getattr(exc, "colno", None)
        where = Origin("file", str(path), line, col)
        message = f"not strict JSON ({getattr(exc, 'msg', exc)}); Claude Code skips this file"
        settings.problems.append((where, message))
        return SettingsFile(scope, path, True, None, f"{where}: {message}")
    if not tree.is_map:
        message = "the settings file is not a JSON object; Claude Code skips it"
        settings.problems.append((tree.origin, message))
        return SettingsFile(scope, path, True, None, message)
    return SettingsFile(scope, path, True, tree)


def _cli_settings(value: str, index: int, settings: ClaudeSettings) -> SettingsFile:
    """A `--settings` value: inline JSON (it starts with `{`) or a file's path."""
    if not value.lstrip().startswith("{"):
        return _read_file("cli", Path(value), settings)
    from forge_tools.config.formats.json_format import parse_json
    from forge_tools.errors import ConfigError

    base = Origin("cli", name=f"--settings[{index}]")
    try:
        tree = parse_json(value, base)
    except ConfigError as exc:
        settings.problems.append((base, exc.message))
        return SettingsFile("cli", Path("--settings"), True, None, exc.message)
    return SettingsFile("cli", Path("--settings"), True, tree if tree.is_map else None)


def _read_trust(settings: ClaudeSettings) -> None:
    """`hasTrustDialogAccepted` for the working directory or a parent up to its git repository's root
    (a trusted directory above the repository does not count; outside a repository every parent
    counts: modelled), from Claude's state file."""
    from forge_tools.config.formats.json_format import parse_json
    from forge_tools.errors import ConfigError

    # `$CLAUDE_CONFIG_DIR/.claude.json`, else `~/.claude.json` (not `~/.claude/.claude.json`:
    # recorded, no-config-dir-env)
    base = settings.config_dir if settings.env.get("CLAUDE_CONFIG_DIR") else settings.home
    if not (base / ".claude.json").is_file():
        return
    settings.state_file = base / ".claude.json"
    try:
        tree = parse_json(settings.state_file.read_text(encoding="utf-8"),
                          Origin("file", str(settings.state_file)))
    except (OSError, UnicodeDecodeError, ConfigError):
        return
    projects = tree.get("projects")
    if projects is None or not projects.is_map:
        return
    here: Path | None = settings.cwd
    while here is not None:
        entry = projects.get(str(here))
        if entry is not None and entry.is_map:
            flag = entry.get("hasTrustDialogAccepted")
            if flag is not None and flag.value is True:
                settings.trusted = True
                settings.trust_origin = flag.origin
                return
        if (here / ".git").exists():
            return  # a parent of the repository's root does not trust it (recorded: trust-parent-dir)
        here = here.parent if here.parent != here else None


def _collect(settings: ClaudeSettings, options: ClaudeOptions) -> None:
    """The rules of every readable file, the mode and the switches, as Claude loads them."""
    readable = [f for f in settings.files if f.tree is not None]
    managed = [f for f in readable if f.scope == "managed"]
    for f in managed:
        perms = f.tree.get("permissions") if f.tree is not None else None
        only = f.tree.get("allowManagedPermissionRulesOnly") if f.tree is not None else None
        if only is not None and only.value is True:
            settings.managed_only = True
        disable = perms.get("disableBypassPermissionsMode") if perms is not None else None
        if disable is not None and disable.value == "disable":
            settings.bypass_disabled = True
    untrusted_note = False
    for f in readable:
        assert f.tree is not None
        disabled = f.tree.get("disabledMcpjsonServers")
        if disabled is not None and disabled.is_list:
            settings.disabled_mcp.update(n.value for n in disabled.value if isinstance(n.value, str))
        perms = f.tree.get("permissions")
        if perms is None or not perms.is_map:
            continue
        # a `/x` path is below the settings file's own root: the project for .claude/settings*.json,
        # the config directory (~/.claude) for the user's, the managed directory for managed files
        base = {"user": settings.config_dir, "managed": settings.managed_dir}.get(f.scope, settings.cwd)
        for behavior in BEHAVIORS:
            node = perms.get(behavior)
            if node is None:
                continue
            if not node.is_list:
                settings.problems.append((node.origin, f"permissions.{behavior} must be an array of rule "
                                                       "strings; Claude Code ignores it"))
                continue
            for item in node.value:
                if not isinstance(item.value, str):
                    settings.problems.append((item.origin, "a permission rule must be a string; Claude "
                                                           "Code ignores it"))
                    continue
                spec = parse_rule(item.value, behavior)
                why_not = None
                if spec.problem is not None:
                    why_not = f"Claude Code rejects it: {spec.problem}"
                    settings.problems.append((item.origin, f"rule {item.value!r}: {spec.problem}"))
                elif settings.managed_only and f.scope != "managed":
                    why_not = "allowManagedPermissionRulesOnly is set in managed settings"
                elif not settings.trusted and f.scope == "project" and behavior == "allow":
                    why_not = "this workspace has not been trusted (hasTrustDialogAccepted)"
                    untrusted_note = True
                settings.rules.append(ClaudeRule(behavior, item.value, spec, item.origin, f.scope, base,
                                                 why_not is None, why_not))
        dirs = perms.get("additionalDirectories")
        if dirs is not None and dirs.is_list:
            for item in dirs.value:
                if isinstance(item.value, str):
                    raw = os.path.expanduser(item.value) if item.value.startswith("~") else item.value
                    settings.additional_dirs.append(Path(os.path.normpath(settings.cwd / raw)))
    settings.additional_dirs += [Path(os.path.normpath(settings.cwd / os.path.expanduser(d)))
                                 for d in options.add_dirs]
    _cli_rules(settings, options)
    if untrusted_note:
        ignored = sum(1 for r in settings.rules if r.why_not and "trusted" in r.why_not)
        settings.notes.append(f"{ignored} allow rule(s) of .claude/settings.json are ignored: this "
                              "workspace has not been trusted in Claude Code")
    _mode(settings, readable, options)


def _cli_rules(settings: ClaudeSettings, options: ClaudeOptions) -> None:
    pairs: tuple[tuple[Behavior, tuple[str, ...], str], ...] = (
        ("allow", options.allowed_tools, "--allowedTools"),
        ("deny", options.disallowed_tools, "--disallowedTools"))
    for behavior, values, name in pairs:
        for value in values:
            spec = parse_rule(value, behavior)
            origin = Origin("cli", name=name)
            why_not = f"Claude Code rejects it: {spec.problem}" if spec.problem else None
            if why_not is None and settings.managed_only:
                why_not = "allowManagedPermissionRulesOnly is set in managed settings"
            settings.rules.append(ClaudeRule(behavior, value, spec, origin, "cli", settings.cwd,
                                             why_not is None, why_not))


def _mode(settings: ClaudeSettings, readable: Sequence[SettingsFile], options: ClaudeOptions) -> None:
    """`defaultMode`: the highest file that sets a known mode (the command line above the files but
    below managed); bypassPermissions is refused when managed settings disable it, or for root
    without IS_SANDBOX=1."""
    chosen: tuple[str, Origin] | None = None
    for scope in SCOPES:
        if scope == "cli":
            if options.permission_mode:
                chosen = (options.permission_mode, Origin("cli", name=options.mode_flag))
            continue
        for f in readable:
            if f.scope != scope or f.tree is None:
                continue
            perms = f.tree.get("permissions")
            node = perms.get("defaultMode") if perms is not None else None
            if node is None:
                continue
            if scope in ("project", "local") and node.value == "bypassPermissions":
                # the project's files cannot put Claude in bypass mode, and the mode a lower file
                # set is gone too: project plan + local bypass is `default` (generated corpus)
                settings.notes.append(f"defaultMode bypassPermissions of {f.path.name} "
                                      f"({node.origin}) is ignored: Claude Code does not let a project "
                                      "put it in bypass mode (the mode is default)")
                chosen = None
                continue
            # an untrusted workspace's project defaultMode still applies (recorded,
            # untrusted-defaultMode-*): only its allow rules are dropped
            if node.value not in MODES:
                settings.problems.append((node.origin, f"unknown defaultMode {node.value!r}; known: "
                                                       + ", ".join(MODES)))
                continue
            chosen = (node.value, node.origin)
    if chosen is None:
        return
    mode, origin = chosen
    if mode == "bypassPermissions":
        if settings.bypass_disabled:
            settings.notes.append("bypassPermissions is disabled by managed settings "
                                  "(disableBypassPermissionsMode): the mode is default")
            return
        if settings.is_root and settings.env.get("IS_SANDBOX") != "1":
            settings.start_error = (f"Claude Code does not start: bypassPermissions ({origin}) is refused "
                                    "for root unless IS_SANDBOX=1")
            settings.notes.append(settings.start_error)
            return
    settings.mode, settings.mode_origin = mode, origin
