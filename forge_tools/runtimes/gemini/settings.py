"""Gemini CLI 0.61's settings and policy files, read as the CLI reads them: which files, in which
order, how they merge, whether the folder is trusted, and the policy rules they give.

settings.json layers, lowest to highest: system defaults (`/etc/gemini-cli/system-defaults.json`),
the user's `~/.gemini/settings.json`, the workspace's `.gemini/settings.json` (only when the folder is
trusted, and not when the workspace is the home directory), the system settings
(`/etc/gemini-cli/settings.json`). `GEMINI_CLI_SYSTEM_SETTINGS_PATH` and
`GEMINI_CLI_SYSTEM_DEFAULTS_PATH` move the system files, as in Gemini; `FORGE_TOOLS_GEMINI_SYSTEM_DIR`
names another system directory for forge-tools (tests, or a copy of a fleet's). A higher layer
replaces `tools.allowed`, `tools.core`, `tools.confirmationRequired`, `mcp.allowed` and
`mcp.excluded` whole; `tools.exclude`, `policyPaths` and `adminPolicyPaths` are the union of every
layer's; `mcpServers` merges by server name.

Folder trust is on unless `security.folderTrust.enabled` is false (read without the workspace's own
file); a folder is trusted by `~/.gemini/trustedFolders.json` (its longest matching entry:
TRUST_FOLDER, TRUST_PARENT, DO_NOT_TRUST) or `GEMINI_CLI_TRUST_WORKSPACE=true`, and is untrusted with
no entry.

Policy directories: the admin tier `/etc/gemini-cli/policies` (skipped when it is not owned by root
or is writable by group or others) and `adminPolicyPaths` (ignored when the admin directory holds a
`.toml`), the user tier `~/.gemini/policies` (or `policyPaths`, which replace it), the built-in
defaults (recorded from the library: forge_tools/data/gemini-0.61.0-defaults.json). The workspace tier
`.gemini/policies` is disabled in the released CLI (`disableWorkspacePolicies = true`): its files are
listed as not loaded.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from forge_tools.origin import Node, Origin
from forge_tools.runtimes.gemini.paths import policy_files, settings_paths, system_dir
from forge_tools.runtimes.gemini.policy import (
    ADMIN_TIER,
    ALLOWED_MCP_PRIORITY,
    ALLOWED_PRIORITY,
    CONFIRMATION_PRIORITY,
    CORE_PRIORITY,
    EXCLUDE_PRIORITY,
    MCP_EXCLUDED_PRIORITY,
    MCP_PREFIX,
    NON_PLAN_MODES,
    SHELL,
    SHELL_TOOLS,
    TRUSTED_MCP_PRIORITY,
    USER_TIER,
    WORKSPACE_TIER,
    GeminiRule,
    args_patterns,
)
from forge_tools.runtimes.gemini.policy_files import PolicyFile, Problem, read_policy_file

LAYERS = ("system-defaults", "user", "workspace", "system")  # lowest to highest
_REPLACE_UNION = {("tools", "exclude"), ("policyPaths",), ("adminPolicyPaths",)}
_SHALLOW = {("mcpServers",)}
DEFAULTS_FILE = Path(__file__).resolve().parents[2] / "data" / "gemini-0.61.0-defaults.json"


@dataclass
class SettingsFile:
    """One settings.json layer: where, whether it exists and is read, why not."""

    layer: str
    path: Path
    exists: bool
    loaded: bool = False
    why_not: str | None = None
    tree: Node | None = None


@dataclass
class GeminiSettings:
    """Everything Gemini reads for one working directory: layers, trust, policy files, rules."""

    cwd: Path
    home: Path
    system_dir: Path
    files: list[SettingsFile] = field(default_factory=list)
    merged: dict[str, Node] = field(default_factory=dict)
    trusted: bool = False
    trust_why: str = ""
    policy: list[PolicyFile] = field(default_factory=list)
    rules: list[GeminiRule] = field(default_factory=list)  # the engine's, highest priority first
    problems: list[Problem] = field(default_factory=list)
    mode: str = "default"
    interactive: bool = True
    start_error: str | None = None  # Gemini CLI does not start (a settings file it cannot parse)
    env: Mapping[str, str] = field(default_factory=dict, repr=False)  # the environment it was read with

    def value(self, *keys: str) -> Any:
        node = self.node(*keys)
        return node.plain() if node is not None else None

    def node(self, *keys: str) -> Node | None:
        current: Node | None = self.merged.get(keys[0])
        for key in keys[1:]:
            current = current.get(key) if current is not None else None
        return current

    @property
    def default_decision(self) -> str:
        return "ask_user" if self.interactive else "deny"

    @property
    def disable_always_allow(self) -> bool:
        return bool(self.value("security", "disableAlwaysAllow") or self.value("admin", "secureModeEnabled"))


def _insecure(path: Path, env: Mapping[str, str]) -> str | None:
    """Why a system file or directory is not trusted (not root's, or writable by group or others). A
    directory named by FORGE_TOOLS_GEMINI_SYSTEM_DIR may also be the current user's (a copy is yours)."""
    try:
        info = path.stat()
    except OSError as exc:
        return f"cannot stat it ({exc.__class__.__name__})"
    owners = {0, os.getuid()} if env.get("FORGE_TOOLS_GEMINI_SYSTEM_DIR") else {0}
    if info.st_uid not in owners:
        return f"not owned by root (uid {info.st_uid})"
    if info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return f"writable by group or others (mode {oct(info.st_mode & 0o777)})"
    return None


def _read(layer: str, path: Path, problems: list[Problem], env: Mapping[str, str]) -> SettingsFile:
    from forge_tools.config.formats.json_format import parse_json
    from forge_tools.errors import ConfigError

    if not path.is_file():
        return SettingsFile(layer, path, False)
    if layer.startswith("system"):
        insecure = _insecure(path, env) or _insecure(path.parent, env)
        if insecure is not None:
            why = f"Gemini CLI skips a system settings file that is {insecure}"
            problems.append(Problem(Origin("file", str(path)), why, "warning", "settings"))
            return SettingsFile(layer, path, True, False, why)
    base = Origin("file", str(path))
    try:
        text = path.read_text(encoding="utf-8")
        strict = _strict_error(text)
        if strict is not None:
            line, col, msg = strict
            why = (f"not JSON with comments ({msg}; trailing commas and JSON5 are refused): "
                   "Gemini CLI does not start")
            problems.append(Problem(Origin("file", str(path), line, col), why, "error", "settings-fatal"))
            return SettingsFile(layer, path, True, False, why)
        tree = parse_json(text, base)
    except (OSError, UnicodeDecodeError) as exc:
        why = f"cannot read it ({exc.__class__.__name__}); Gemini CLI skips it"
        problems.append(Problem(base, why, "error", "settings"))
        return SettingsFile(layer, path, True, False, why)
    except ConfigError as exc:
        why = f"{exc.message}; Gemini CLI skips this file"
        problems.append(Problem(exc.origin or base, why, "error", "settings"))
        return SettingsFile(layer, path, True, False, why)
    if not tree.is_map:
        why = "not a JSON object; Gemini CLI skips it"
        problems.append(Problem(tree.origin, why, "error", "settings"))
        return SettingsFile(layer, path, True, False, why)
    return SettingsFile(layer, path, True, True, None, tree)


def _strict_error(text: str) -> tuple[int, int, str] | None:
    """Where JSON with comments stops being JSON (Gemini strips comments, then `JSON.parse`)."""
    from forge_tools.config.formats.json_format import _STRING_OR_COMMENT, _blank

    try:
        json.loads(_STRING_OR_COMMENT().sub(_blank, text))
    except json.JSONDecodeError as exc:
        return exc.lineno, exc.colno, exc.msg
    return None


def _merge(target: dict[str, Node], source: Node, keys: tuple[str, ...] = ()) -> None:
    """Gemini's `customDeepMerge` of one layer into `target` (Nodes keep their file:line:col)."""
    for key, value in source.items():
        path = (*keys, key)
        old = target.get(key)
        if path in _SHALLOW and old is not None and old.is_map and value.is_map:
            target[key] = Node({**old.value, **value.value}, value.origin, value.key_origin)
            continue
        if old is not None and old.is_list and path in _REPLACE_UNION:
            items = list(old.value) + (list(value.value) if value.is_list else [value])
            seen: list[Any] = []
            unique = []
            for item in items:
                plain = json.dumps(item.plain(), sort_keys=True)
                if plain not in seen:
                    seen.append(plain)
                    unique.append(item)
            target[key] = Node(unique, value.origin, value.key_origin)
            continue
        if old is not None and old.is_map and value.is_map:
            merged = dict(old.value)
            _merge(merged, value, path)
            target[key] = Node(merged, old.origin, old.key_origin)
        elif value.is_map:
            fresh: dict[str, Node] = {}
            _merge(fresh, value, path)
            target[key] = Node(fresh, value.origin, value.key_origin)
        else:
            target[key] = value


def _trust(settings: GeminiSettings, env: Mapping[str, str]) -> None:
    if env.get("GEMINI_RESTRICTED_MODE") == "true" or env.get("GEMINI_CLI_TRUST_WORKSPACE") == "false":
        settings.trusted, settings.trust_why = False, "untrusted by the environment"
        return
    if env.get("GEMINI_CLI_TRUST_WORKSPACE") == "true":
        settings.trusted, settings.trust_why = True, "trusted by GEMINI_CLI_TRUST_WORKSPACE=true"
        return
    base: dict[str, Node] = {}
    for f in settings.files:
        if f.tree is not None and f.layer != "workspace":
            _merge(base, f.tree)
    trust = base.get("security")
    enabled = trust.get("folderTrust") if trust is not None else None
    flag = enabled.get("enabled") if enabled is not None else None
    if flag is not None and flag.value is False:
        settings.trusted, settings.trust_why = True, "folder trust is disabled (security.folderTrust.enabled)"
        return
    path = Path(env.get("GEMINI_CLI_TRUSTED_FOLDERS_PATH")
                or settings.home / ".gemini" / "trustedFolders.json")
    entries: dict[str, Any] = {}
    try:
        from forge_tools.config.formats.json_format import parse_json

        tree = parse_json(path.read_text(encoding="utf-8"), Origin("file", str(path)))
        entries = tree.plain() if tree.is_map else {}
    except (OSError, ValueError, Exception):
        entries = {}
    here = Path(os.path.realpath(settings.cwd))
    best, level = -1, None
    normalized = {os.path.normpath(os.path.abspath(k)): v for k, v in entries.items()}
    for rule_path, trust_level in normalized.items():
        effective = Path(rule_path).parent if trust_level == "TRUST_PARENT" else Path(rule_path)
        real = Path(os.path.realpath(effective))
        if (here == real or real in here.parents) and len(rule_path) > best:
            best, level = len(rule_path), trust_level
    if level in ("TRUST_FOLDER", "TRUST_PARENT"):
        settings.trusted, settings.trust_why = True, f"trusted by {path}"
    elif level == "DO_NOT_TRUST":
        settings.trusted, settings.trust_why = False, f"DO_NOT_TRUST in {path}"
    else:
        settings.trusted, settings.trust_why = False, f"no entry in {path}; folder trust is on"


def read_settings(cwd: Path, env: Mapping[str, str] | None = None, *, mode: str | None = None,
                  interactive: bool = True) -> GeminiSettings:
    """What Gemini CLI 0.61 reads when started in `cwd` (non-interactive: `gemini -p`); `mode` is
    `--approval-mode`'s (default: the settings' `general.defaultApprovalMode`, see `_mode`)."""
    from forge_tools.paths import home_dir
    from forge_tools.runtimes.launch import active

    env = os.environ if env is None else env
    launch = active("gemini") if mode is None and interactive else None  # the command's --launch
    if launch is not None:
        mode, interactive = launch.options.mode, launch.options.interactive
        if launch.options.skip_trust:
            env = {**env, "GEMINI_CLI_TRUST_WORKSPACE": "true"}
    settings = GeminiSettings(Path(cwd), home_dir(env), system_dir(env), mode=mode or "default",
                              interactive=interactive, env=env)
    settings.files = [_read(layer, path, settings.problems, env)
                      for layer, path in settings_paths(Path(cwd), env)]
    fatal = next((p for p in settings.problems if p.kind == "settings-fatal"), None)
    if fatal is not None:
        settings.start_error = f"{fatal.origin}: {fatal.message}"
    _trust(settings, env)
    if launch is not None and settings.mode != "default" and not settings.trusted:
        # recorded (tests/compat/gemini/launch-*.json): `Approval mode overridden to "default" because
        # the current folder is not trusted.`
        settings.mode = "default"
    for f in settings.files:
        if f.tree is None:
            continue
        if f.layer == "workspace" and not settings.trusted:
            f.loaded, f.why_not = False, f"the folder is not trusted ({settings.trust_why})"
            continue
        _merge(settings.merged, f.tree)
    if not interactive and not settings.trusted and settings.start_error is None:
        settings.start_error = (f"a headless run (gemini -p) refuses a folder that is not trusted "
                                f"({settings.trust_why}); --skip-trust or GEMINI_CLI_TRUST_WORKSPACE=true "
                                "lets it start")
    if mode is None:
        _mode(settings)
    _policies(settings)
    return settings


_APPROVAL_MODES = {"default": "default", "auto_edit": "autoEdit", "plan": "plan"}


def _mode(settings: GeminiSettings) -> None:
    """The approval mode of a plain `gemini` start (modelled from the CLI's config.ts, no record):
    `general.defaultApprovalMode` (`yolo` there is ignored; `plan` needs `general.plan.enabled`), and
    `default` in an untrusted folder; an unknown value stops the CLI."""
    node = settings.node("general", "defaultApprovalMode")
    raw = node.value if node is not None else None
    if raw is None or raw == "yolo":
        return
    if raw not in _APPROVAL_MODES:
        settings.start_error = (f"{node.origin if node is not None else ''}: invalid approval mode {raw!r} "
                                "(yolo, auto_edit, plan, default)")
        return
    mode = _APPROVAL_MODES[str(raw)]
    if mode == "plan" and settings.value("general", "plan", "enabled") is False:
        mode = "default"
    settings.mode = mode if settings.trusted else "default"


def _policy_dirs(settings: GeminiSettings) -> list[tuple[Path, int, str | None]]:
    """(directory, tier, why not loaded) in Gemini's order: admin, adminPolicyPaths, user (or
    policyPaths), the workspace tier (disabled)."""
    admin = settings.system_dir / "policies"
    dirs: list[tuple[Path, int, str | None]] = []
    insecure = _insecure(admin, settings.env) if admin.is_dir() else None
    skipped = f"Gemini CLI skips the admin policy directory: {insecure}" if insecure else None
    dirs.append((admin, ADMIN_TIER, skipped))
    extra = settings.value("adminPolicyPaths") or []
    admin_has_toml = admin.is_dir() and bool(policy_files(admin))
    for p in extra:
        why = (f"ignored: the admin directory {admin} already holds policies" if admin_has_toml else None)
        dirs.append((_expand(settings, p), ADMIN_TIER, why))
    paths = settings.value("policyPaths") or []
    if paths:
        dirs.extend((_expand(settings, p), USER_TIER, None) for p in paths)
    user_dir = settings.home / ".gemini" / "policies"
    if paths:
        dirs.append((user_dir, USER_TIER, "replaced by policyPaths in settings"))
    else:
        dirs.append((user_dir, USER_TIER, None))
    dirs.append((settings.cwd / ".gemini" / "policies", WORKSPACE_TIER,
                 "workspace policies are disabled in Gemini CLI 0.61 (disableWorkspacePolicies)"))
    return dirs


def _expand(settings: GeminiSettings, p: str) -> Path:
    if p == "~" or p.startswith("~/"):
        return Path(str(settings.home) + p[1:])
    return Path(os.path.normpath(p))


def _policies(settings: GeminiSettings) -> None:
    rules: list[GeminiRule] = []
    for directory, tier, why_not in _policy_dirs(settings):
        for path in policy_files(directory):
            if why_not is not None:
                settings.policy.append(PolicyFile(path, tier, False, why_not, by_directory=True))
                continue
            found = read_policy_file(path, tier, settings.problems)
            settings.policy.append(found)
            rules.extend(found.rules)
        if why_not is not None and directory.is_dir() and tier == ADMIN_TIER and "skips" in why_not:
            settings.problems.append(Problem(Origin("file", str(directory)), why_not, "warning", "admin-dir"))
    rules.extend(default_rules())
    rules.extend(settings_rules(settings))
    settings.rules = sorted(rules, key=lambda r: -r.priority)


@lru_cache(maxsize=1)
def default_rules() -> tuple[GeminiRule, ...]:
    """The built-in policies of Gemini CLI 0.61 (recorded from the library by `record.py --defaults`)."""
    data = json.loads(DEFAULTS_FILE.read_text(encoding="utf-8"))
    out = []
    for r in data["rules"]:
        out.append(GeminiRule(
            tool_name=r["toolName"], decision=r["decision"], priority=r["priority"], source=r["source"],
            mcp_name=r["mcpName"], args_pattern=r["argsPattern"],
            modes=tuple(r["modes"]) if r["modes"] is not None else None, interactive=r["interactive"],
            allow_redirection=r["allowRedirection"], tool_annotations=r["toolAnnotations"],
            deny_message=r["denyMessage"], origin=Origin("default", name=f"Gemini CLI {r['source']}"),
            text=f"toolName = \"{r['toolName']}\""))
    return tuple(out)


def _items(settings: GeminiSettings, *keys: str) -> list[tuple[str, Origin]]:
    node = settings.node(*keys)
    if node is None or not node.is_list:
        return []
    return [(str(item.value), item.origin) for item in node.value if isinstance(item.value, str)]


def _rule(tool: str, decision: str, priority: float, source: str, origin: Origin, text: str,
          **kw: Any) -> GeminiRule:
    return GeminiRule(tool, decision, priority, source, origin=origin, text=text, **kw)


def settings_rules(settings: GeminiSettings) -> list[GeminiRule]:
    """The rules Gemini compiles from the merged settings (config.ts `createPolicyEngineConfig`)."""
    import re

    out: list[GeminiRule] = []
    for server, origin in _items(settings, "mcp", "excluded"):
        out.append(_rule(f"{MCP_PREFIX}*" if server == "*" else f"{MCP_PREFIX}{server}_*", "deny",
                         MCP_EXCLUDED_PRIORITY, "Settings (MCP Excluded)", origin, f"mcp.excluded {server!r}",
                         mcp_name=server))
    excluded = _items(settings, "tools", "exclude")
    if not settings.interactive and "ask_user" not in [t for t, _ in excluded]:
        # the CLI's config.ts: a headless run (gemini -p) excludes ask_user too
        excluded.append(("ask_user", Origin("default", name="Gemini CLI headless run")))
    for tool, origin in excluded:
        out.append(_rule(tool, "deny", EXCLUDE_PRIORITY, "Settings (Tools Excluded)", origin,
                         f"tools.exclude {tool!r}"))

    def map_tools(key: str, priority: float, source: str, modes: tuple[str, ...] | None,
                  narrowing: bool) -> None:
        narrowed: list[Origin] = []
        for entry, origin in _items(settings, "tools", key):
            text = f"tools.{key} {entry!r}"
            m = re.fullmatch(r"([a-zA-Z0-9_-]+)\((.*)\)", entry)
            if m:
                name = SHELL if m.group(1) in SHELL_TOOLS else m.group(1)
                if name == SHELL:
                    narrowed.append(origin)
                    for pattern in args_patterns(None, m.group(2), None):
                        if pattern:
                            out.append(_rule(name, "allow", priority, source, origin, text, modes=modes,
                                             args_pattern=pattern, command_prefix=(m.group(2),)))
                else:
                    out.append(_rule(name, "allow", priority, source, origin, text, modes=modes))
            else:
                out.append(_rule(SHELL if entry in SHELL_TOOLS else entry, "allow", priority, source, origin,
                                 text, modes=modes))
        if narrowing and narrowed:
            out.append(_rule(SHELL, "deny", priority - 0.01, f"{source} (Narrowing Enforcement)", narrowed[0],
                             f"tools.{key} with arguments", modes=modes))

    map_tools("allowed", ALLOWED_PRIORITY, "Settings (Tools Allowed)", None, True)
    for tool, origin in _items(settings, "tools", "confirmationRequired"):
        out.append(_rule(SHELL if tool in SHELL_TOOLS else tool, "ask_user", CONFIRMATION_PRIORITY,
                         "Settings (Confirmation Required)", origin, f"tools.confirmationRequired {tool!r}"))
    core = settings.node("tools", "core")
    if core is not None and core.is_list:
        map_tools("core", CORE_PRIORITY, "Settings (Core Tools)", NON_PLAN_MODES, False)
        out.append(_rule("*", "deny", CORE_PRIORITY - 0.01, "Settings (Core Tools Allowlist Enforcement)",
                         core.origin, "tools.core (every tool not listed)", modes=NON_PLAN_MODES))
    servers = settings.node("mcpServers")
    if servers is not None and servers.is_map:
        for name, entry in servers.items():
            trust = entry.get("trust")
            if trust is not None and trust.value:
                out.append(_rule(f"{MCP_PREFIX}{name}_*", "allow", TRUSTED_MCP_PRIORITY,
                                 "Settings (MCP Trusted)", trust.origin, f"mcpServers.{name}.trust",
                                 mcp_name=name, modes=NON_PLAN_MODES))
    allowed = [s for s, _ in _items(settings, "mcp", "allowed")]
    for server, origin in _items(settings, "mcp", "allowed"):
        out.append(_rule(f"{MCP_PREFIX}*" if server == "*" else f"{MCP_PREFIX}{server}_*", "allow",
                         ALLOWED_MCP_PRIORITY, "Settings (MCP Allowed)", origin, f"mcp.allowed {server!r}",
                         mcp_name=server, modes=NON_PLAN_MODES))
    if not settings.interactive and settings.value("mcp", "autoAllowInHeadless") and servers is not None:
        for name, entry in servers.items():
            trust = entry.get("trust")
            if name in allowed or "*" in allowed or (trust is not None and trust.value):
                continue
            out.append(_rule(f"{MCP_PREFIX}*" if name == "*" else f"{MCP_PREFIX}{name}_*", "allow",
                             ALLOWED_MCP_PRIORITY, "Settings (Headless MCP Auto-Allow)", entry.origin,
                             f"mcp.autoAllowInHeadless ({name})", mcp_name=name, modes=NON_PLAN_MODES))
    return out
