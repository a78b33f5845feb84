"""Each agent's pre-tool hook entries, read where that agent reads them (issue 32 items 4, 5): which
file holds them per scope, what `forge-tools hook install` writes there, and what is written now
(each entry at its file:line:col), for `hook status`, `hook install` / `uninstall` and `check`.

- claude: `.claude/settings.json` / `$CLAUDE_CONFIG_DIR/settings.json` (`~/.claude`),
  `hooks.PreToolUse[]` groups of `matcher` and `hooks[]`;
- codex: `.codex/hooks.json` / `$CODEX_HOME/hooks.json` (`~/.codex`), the same shape;
- gemini: `.gemini/settings.json` / `~/.gemini/settings.json`, `hooks.BeforeTool[]`;
- opencode: `.opencode/plugins/forge-tools.js` / `~/.config/opencode/plugins/forge-tools.js`, the shim.
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from forge_tools.named_tuple import NamedTuple
from forge_tools.origin import Node, Origin

AGENTS = ("claude", "codex", "gemini", "opencode")
SCOPES = ("project", "user")
EVENT = {"claude": "PreToolUse", "codex": "PreToolUse", "gemini": "BeforeTool"}
TIMEOUT = {"claude": 30, "codex": 30, "gemini": 30000}  # seconds, seconds, milliseconds
PLUGIN_NAME = "forge-tools.js"
MARK = "forge-tools hook"  # every command forge-tools writes holds it


class HookEntry(NamedTuple):
    """One command hook of an agent's pre-tool event, as written."""

    agent: str
    path: Path
    origin: Origin
    command: str
    matcher: str | None
    on_failure: str | None
    ours: bool  # a `forge-tools hook` command

    @property
    def program(self) -> str:
        words = shlex.split(self.command) if self.command.strip() else [""]
        return words[0] if words else ""

    def program_exists(self) -> bool:
        program = self.program
        if not program:
            return False
        if "/" in program:
            return os.access(program, os.X_OK)
        return shutil.which(program) is not None

    def to_json(self) -> dict[str, Any]:
        return {"agent": self.agent, "file": str(self.path), "origin": self.origin.to_json(),
                "command": self.command, "matcher": self.matcher, "on_failure": self.on_failure,
                "forge_tools": self.ours, "program_exists": self.program_exists()}


def hook_file(agent: str, scope: str, project: Path, env: Mapping[str, str] | None = None) -> Path:
    """Where `agent` reads its hook entries for `scope` (see the module)."""
    env = os.environ if env is None else env
    home = Path(env.get("HOME") or os.path.expanduser("~"))
    if agent == "claude":
        from forge_tools.runtimes.claude.paths import config_dir

        return (project / ".claude" if scope == "project" else config_dir(env, home)) / "settings.json"
    if agent == "codex":
        from forge_tools.runtimes.codex.paths import codex_home

        return (project / ".codex" if scope == "project" else codex_home(env)) / "hooks.json"
    if agent == "gemini":
        return (project if scope == "project" else home) / ".gemini" / "settings.json"
    if agent == "opencode":
        base = (project / ".opencode" if scope == "project"
                else Path(env.get("XDG_CONFIG_HOME") or home / ".config") / "opencode")
        return base / "plugins" / PLUGIN_NAME
    raise ValueError(f"unknown agent {agent!r}")


def forge_command(agent: str, sandbox: bool = False) -> str:
    """The hook command with an absolute path to forge-tools (the console script beside this
    interpreter, else this interpreter with `-m forge_tools`); `sandbox`: with `--sandbox`."""
    beside = Path(sys.executable).with_name("forge-tools")
    program = (shlex.quote(str(beside)) if beside.is_file() and os.access(beside, os.X_OK)
               else f"{shlex.quote(os.path.abspath(sys.executable))} -m forge_tools")
    return f"{program} hook --runtime {agent}" + (" --sandbox" if sandbox else "")


def our_entry(agent: str, sandbox: bool = False) -> dict[str, Any]:
    """The entry `hook install` writes for a command-hook agent (agent-hooks.md's snippets)."""
    hook: dict[str, Any] = {"type": "command", "command": forge_command(agent, sandbox),
                            "timeout": TIMEOUT[agent]}
    if agent == "claude":
        hook["onFailure"] = "block"
        return {"matcher": "*", "hooks": [hook]}
    if agent == "gemini":
        return {"matcher": "*", "hooks": [{"name": "forge-tools", **hook}]}
    return {"hooks": [hook]}


def read_node(path: Path) -> Node | None:
    """A hook file's JSON as located values; None when there is none (a file that cannot be read is
    the agent's own finding, not this reader's)."""
    from forge_tools.config.formats.json_format import parse_json

    try:
        return parse_json(path.read_text(encoding="utf-8"), Origin("file", str(path)))
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    except Exception:  # a ConfigError (not JSON): no entries can be read from it
        return None


def entries(agent: str, path: Path, node: Node | None = None) -> list[HookEntry]:
    """The command hooks of `agent`'s pre-tool event in `path` (the plugin file for opencode)."""
    if agent == "opencode":
        if not path.is_file():
            return []
        text = path.read_text(encoding="utf-8", errors="replace")
        command = next((line.split("//", 1)[1].strip().removeprefix("command: ")
                        for line in text.splitlines() if line.startswith("// command: ")), "")
        return [HookEntry(agent, path, Origin("file", str(path), 1, 1), command, None, None, MARK in text)]
    node = node if node is not None else read_node(path)
    groups = node.get("hooks") if node is not None and node.is_map else None
    groups = groups.get(EVENT[agent]) if groups is not None and groups.is_map else None
    found: list[HookEntry] = []
    if groups is None or not groups.is_list:
        return found
    for group in groups.value:
        if not group.is_map:
            continue
        matcher = group.get("matcher")
        hooks = group.get("hooks")
        for hook in hooks.value if hooks is not None and hooks.is_list else []:
            said = hook.get("command") if hook.is_map else None
            if said is None or not isinstance(said.value, str):
                continue
            failure = hook.get("onFailure")
            found.append(HookEntry(agent, path, hook.origin, said.value,
                                   matcher.value if matcher is not None else None,
                                   failure.value if failure is not None else None, MARK in said.value))
    return found


def installed(agent: str, project: Path, env: Mapping[str, str] | None = None) -> list[HookEntry]:
    """Every pre-tool hook entry of `agent` in its project and user files."""
    return [e for scope in SCOPES for e in entries(agent, hook_file(agent, scope, project, env))]


def switched_off(agent: str, project: Path, env: Mapping[str, str] | None = None) -> list[tuple[Origin, str]]:
    """Settings that turn the agent's hooks off (`disableAllHooks`, `allowManagedHooksOnly` for Claude
    Code; `hooksConfig.enabled = false` for Gemini CLI; `[features] hooks = false` is not read)."""
    out: list[tuple[Origin, str]] = []
    if agent not in ("claude", "gemini"):
        return out
    for scope in SCOPES:
        node = read_node(hook_file(agent, scope, project, env))
        if node is None or not node.is_map:
            continue
        keys = ((("disableAllHooks",), True), (("allowManagedHooksOnly",), True)) if agent == "claude" else (
            (("hooksConfig", "enabled"), False),)
        for path, value in keys:
            current: Node | None = node
            for key in path:
                current = current.get(key) if current is not None and current.is_map else None
            if current is not None and current.value is value:
                out.append((current.origin, f"{'.'.join(path)} = {str(value).lower()}"))
    return out


class Guard(NamedTuple):
    """forge-tools' hook as the agent would run it before its own rules: the entry, and what keeps it
    from running (empty: it runs)."""

    entry: HookEntry
    problems: tuple[str, ...]

    @property
    def runs(self) -> bool:
        return not self.problems


def guard(agent: str, project: Path, env: Mapping[str, str] | None = None) -> Guard | None:
    """The forge-tools hook entry `agent` reads here (project scope first), or None when none is
    installed; `problems` says what keeps it from running (a missing program, hooks switched off).
    Codex CLI's review step cannot be seen from the files: `review` says it."""
    if agent not in AGENTS:
        return None
    ours = [e for e in installed(agent, project, env) if e.ours]
    if not ours:
        return None
    entry = next((e for e in ours if agent == "opencode" or e.program_exists()), ours[0])
    problems = [] if agent == "opencode" or entry.program_exists() else [
        f"its program {entry.program} does not exist"]
    problems += [f"{what} at {origin} turns hooks off" for origin, what in switched_off(agent, project, env)]
    return Guard(entry, tuple(problems))


#: what the agent itself must do before the hook runs, which no file shows
REVIEW = {"codex": "Codex CLI runs it only once trusted in /hooks"}


def hook_said(agent: str, label: str, project: Path, cwd: Path, tool: str | None,
              args: dict[str, Any] | None, env: Mapping[str, str] | None = None) -> dict[str, Any] | None:
    """What `explain` (and `--runtime all`) says of forge-tools' hook for the answering agent: None when
    none is installed; else where it is, whether it runs, and with a call (`tool` `args` in the agent's
    own words, as it hands them to its hook) the hook's own verdict (`runtimes.hook_gate.decide`, the same
    decision the hook process makes) and one line: `a forge-tools hook denies this before Claude
    Code's rules: ...`."""
    found = guard(agent, project, env)
    if found is None:
        return None
    out: dict[str, Any] = {"installed": found.entry.to_json(), "runs": found.runs,
                           "problems": list(found.problems), "review": REVIEW.get(agent),
                           "action": None, "reason": None}
    from forge_tools.report.locations import describe

    where = describe(found.entry.origin, project)
    if not found.runs:
        out["line"] = (f"a forge-tools hook is installed at {where} but does not run: "
                       + "; ".join(found.problems))
        return out
    if tool is None or args is None:
        out["line"] = (f"a forge-tools hook is installed at {where}: it decides every call before "
                       f"{label}'s rules")
        return out
    from forge_tools.runtimes.hook_gate import decide

    try:
        verdict = decide(agent, tool, args, cwd)
        action, reason = verdict.action, verdict.reason
    except Exception as exc:  # the hook process refuses what it cannot read (its outer guard)
        action, reason = "deny", f"the hook cannot read the call ({exc})"
    if action == "ask" and agent != "claude":
        action, reason = "deny", f"{reason} ({label} cannot ask from a hook, so the hook refuses it)"
    out.update(action=action, reason=reason)
    review = f" ({REVIEW[agent]})" if agent in REVIEW else ""
    if action is None:
        out["line"] = f"a forge-tools hook (at {where}) gives no decision here: {reason}{review}"
    else:
        verb = "denies" if action == "deny" else "asks about"
        out["line"] = (f"a forge-tools hook {verb} this before {label}'s rules{review}: {reason} "
                       f"(hook at {where})")
    return out
