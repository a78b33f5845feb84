"""The OS sandbox `run` puts a bash command in: the agent's resolved rules turned into a bubblewrap argv.

The gate decides a call by its names; this bounds what the call can do, whatever program it runs. It
is derived from the same rules, so an `edit` deny holds for `mv`, `python3 -c` or a Makefile alike:

- the project (its top level too) is writable only where `edit` is not denied; edit-denied paths are
  read-only binds, read-denied paths are masked (a directory is an empty read-only tmpfs, a file an
  unreadable device); every directory between the project root and a protected path is pinned (a
  mount point cannot be renamed), so moving its parent away does not move it either;
- what decides and what runs is read-only whatever the rules say: every agent's config at the top
  level (`opencode.json*`, `forge.*`, `.opencode/`, `.forge/`, `.claude/`, `.codex/`, `.gemini/`,
  `.mcp.json`), the global config dirs, `.git/hooks` and `.git/config`, and each file the config
  names as code (`decides`: plugin, tool, agent and skill files, MCP server commands inside the
  project); the config names that do not exist yet are `reserved`: `run` holds an empty read-only
  placeholder on each while a sandboxed call runs (`Placeholders`), so none can be created;
- outside the project only the system dirs (read-only), a private `/tmp`, and what `external_directory`
  allows (the rules' allows and the directories this call was approved for; read-only unless `edit`
  allows) are mounted; the truncation dir is read-only inside (only the wrapper writes it);
- network only when webfetch is allowed or the command line runs a program that needs it;
- new user, PID, IPC, UTS and network namespaces, all capabilities dropped, no new privileges, no
  nested user namespaces, killed with forge-tools (`--die-with-parent`).

`plan_sandbox` is pure apart from reading the project tree; `bwrap_argv` turns a plan into argv;
`availability` says once per process whether bubblewrap can start here.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterable, Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any, Literal

from forge_tools.config.loader import CONFIG_FILE_ORDER
from forge_tools.named_tuple import NamedTuple
from forge_tools.origin import Origin
from forge_tools.paths import (
    data_dir,
    fallback_truncation_dir,
    global_config_dir,
    opencode_global_dir,
    truncation_dir,
)
from forge_tools.permission.evaluate import evaluate
from forge_tools.permission.wildcard import literal_head, wildcard_match
from forge_tools.rule import Rule

Mode = Literal["rw", "ro", "hidden", "scratch"]  # scratch: an empty private tmpfs, discarded after
SandboxSetting = Literal["require", "auto", "off"]
SETTINGS: tuple[SandboxSetting, ...] = ("require", "auto", "off")

SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt")
SCRATCH_DIRS = ("/tmp", "/var/tmp", "/run")
PROVIDED_DIRS = ("/dev", "/proc")  # bwrap's own, never the host's
AGENT_CONFIG_NAMES = frozenset({".opencode", ".forge", ".claude", ".codex", ".gemini", ".mcp.json"})
AGENT_CONFIG_STEMS = frozenset({"opencode", "forge"})
#: the config names at the top level that must not appear during a call (a placeholder holds each)
RESERVED_DIRS = (".opencode", ".forge", ".claude", ".codex", ".gemini")
RESERVED_NAMES = (*CONFIG_FILE_ORDER, ".mcp.json", *RESERVED_DIRS)
#: the rules a local MCP server lists its tools under in `run` (no call is decided yet): nothing in
#: the project can be written, no network
LISTING_RULES = (Rule("edit", "*", "deny", Origin("safety", name="an MCP server listing its tools")),)
#: the project's files that decide what runs or what a call may do, wherever its rules allow edits
GIT_DECIDES = (".git/hooks", ".git/config")
# Programs whose job is the network: a command line running one of these (the gate having let it
# through) gets the network; so does an agent whose rules allow webfetch.
NETWORK_COMMANDS = frozenset({
    "curl", "wget", "git", "ssh", "scp", "sftp", "rsync", "nc", "ncat", "telnet", "ftp", "ping",
    "pip", "pip3", "uv", "poetry", "npm", "npx", "pnpm", "yarn", "bun", "deno", "cargo", "go",
    "gem", "bundle", "apt", "apt-get", "docker", "podman", "gh", "http", "https", "aria2c",
})
RESERVED_NOTE = ("the config names that do not exist yet cannot be created: each is an empty read-only"
                 " placeholder while the call runs")
MAX_WALK_ENTRIES = 200_000  # beyond this the project is too big to map per call: the plan says so
MAX_MOUNTS = 4_000
SENTINEL = "\x00"  # the name of "a new entry in this directory" when deciding a directory's mode


class Mount(NamedTuple):
    path: str
    mode: Mode
    why: str

    def to_json(self) -> dict[str, str]:
        return {"path": self.path, "mode": self.mode, "why": self.why}


class SandboxPlan(NamedTuple):
    """What a sandboxed command may touch: every mount (parents before children), the network, and why
    a plan could not be made exactly (`problem`: then the sandbox is not used, see `run`)."""

    root: str
    mounts: tuple[Mount, ...]
    network: bool
    network_why: str
    problem: str | None = None
    notes: tuple[str, ...] = ()
    reserved: tuple[str, ...] = ()  # config names to hold with a placeholder (they do not exist yet)

    @property
    def mode_of_root(self) -> Mode:
        return next((m.mode for m in self.mounts if m.path == self.root), "ro")

    def paths(self, mode: Mode) -> list[str]:
        return [m.path for m in self.mounts if m.mode == mode and m.why != "pin"]

    def to_json(self) -> dict[str, Any]:
        """The boundary: system dirs and the directory pins left out (the docs list them)."""
        def listed(mode: Mode) -> list[str]:
            return [m.path for m in self.mounts if m.mode == mode and m.why not in ("pin", "system")]

        return {"writable": listed("rw"), "read_only": listed("ro"), "hidden": listed("hidden"),
                "private": listed("scratch"), "reserved": list(self.reserved),
                "network": self.network, "network_why": self.network_why, "problem": self.problem,
                "notes": list(self.notes)}


class _Walk:
    """The walk's state: what it mounted so far, how many entries it saw, why it had to stop."""

    def __init__(self, root: str, rules: tuple[Rule, ...], touching: tuple[str, ...],
                 decides: frozenset[str] = frozenset()) -> None:
        self.root = root
        self.modes = _Modes(rules)
        self.touching = touching  # literal heads of the rules that can change a mode below a directory
        self.decides = decides  # project-relative paths that are read-only whatever the rules say
        self.mounts: list[Mount] = []
        self.seen = 0
        self.problem: str | None = None


def _decide(permission: str, pattern: str, rules: Sequence[Rule]) -> str:
    return evaluate(permission, pattern, rules).action


def path_mode(rel: str, rules: Sequence[Rule], agent_config: bool = False) -> Mode:
    """One path's mode from the rules: hidden when `read` denies it, read-only when `edit` does (or it is
    the agent's config), else writable. `rel` is relative to the project root, as the gate sees it."""
    return _Modes(rules).of(rel, agent_config)


class _Modes:
    """`path_mode` for many paths: the read and edit rules picked out once (the walk asks per entry);
    each decision is still `evaluate`'s, the gate's pattern evaluator."""

    def __init__(self, rules: Sequence[Rule]) -> None:
        self.read = tuple(r for r in rules if wildcard_match("read", r.permission))
        self.edit = tuple(r for r in rules if wildcard_match("edit", r.permission))

    def of(self, rel: str, agent_config: bool = False) -> Mode:
        if _decide("read", rel, self.read) == "deny":
            return "hidden"
        if agent_config or _decide("edit", rel, self.edit) == "deny":
            return "ro"
        return "rw"


def _is_agent_config(rel: str) -> bool:
    top = rel.split("/", 1)[0]
    return top in AGENT_CONFIG_NAMES or (top.split(".", 1)[0] in AGENT_CONFIG_STEMS and "." in top)


def _may_touch(rel_dir: str, heads: Iterable[str]) -> bool:
    prefix = rel_dir + "/"
    return any(prefix.startswith(head) or head.startswith(prefix) for head in heads)


def _walk(state: _Walk, rel_dir: str, mode: Mode, inside_decides: bool = False) -> None:
    """Mount what differs from `mode` below `rel_dir` (a directory whose own mode is `mode`; inside a
    path that decides, everything is read-only at least)."""
    absolute = os.path.join(state.root, rel_dir) if rel_dir else state.root
    try:
        entries = sorted(os.scandir(absolute), key=lambda e: e.name)
    except OSError:
        return
    for entry in entries:
        state.seen += 1
        if state.seen > MAX_WALK_ENTRIES or len(state.mounts) > MAX_MOUNTS:
            state.problem = (f"the project has more than {MAX_WALK_ENTRIES} entries or needs more than "
                             f"{MAX_MOUNTS} mounts to map its rules")
            return
        rel = f"{rel_dir}/{entry.name}" if rel_dir else entry.name
        config = inside_decides or rel in state.decides or (not rel_dir and _is_agent_config(rel))
        is_dir = entry.is_dir(follow_symlinks=False)
        own = state.modes.of(f"{rel}/{SENTINEL}" if is_dir else rel, config)
        if is_dir and own != "hidden" and state.modes.of(rel) == "hidden":
            own = "hidden"
        target = os.path.join(state.root, rel)
        if entry.is_symlink():
            # a mount follows a link to its target: judged there if it is in the project, else left alone
            target = os.path.realpath(target)
            if own == "rw" or not target.startswith(state.root + "/"):
                continue
        if own != mode or (config and not inside_decides):
            state.mounts.append(Mount(target, own, "config" if config else "rule"))
        if is_dir and own != "hidden" and _may_touch(rel, state.touching):
            _walk(state, rel, own, config)
        if state.problem:
            return


def _pins(mounts: list[Mount], root: str) -> list[Mount]:
    """Writable self-binds of every writable directory between the root and a protected mount: a mount
    point cannot be renamed or removed, so `mv parent elsewhere` cannot carry the protected path off."""
    by_path = {m.path: m for m in mounts}
    pins: dict[str, Mount] = {}
    for mount in mounts:
        if mount.mode == "rw":
            continue
        parent = os.path.dirname(mount.path)
        chain: list[str] = []
        while parent.startswith(root + "/"):
            if parent in by_path:
                break
            chain.append(parent)
            parent = os.path.dirname(parent)
        enclosing = by_path.get(parent)
        if enclosing is None or enclosing.mode != "rw":
            continue
        for directory in chain:
            pins.setdefault(directory, Mount(directory, "rw", "pin"))
    return list(pins.values())


def _touching_heads(rules: Sequence[Rule]) -> tuple[str, ...]:
    """The literal heads of the edit/read rules that can make a path's mode differ from its directory's:
    a deny, or an allow/ask after a deny of the same permission (a catch-all `*` is the same everywhere)."""
    heads: list[str] = []
    denied: set[str] = set()
    for rule in rules:
        for permission in ("edit", "read"):
            if not wildcard_match(permission, rule.permission):
                continue
            if rule.action == "deny":
                denied.add(permission)
            if rule.pattern != "*" and (rule.action == "deny" or permission in denied):
                heads.append(literal_head(rule.pattern))
    return tuple(dict.fromkeys(heads))


def _inside_any(path: str, mounts: Iterable[Mount]) -> bool:
    return any(path == m.path or path.startswith(m.path.rstrip("/") + "/") for m in mounts)


def _external_dir(pattern: str) -> str | None:
    """The directory an `external_directory` glob names (`/data/*` -> `/data`; `*` -> `/`)."""
    head = literal_head(pattern)
    if not head.startswith("/") and head:
        return None
    directory = head if head.endswith("/") else os.path.dirname(head) if "*" in pattern or "?" in pattern \
        else head
    return os.path.normpath(directory or "/")


def _dir_glob(directory: str) -> str:
    return directory.rstrip("/") + "/*"


def _relative(path: str, root: str) -> str:
    return os.path.relpath(path, root).replace("\\", "/")


def plan_sandbox(
    rules: Sequence[Rule], project_root: str | Path, *, approved_external: Iterable[str] = (),
    commands: Iterable[str] = (), config_dirs: Iterable[str | Path] = (),
    output_dirs: Iterable[str | Path] = (), env: Mapping[str, str] | None = None,
    decides: Iterable[str | Path] = (), programs: Iterable[str] = (), own_dirs: Iterable[str | Path] = (),
) -> SandboxPlan:
    """The sandbox of one call (or, with no call, of the agent: `explain`, `layers`).

    `approved_external` are the external_directory patterns the gate let this call through for,
    `commands` its simple commands (for the network), `config_dirs` the agent's config dirs (read-only
    inside the project too), `output_dirs` the truncation dirs, `decides` the files the config names
    as code (`sources.decides.deciding_paths`): read-only inside the project whatever the rules say.
    `own_dirs` are forge-tools' own (the data dir: the class code the console keeps and runs, the hook's
    memo and audit log, the sandbox's records): read-only wherever a call could reach them, inside
    the project or in an allowed external dir, since the next forge-tools process trusts them."""
    rules = tuple(rules)
    root = os.path.realpath(project_root)
    config_dirs, own_dirs = tuple(config_dirs), tuple(own_dirs)
    git = [os.path.join(root, g) for g in GIT_DECIDES]
    if os.path.isfile(os.path.join(root, ".git")):  # a worktree's `.git` file names where git looks
        git.append(os.path.join(root, ".git"))
    inside = {rel for p in (*decides, *config_dirs, *git, *own_dirs)
              if (rel := _inside_rel(p, root)) is not None}
    heads = (*_touching_heads(rules), *(rel + "/" for rel in sorted(inside)))
    state = _Walk(root, rules, heads, frozenset(inside))
    root_mode = state.modes.of(SENTINEL)
    _walk(state, "", root_mode)
    project = [Mount(root, root_mode, "project"), *state.mounts]
    project += _pins(project, root)
    outside: list[Mount] = [Mount(d, "ro", "system") for d in SYSTEM_DIRS if os.path.isdir(d)]
    outside += [Mount(d, "scratch", "private") for d in SCRATCH_DIRS]  # an external mount replaces one
    external_globs = [r.pattern for r in rules
                      if r.action == "allow" and wildcard_match("external_directory", r.permission)]
    approved = set(approved_external)
    for pattern in dict.fromkeys([*external_globs, *approved]):
        directory = _external_dir(pattern)
        if directory is None or not os.path.isdir(directory):
            continue
        if pattern not in approved and _decide("external_directory", _dir_glob(directory), rules) != "allow":
            continue  # an allow that a later rule takes back (or `* allow` before `external_directory * ask`)
        real = os.path.realpath(directory)
        if _inside_any(real, [Mount(d, "ro", "") for d in PROVIDED_DIRS]):
            continue  # the sandbox's own /dev and /proc serve `cat /dev/zero`; the host's would not (nodev)
        edit = _decide("edit", _relative(os.path.join(real, SENTINEL), root), rules)
        mode: Mode = "rw" if edit == "allow" else "ro"
        outside.append(Mount(real, mode, "external_directory"))
    external = [m for m in outside if m.why == "external_directory"]
    home = (env if env is not None else os.environ).get("HOME")
    if home and os.path.isabs(home) and not _inside_any(os.path.realpath(home), [*external, project[0]]):
        outside.append(Mount(os.path.realpath(home), "scratch", "private home"))  # caches land here
    # forge-tools' own dirs where an allowed external dir holds them (inside the project: `inside`)
    owned = [*((d, "truncation dir (written by the wrapper only)") for d in output_dirs),
             *((d, "forge-tools' data dir (written outside the sandbox only)") for d in own_dirs)]
    for own, why in owned:
        real = os.path.realpath(own)
        if os.path.isdir(real) and _inside_any(real, external):
            outside.append(Mount(real, "ro", why))
    for program in programs:  # an MCP server's program and the paths its command names
        # mounted even inside an allowed external dir: a private scratch dir (/tmp, the home folder)
        # may hide it there (a venv under /tmp with `external_directory: allow`), and read-only is the
        # least an allow gives
        real = os.path.realpath(program)
        if os.path.exists(real) and not _inside_any(real, [project[0]]):
            outside.append(Mount(real, "ro", "the server's program"))
    for config_dir in config_dirs:
        real = os.path.realpath(config_dir)
        if os.path.exists(real) and _inside_any(real, external) and not _inside_any(real, [project[0]]):
            outside.append(Mount(real, "ro", "config"))
    ordered = sorted([*outside, *project], key=lambda m: (m.path.count("/") if m.path != "/" else 0,
                                                          m.why == "system"))
    network, why = network_needed(rules, commands)
    reserved = tuple(name for name in RESERVED_NAMES if not os.path.lexists(os.path.join(root, name))) \
        if root_mode == "rw" else ()
    return SandboxPlan(root, tuple(_dedupe(ordered)), network, why, state.problem,
                       (RESERVED_NOTE,) if reserved else (), reserved)


def _inside_rel(path: str | Path, root: str) -> str | None:
    """`path` relative to the project root when it exists inside it (its real place), else None."""
    real = os.path.realpath(path)
    if not real.startswith(root + "/") or not os.path.lexists(real):
        return None
    return real[len(root) + 1:]


def _dedupe(mounts: list[Mount]) -> list[Mount]:
    """One mount per path: the last (the stricter class sorts later) wins, keeping the first's place."""
    last: dict[str, Mount] = {}
    for mount in mounts:
        last[mount.path] = mount
    seen: set[str] = set()
    out: list[Mount] = []
    for mount in mounts:
        if mount.path not in seen:
            seen.add(mount.path)
            out.append(last[mount.path])
    return out


def network_needed(rules: Sequence[Rule], commands: Iterable[str] = ()) -> tuple[bool, str]:
    """Network when the agent may use webfetch, or when the command line (which the gate let through)
    runs a program that needs it; otherwise off."""
    if _decide("webfetch", "*", rules) == "allow":
        return True, "webfetch is allowed"
    for command in commands:
        name = command.split(" ", 1)[0].rsplit("/", 1)[-1]
        if name in NETWORK_COMMANDS:
            return True, f"the command runs {name}"
    return False, "webfetch is not allowed and the command runs nothing that needs the network"


def bwrap_argv(plan: SandboxPlan, command: Sequence[str], cwd: str, bwrap: str = "bwrap") -> list[str]:
    """The bubblewrap argv running `command` in `cwd` under `plan`."""
    argv = [bwrap, "--unshare-user", "--unshare-pid", "--unshare-ipc", "--unshare-uts",
            "--unshare-cgroup-try", "--disable-userns", "--die-with-parent", "--new-session",
            "--cap-drop", "ALL"]
    if not plan.network:
        argv.append("--unshare-net")
    whole = [m for m in plan.mounts if m.path == "/"]  # an external_directory `*` allow: below the rest
    for mount in whole:
        argv += ["--bind" if mount.mode == "rw" else "--ro-bind", "/", "/"]
    argv += ["--proc", "/proc", "--dev", "/dev"]
    for mount in plan.mounts:
        if mount.path == "/":
            continue
        if mount.mode == "scratch":
            argv += ["--tmpfs", mount.path]
        elif mount.mode == "rw":
            argv += ["--bind", mount.path, mount.path]
        elif mount.mode == "ro":
            argv += ["--ro-bind", mount.path, mount.path]
        elif os.path.isdir(mount.path) and not os.path.islink(mount.path):
            argv += ["--perms", "0000", "--tmpfs", mount.path, "--remount-ro", mount.path]
        else:
            argv += ["--ro-bind", "/dev/null", mount.path]  # nodev: opening it fails
    real_cwd = os.path.realpath(cwd)
    return [*argv, "--chdir", real_cwd, "--", *command]


@cache
def availability(bwrap: str | None = None) -> str | None:
    """None when bubblewrap can start a sandbox here, else why not (one line). Asked once per process."""
    if not sys.platform.startswith("linux"):
        return f"bubblewrap needs Linux (this is {sys.platform})"
    path = bwrap or shutil.which("bwrap")
    if path is None:
        return "bubblewrap (bwrap) is not installed (Debian/Ubuntu: apt-get install bubblewrap)"
    probe = [path, "--unshare-user", "--unshare-pid", "--unshare-net", "--disable-userns",
             "--die-with-parent", "--cap-drop", "ALL", "--ro-bind", "/", "/", "--proc", "/proc",
             "--dev", "/dev", "--", "true"]
    try:
        done = subprocess.run(probe, capture_output=True, timeout=10, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"bubblewrap could not start: {exc}"
    if done.returncode != 0:
        lines = done.stderr.decode("utf-8", "replace").strip().splitlines()
        said = lines[-1] if lines else f"exit {done.returncode}"
        return f"bubblewrap cannot create its namespaces here ({said})"
    return None


def describe(data: Mapping[str, Any]) -> list[str]:
    """A plan's JSON (`SandboxPlan.to_json`, as `explain` and `layers` carry it) in a few lines."""
    root = str(data.get("root", ""))

    def listing(key: str) -> str:
        paths = [_short(p, root) for p in data.get(key, [])]
        return ", ".join(paths) if paths else "(none)"

    lines = [f"writable: {listing('writable')}", f"read-only: {listing('read_only')}",
             f"hidden: {listing('hidden')}", f"private (empty, discarded): {listing('private')}",
             f"cannot be created: {', '.join(data.get('reserved', [])) or '(none)'}",
             f"network: {'on' if data.get('network') else 'off'} ({data.get('network_why')})"]
    lines += [f"note: {note}" for note in data.get("notes", [])]
    if data.get("problem"):
        lines.append(f"cannot be built: {data['problem']}")
    if data.get("unavailable"):
        lines.append(f"unavailable here: {data['unavailable']}")
    return lines


def agent_boundary(ruleset: Sequence[Rule], project_root: str | Path,
                   config_dirs: Iterable[str | Path] = (),
                   decides: Iterable[str | Path] = ()) -> dict[str, Any]:
    """What the sandbox lets the agent's bash calls touch (`explain`, `layers`): the plan before any
    call (a call also gets the outside directories it is approved for, and the network if it runs a
    program that needs it). Whether bubblewrap is installed is checked, not whether it starts."""
    plan = call_plan({"ruleset": tuple(ruleset), "config_dirs": list(config_dirs),
                      "decides": list(decides)}, project_root)
    data = plan.to_json()
    data["root"] = plan.root
    if not sys.platform.startswith("linux") or shutil.which("bwrap") is None:
        data["unavailable"] = "bubblewrap is not installed" if sys.platform.startswith("linux") \
            else f"bubblewrap needs Linux (this is {sys.platform})"
    return data


def _short(path: str, root: str) -> str:
    if path == root:
        return "<project>/"
    if path.startswith(root + "/"):
        return path[len(root) + 1:]
    return path


class SandboxedCommand(NamedTuple):
    """What `run` starts: `argv` (bwrap around the command, or the command alone), `state` for the
    result's metadata, `refusal` when `--sandbox=require` cannot be met (nothing is started), and
    `done`, to call once the command has ended (it lets go of the placeholders)."""

    argv: list[str]
    state: dict[str, Any]
    refusal: str | None = None
    done: Any = None

    def finish(self) -> None:
        if self.done is not None:
            self.done()


class Placeholders:
    """Empty read-only placeholders on the config names a sandboxed call must not create (a mount
    needs an existing path; bwrap binds each onto itself read-only, so inside it cannot be written,
    removed or replaced). Every sandboxed call of a project shares them: each holds a shared lock on
    the project's `.use` file while it runs (calls run side by side), placeholders are made and
    removed under a short exclusive lock on its `.lock` file, and the call that ends last (its shared
    lock turns exclusive without waiting) removes those still empty that the project's record lists
    (also those of a call that was killed)."""

    def __init__(self, root: str) -> None:
        from forge_tools.paths import sandbox_record

        self.root = root
        self.record_path = sandbox_record(root)  # what every reader of the config skips
        self.lock_path = self.record_path.with_suffix(".lock")  # exclusive, briefly: making, removing
        self.use_path = self.record_path.with_suffix(".use")  # shared while a call runs
        self.fd: int | None = None

    def _record(self) -> list[list[Any]]:
        import json

        try:
            data = json.loads(self.record_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return []
        return [e for e in data if isinstance(e, list) and len(e) == 2] if isinstance(data, list) else []

    def _mutate(self, change: Any) -> None:
        """Run `change(record) -> record` under the exclusive lock and keep what it returns."""
        import fcntl
        import json

        from forge_tools.paths import write_private

        fd = os.open(self.lock_path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            write_private(self.record_path, json.dumps(change(self._record())))
        finally:
            os.close(fd)  # the lock goes with it

    def hold(self, names: Iterable[str]) -> str | None:
        """Make the missing ones; None, or why they cannot be held (then no sandbox is built)."""
        import fcntl

        def make(record: list[list[Any]]) -> list[list[Any]]:
            for name in names:
                path = os.path.join(self.root, name)
                try:
                    if name in RESERVED_DIRS:
                        os.mkdir(path, 0o555)
                    else:
                        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o444))
                except FileExistsError:
                    continue  # another call's placeholder (or the person's new file): bound read-only
                record.append([path, os.lstat(path).st_ino])
            return record

        try:
            self.lock_path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            self.fd = os.open(self.use_path, os.O_RDWR | os.O_CREAT, 0o600)
            fcntl.flock(self.fd, fcntl.LOCK_SH)  # waits only while the last call removes placeholders
            self._mutate(make)
        except OSError as exc:
            self.release()
            return f"cannot hold the config names with placeholders: {exc.strerror or exc}"
        return None

    def release(self) -> None:
        """Let go; the last call of the project removes the recorded placeholders still empty."""
        import fcntl

        if self.fd is None:
            return
        fd, self.fd = self.fd, None

        def remove(record: list[list[Any]]) -> list[list[Any]]:
            kept = []
            for path, inode in record:
                try:
                    info = os.lstat(path)
                except OSError:
                    continue
                if info.st_ino != inode:
                    continue  # not ours any more
                try:
                    if os.path.isdir(path) and not os.path.islink(path):
                        os.rmdir(path)  # only while it is still empty
                    elif info.st_size == 0:
                        os.unlink(path)
                except OSError:
                    kept.append([path, inode])
            return kept

        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # only when no other call still runs
            self._mutate(remove)
        except OSError:
            pass  # another call still runs (or the record cannot be kept): it removes them when it ends
        finally:
            os.close(fd)


def setting_of(extra: Mapping[str, Any]) -> SandboxSetting:
    value = extra.get("sandbox", "off")
    return value if value in SETTINGS else "off"


def for_call(command: list[str], cwd: str | Path, extra: Mapping[str, Any], project_root: str | Path,
             requests: Sequence[Any]) -> SandboxedCommand:
    """The command as `run` starts it under the call's setting (ToolContext.extra["sandbox"]): inside
    the sandbox of its agent's rules (extra["ruleset"]) and the gate's decisions on `requests`."""
    setting = setting_of(extra)
    if setting == "off":
        return SandboxedCommand(command, {"sandbox": "off"})
    why_not = availability()
    if why_not is None:
        plan = call_plan(extra, project_root, requests)
        why_not = plan.problem
        if why_not is None:
            # under the lock every config name exists (a placeholder or the person's file) until the
            # call ends: each one the plan does not mount yet is bound read-only
            held = Placeholders(plan.root)
            names = RESERVED_NAMES if plan.mode_of_root == "rw" else ()
            why_not = held.hold(names)
        if why_not is None:
            mounted = {m.path for m in plan.mounts}
            reserved = [Mount(path, "ro", "reserved") for name in names
                        if (path := os.path.join(plan.root, name)) not in mounted]
            plan = plan._replace(mounts=(*plan.mounts, *reserved))
            return SandboxedCommand(bwrap_argv(plan, command, str(cwd)),
                                    {"sandbox": "on", "network": plan.network}, done=held.release)
    if setting == "require":
        return SandboxedCommand(command, {"sandbox": "unavailable", "sandboxProblem": why_not},
                                f"the sandbox is required (--sandbox=require) but cannot start: {why_not}")
    return SandboxedCommand(command, {"sandbox": "unavailable", "sandboxProblem": why_not})


def call_plan(extra: Mapping[str, Any], project_root: str | Path,
              requests: Sequence[Any] = ()) -> SandboxPlan:
    """The plan for a call (or, with no requests, for the agent) from what `run` puts in the context."""
    external = [p for r in requests if r.permission == "external_directory"
                and not r.metadata.get("opaque") for p in r.patterns]
    commands = [*(p for r in requests if r.permission == "bash" for p in r.patterns),
                *extra.get("commands", ())]  # an MCP server's command line
    config_dirs = [global_config_dir(), opencode_global_dir(), *extra.get("config_dirs", ())]
    decides = extra.get("decides", ())
    if callable(decides):  # `run`'s context finds them on first use (sources.decides)
        decides = decides()
    return plan_sandbox(extra.get("ruleset", ()), project_root, approved_external=external,
                        commands=commands, config_dirs=config_dirs,
                        output_dirs=[truncation_dir(), fallback_truncation_dir()],
                        decides=decides, programs=extra.get("programs", ()), own_dirs=[data_dir()])


def server_paths(command: Sequence[str], environment: Mapping[str, str], cwd: str | Path) -> list[str]:
    """What a local MCP server's command needs to see outside the project, read-only: its program's
    install folder (`program_dirs`) and each argument that names an existing file or folder (its
    script, the folders the person gave it), `/` and the home folder excepted."""
    found = program_dirs(command[0], environment, cwd)
    home = os.environ.get("HOME", "")
    for part in command[1:]:
        path = part.split("=", 1)[1] if part.startswith("--") and "=" in part else part
        if not path or path.startswith("-"):
            continue
        place = os.path.realpath(os.path.join(cwd, path))
        if os.path.exists(place) and place not in ("/", os.path.realpath(home) if home else "/"):
            found.append(place)
    return list(dict.fromkeys(found))


def program_dirs(program: str, environment: Mapping[str, str], cwd: str | Path) -> list[str]:
    """The install folder of the program a local MCP server runs, when it is outside the system dirs
    and the project (mounted read-only in the sandbox): `/x/.venv` for `/x/.venv/bin/python` (a venv
    reads its `pyvenv.cfg` and site-packages there), the folder above `bin/` alike, else the program's
    own folder; the same for the file a link leads to (a venv's python is a link to the install)."""
    path = environment.get("PATH", os.environ.get("PATH", os.defpath))
    found = shutil.which(program, path=path) if "/" not in program else os.path.join(cwd, program)
    if found is None:
        return []
    folders = []
    for place in dict.fromkeys([os.path.abspath(found), os.path.realpath(found)]):  # a venv links out
        folder = os.path.dirname(place)
        if os.path.basename(folder) == "bin":
            folder = os.path.dirname(folder)
        if not any(folder == d or folder.startswith(d + "/") for d in SYSTEM_DIRS):
            folders.append(folder)
    return folders
