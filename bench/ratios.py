"""All of forge-tools' speed figures in one run, each as a ratio against what it is judged by.

1. Start-up: `explain bash`, `layers` and `check` on a small project against the floor of the
   libraries the CLI is built on, `python -c "import typer, rich, pydantic"` (goal: within 1.3x).
   `--only hook`: one `forge-tools hook` decision per agent against the same floor (goal: 0.6x).
2. Scaling: `layers`, `explain`, `check` and `diff` on projects with N rules and N plugin tools
   (1% wildcard permission names) for N = 1k, 10k, 100k (goals: 100k within 11x 10k; `check` at 10k
   within 4x `layers`).
   `--only calls`: the same projects' Python function calls counted by cProfile (repeatable, so the
   steady measure of linearity when the machine's speed moves).
3. `run bash` printing 100 MB and 1 GB against the shell writing the same bytes to a file (CPU time;
   goal within 1.3x).
   `--only team`: `check` on a team's project of 40k rules and 200 agents (goal: at most 10 s CPU).
   `--only memory`: peak memory of `check` and `diff` at 100k rules and tools (goal: 400 MB each).
4. With opencode (`--opencode PATH`, else `opencode` on PATH): `explain`/`layers` against `opencode
   debug agent build` on the small project's config written as opencode.json (both read the same file).
   opencode 1.18.33 for this: `npm install --prefix /tmp/oc opencode-ai@1.18.33`, then
   `--opencode /tmp/oc/node_modules/.bin/opencode`.

Every figure is a new process per run; the start-up figures' runs are interleaved with the floor's.
Time is CPU time (user + system of the child, from `wait4`),
which stays put when other work shares the machine; the wall-clock median is printed beside it.

    python bench/ratios.py                       # everything (1 GB bash run included: minutes)
    python bench/ratios.py --sizes 1000,10000 --bash-mb 100 --runs 7
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
FLOOR = [sys.executable, "-c", "import typer, rich, pydantic"]

# The small project is bench_explain's (the same config and script tool), without its plugin.
from bench_explain import FORGE_TOML as SMALL_TOML  # noqa: E402  (bench/ is on sys.path when run)
from bench_explain import SCRIPT  # noqa: E402

MANY_TOOLS = """from forge_tools import hookimpl
from forge_tools.tools.contract import Tool

N = {n}


@hookimpl
def register_tools(register):
    for i in range(N):
        register(Tool(f"plugin_tool_{{i:06d}}", "d", {{"type": "object"}}, lambda a, c: ""))
"""


@dataclass
class Timing:
    cpu: float  # median user+sys seconds
    wall: float  # median wall seconds
    code: int
    rss_mb: float = 0.0  # largest peak resident memory of a run


def forge_exe() -> str:
    beside = Path(sys.executable).with_name("forge-tools")
    return str(beside) if beside.exists() else shutil.which("forge-tools") or "forge-tools"


def measure(argv: list[str], cwd: Path, env: dict[str, str], runs: int) -> Timing:
    """Median CPU and wall time over `runs` runs, after one warm-up run (disk cache, bytecode)."""
    return measure_together([argv], cwd, env, runs)[0]


def measure_together(argvs: list[list[str]], cwd: Path, env: dict[str, str], runs: int,
                     stdin: Path | None = None) -> list[Timing]:
    """`measure` for several commands with their runs interleaved (one of each in turn), so a change in
    the machine's load during the measurement reaches every figure alike and their ratios hold
    (`stdin`: a file each command reads on its standard input)."""
    cpus: list[list[float]] = [[] for _ in argvs]
    walls: list[list[float]] = [[] for _ in argvs]
    rss = [0.0 for _ in argvs]
    codes = [0 for _ in argvs]
    for i in range(runs + 1):
        for n, argv in enumerate(argvs):
            start = time.perf_counter()
            feed = open(stdin, "rb") if stdin is not None else subprocess.DEVNULL  # noqa: SIM115
            proc = subprocess.Popen(argv, cwd=cwd, env=env, stdin=feed, stdout=subprocess.DEVNULL,
                                    stderr=subprocess.DEVNULL)
            _, status, usage = os.wait4(proc.pid, 0)
            if stdin is not None:
                feed.close()  # type: ignore[union-attr]
            wall = time.perf_counter() - start
            codes[n] = os.waitstatus_to_exitcode(status)
            if i:
                cpus[n].append(usage.ru_utime + usage.ru_stime)
                walls[n].append(wall)
                rss[n] = max(rss[n], usage.ru_maxrss / 1024)  # KiB on Linux
    return [Timing(statistics.median(c), statistics.median(w), code, r)
            for c, w, code, r in zip(cpus, walls, codes, rss, strict=True)]


def isolated_env(tmp: Path) -> dict[str, str]:
    home = tmp / "home"
    home.mkdir(exist_ok=True)
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("FORGE_", "OPENCODE_")) and k != "PYTHONDONTWRITEBYTECODE"}
    env.update(HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"), FORGE_DATA_DIR=str(tmp / "data"),
               NO_COLOR="1")
    return env


def small_project(root: Path) -> Path:
    (root / ".git").mkdir(parents=True)
    (root / "forge.toml").write_text(SMALL_TOML)
    (root / ".forge" / "tools").mkdir(parents=True)
    (root / ".forge" / "tools" / "count_lines.py").write_text(SCRIPT)
    return root


def scaled_project(root: Path, n: int, seed: int = 7, changed: bool = False) -> Path:
    """N plugin tools and N rules, 1% with wildcard permission names (`plugin_tool_0012*`); `changed`
    flips every 100th rule's action (the NEW side of `diff`). A wildcard keeps 15 to 17 characters of a
    tool name, so it matches 1,000, 100 or 10 tools whatever N is (for N >= 1,000), as a real family
    of tools does: with shorter ones (`plugin_tool_0*` matched every tool) the (wildcard, tool) pairs,
    and so the findings about them, grew as N squared and no command could be linear."""
    rnd = random.Random(seed)
    tools = [f"plugin_tool_{i:06d}" for i in range(n)]
    permission: dict[str, dict[str, str]] = {"*": {"*": "ask"}}
    actions = ("allow", "deny", "ask")
    for i in range(n):
        if i % 100 == 0:
            name = tools[rnd.randrange(n)][: rnd.randrange(15, 18)] + "*"
        else:
            name = tools[rnd.randrange(n)] if rnd.random() < 0.5 else f"other_{i}"
        action = rnd.choice(actions)
        if changed and i % 100 == 50:
            action = actions[(actions.index(action) + 1) % 3]
        permission.setdefault(name, {})[rnd.choice(["*", "src/*", f"p{i}/*"])] = action
    (root / ".git").mkdir(parents=True)
    (root / "forge.json").write_text(json.dumps({"permission": permission}, indent=1))
    (root / ".forge" / "plugins").mkdir(parents=True)
    (root / ".forge" / "plugins" / "many.py").write_text(MANY_TOOLS.format(n=n))
    return root


def team_project(root: Path, rules: int, agents: int, seed: int = 11) -> Path:
    """A team's project: `rules` rules over the builtin tools, half at the top level and half spread
    over `agents` agents (each with its own bash, edit and read rules, a few tool switches, a model and
    a description), plus 1% wildcard permission names. Deterministic for a seed."""
    rnd = random.Random(seed)
    actions = ("allow", "deny", "ask")
    tools = ("bash", "edit", "read", "glob", "grep", "webfetch", "task", "todowrite", "skill")

    def some_rules(count: int, tag: str) -> dict[str, object]:
        permission: dict[str, dict[str, str]] = {"*": {"*": "ask"}}
        for i in range(count):
            kind = rnd.random()
            if kind < 0.6:
                name, pattern = "bash", f"{rnd.choice(['git', 'npm', 'make', 'cargo'])} {tag}{i} *"
            elif kind < 0.8:
                name, pattern = "edit", f"src/{tag}/m{i}/*"
            elif kind < 0.95:
                name, pattern = "read", f"docs/{tag}/p{i}.md"
            elif kind < 0.96:
                name, pattern = rnd.choice(tools)[: rnd.randrange(2, 4)] + "*", f"w{tag}{i}/*"
            else:
                name, pattern = rnd.choice(tools), f"x{tag}{i}"
            permission.setdefault(name, {})[pattern] = rnd.choice(actions)
        return permission

    top = rules // 2
    per_agent = (rules - top) // max(agents, 1)
    config: dict[str, object] = {"permission": some_rules(top, "t"), "agent": {}}
    for a in range(agents):
        agent: dict[str, object] = {
            "description": f"team agent {a}",
            "mode": "subagent" if a % 4 else "primary",
            "permission": some_rules(per_agent, f"a{a}_"),
        }
        if a % 5 == 0:
            agent["tools"] = {rnd.choice(tools): False}
        if a % 3 == 0:
            agent["model"] = "anthropic/claude-sonnet-4"
        config["agent"][f"agent{a:03d}"] = agent  # type: ignore[index]
    (root / ".git").mkdir(parents=True)
    (root / "forge.json").write_text(json.dumps(config, indent=1))
    return root


def rules_project(root: Path, n: int, seed: int = 5, changed: bool = False) -> Path:
    """An opencode project of N rules as a person's eval writes them (issue 31): 40% bash patterns
    (`git sub12 *`, `rm12 *`, `npm --flag12`, `curl x12*`, about two in three deny or ask: each is one
    FT116 asks about), 40% read/edit path patterns (`src/m12/*`, `docs/p12.md`, `**/*.k12`,
    `lib/12/**`), the rest other permissions' patterns. `changed` flips every 100th rule (diff's new
    side). Deterministic for a seed."""
    rnd = random.Random(seed)
    actions = ("allow", "deny", "ask")
    progs = ["git", "npm", "make", "cargo", "rm", "curl", "docker", "kubectl", "python", "sed"]
    permission: dict[str, object] = {"*": "ask", "bash": {"*": "allow"}, "read": {"*": "allow"},
                                     "edit": {"*": "ask"}}
    for i in range(n):
        kind = rnd.random()
        action = rnd.choice(actions)
        if changed and i % 100 == 50:
            action = actions[(actions.index(action) + 1) % 3]
        if kind < 0.4:
            prog = rnd.choice(progs)
            name, pattern = "bash", rnd.choice([f"{prog} sub{i} *", f"{prog}{i} *", f"{prog} --flag{i}",
                                                f"{prog} x{i}*"])
        elif kind < 0.8:
            name = rnd.choice(["read", "edit"])
            pattern = rnd.choice([f"src/m{i}/*", f"docs/p{i}.md", f"**/*.k{i}", f"lib/{i}/**"])
        else:
            name = rnd.choice(["glob", "grep", "external_directory", f"mcp_{i}_*", "task"])
            pattern = f"x{i}/*"
        permission.setdefault(name, {})[pattern] = action  # type: ignore[index]
    (root / ".git").mkdir(parents=True)
    (root / "opencode.json").write_text(json.dumps({"permission": permission}, indent=1))
    return root


def row(label: str, t: Timing, base: Timing | None = None, note: str = "") -> None:
    ratio = f"{t.cpu / base.cpu:>6.2f}x" if base is not None and base.cpu > 0 else " " * 7
    bad = "" if t.code in (0, 1) else f"  (exit {t.code})"
    print(f"  {label:<34}{t.cpu * 1000:>9.0f} ms cpu{t.wall * 1000:>9.0f} ms wall{t.rss_mb:>7.0f} MB  "
          f"{ratio}  {note}{bad}")


def opencode_project(root: Path) -> Path:
    """The small project's config as an opencode.json (opencode reads no forge.toml)."""
    import tomllib

    (root / ".git").mkdir(parents=True)
    (root / "opencode.json").write_text(json.dumps(tomllib.loads(SMALL_TOML), indent=2))
    return root


#: the small opencode project of issue 31 (only opencode's files: no other agent's runtime is imported)
OPENCODE_SMALL = {"permission": {"bash": {"*": "allow", "rm *": "deny", "git push *": "ask"},
                                 "edit": {"*": "ask", "src/*": "allow"}}}
OPENCODE_COMMANDS = (["explain", "bash"], ["explain", "bash", "--call", '{"command": "ls -la"}'],
                     ["layers"], ["check"])


def startup(tmp: Path, env: dict[str, str], runs: int, opencode: str | None) -> None:
    root = small_project(tmp / "small")
    exe = forge_exe()
    print("start-up (small project; ratio = CPU time against the floor; goal <= 1.30x)")
    commands = (["explain", "bash"], ["layers"], ["check"])
    floor, *timings = measure_together([FLOOR, *([exe, *args] for args in commands)], root, env, runs)
    row("python -c 'import typer, rich, pydantic'", floor)
    for args, t in zip(commands, timings, strict=True):
        row(" ".join(args), t, floor, "met" if t.cpu <= 1.3 * floor.cpu else "NOT met")
    oc_small = tmp / "small-oc"
    (oc_small / ".git").mkdir(parents=True)
    (oc_small / "opencode.json").write_text(json.dumps(OPENCODE_SMALL, indent=2))
    print("start-up (small opencode project; goal <= 1.15x, issue 31)")
    floor, *timings = measure_together([FLOOR, *([exe, *args] for args in OPENCODE_COMMANDS)], oc_small,
                                       env, runs)
    row("python -c 'import typer, rich, pydantic'", floor)
    for args, t in zip(OPENCODE_COMMANDS, timings, strict=True):
        row(" ".join(args)[:34], t, floor, "met" if t.cpu <= 1.15 * floor.cpu else "NOT met")
    # the same commands as on a machine's first run: no generated class code kept yet (cli/compiled.py;
    # an empty data dir, and bytecode writing off so none is kept); the modules' bytecode is there
    cold = {**env, "FORGE_DATA_DIR": str(tmp / "no-kept-code"), "PYTHONDONTWRITEBYTECODE": "1"}
    print("  the same, first run on a machine (no compiled class code kept yet; not judged):")
    floor, *timings = measure_together([FLOOR, *([exe, *args] for args in OPENCODE_COMMANDS)], oc_small,
                                       cold, runs)
    for args, t in zip(OPENCODE_COMMANDS, timings, strict=True):
        row("  " + " ".join(args)[:32], t, floor)
    opencode = opencode or shutil.which("opencode")
    if opencode is not None:
        oc_root = opencode_project(tmp / "small-opencode")
        oc = measure([opencode, "debug", "agent", "build"], oc_root, env, max(3, runs // 3))
        row("opencode debug agent build", oc, floor, "(opencode.json project)")
        for args in (["explain", "bash"], ["layers"]):
            t = measure([exe, *args], oc_root, env, runs)
            print(f"    forge-tools {' '.join(args)} is {oc.cpu / t.cpu:.1f}x faster (CPU), "
                  f"{oc.wall / t.wall:.1f}x (wall) than opencode, with {t.rss_mb / oc.rss_mb:.2f}x "
                  "its peak memory")
    else:
        print("  (opencode not on PATH: no comparison)")


#: one tool call as each agent hands it to `forge-tools hook` (`cwd` filled in), and the rule file
HOOK_CASES = {
    "claude": ({"tool_name": "Bash", "tool_input": {"command": "sudo rm -rf build"},
                "hook_event_name": "PreToolUse"},
               ".claude/settings.json", '{"permissions": {"deny": ["Bash(rm:*)"]}}'),
    "codex": ({"tool_name": "Bash", "tool_input": {"command": "/usr/bin/git push --force"},
               "hook_event_name": "PreToolUse"},
              ".codex/rules/default.rules", 'prefix_rule(pattern=["git", "push"], decision="forbidden")\n'),
    "gemini": ({"tool_name": "run_shell_command", "tool_input": {"command": "bash -c 'rm -rf build'"},
                "hook_event_name": "BeforeTool"},
               ".gemini/settings.json", '{"tools": {"exclude": ["run_shell_command(rm)"]}}'),
    # the payload the shim plugin (`hook/install.py`) hands over from opencode's `tool.execute.before`
    "opencode": ({"tool": "bash", "args": {"command": "/bin/rm -rf build"}},
                 "opencode.json", '{"permission": {"bash": {"*": "allow", "rm *": "deny"}}}'),
}


def hook(tmp: Path, env: dict[str, str], runs: int) -> None:
    """One `forge-tools hook` decision per agent (a denied spelling of a denied command) against the
    floor; goal (issue 32): at most 0.6x."""
    exe = forge_exe()
    print("hook (one decision, a new process; ratio = CPU time against the floor; goal <= 0.60x)")
    argvs: list[list[str]] = []
    for name, (payload, rel, text) in HOOK_CASES.items():
        root = tmp / f"hook-{name}"
        (root / ".git").mkdir(parents=True)
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
        (tmp / f"hook-{name}.json").write_text(json.dumps({**payload, "cwd": str(root)}))
        argvs.append([exe, "hook", "--runtime", name])
    # Gemini CLI reads a workspace's settings only in a trusted folder: trust it, so the case is a deny
    trusted = Path(env["HOME"]) / ".gemini" / "trustedFolders.json"
    trusted.parent.mkdir(parents=True, exist_ok=True)
    trusted.write_text(json.dumps({str(tmp / "hook-gemini"): "TRUST_FOLDER"}))
    for name, argv in zip(HOOK_CASES, argvs, strict=True):
        said = subprocess.run(argv, input=(tmp / f"hook-{name}.json").read_text(), env=env,
                              capture_output=True, text=True).stdout
        if "deny" not in said:  # the case is meant to be a deny: say so when it measures something else
            print(f"  note: hook --runtime {name} gave no deny here ({said.strip() or 'no decision'})")
        # each agent's runs interleaved with the floor's (the floor ignores the payload on its stdin), so
        # a change in the shared machine's load reaches both alike
        floor, t = measure_together([FLOOR, argv], tmp, env, runs, stdin=tmp / f"hook-{name}.json")
        row("python -c 'import typer, rich, pydantic'", floor)
        row(f"hook --runtime {name}", t, floor, "met" if t.cpu <= 0.6 * floor.cpu else "NOT met")


COMMANDS = {
    "layers": ["layers"],
    "explain": ["explain", "plugin_tool_000001"],
    "check": ["check", "--load-code"],
    "diff": ["diff", "--load-code", "OLD", "NEW"],
}


def command_args(args: list[str], old: Path, new: Path) -> list[str]:
    """A COMMANDS entry with OLD and NEW as the two projects' paths."""
    return [str(old) if a == "OLD" else str(new) if a == "NEW" else a for a in args]


def scaling(tmp: Path, env: dict[str, str], sizes: list[int], runs: int) -> None:
    print(f"scaling (N rules + N plugin tools; median of {runs}; goals: each step x10 in N costs <= 11x; "
          "check <= 4x layers)")
    _grow(env, sizes, runs, COMMANDS, lambda n, changed: scaled_project(
        tmp / f"{'new' if changed else 'old'}{n}", n, changed=changed), fewer_at=100_000)


RULES_COMMANDS = {"layers": ["layers"], "check": ["check"], "diff": ["diff", "OLD", "NEW"]}
#: the peak-memory figures add the reports CI reads (written in pieces, `report.json_stream`)
RULES_MEMORY_COMMANDS = {**RULES_COMMANDS, "check --format json": ["check", "--format", "json"],
                         "check --format sarif": ["check", "--format", "sarif"]}


def rules_scaling(tmp: Path, env: dict[str, str], sizes: list[int], runs: int) -> None:
    """`layers`, `check` and `diff` on `rules_project` at each size (issue 31: 5k -> 50k at most 11x;
    check at 50k within 3x of layers), as the ratio to the size before."""
    print(f"rules (an eval's opencode config of N rules, 40% bash, 40% paths; median of {runs}; goals: "
          "x10 in N costs <= 11x; check <= 3x layers)")
    _grow(env, sizes, runs, RULES_COMMANDS, lambda n, changed: rules_project(
        tmp / f"rules-{'new' if changed else 'old'}{n}", n, changed=changed), fewer_at=50_000,
        check_goal=3.0)


def _grow(env: dict[str, str], sizes: list[int], runs: int, commands: dict[str, list[str]],
          project: Callable[[int, bool], Path], fewer_at: int, check_goal: float | None = None) -> None:
    """Each command at each size (the old and the changed project of `project(n, changed)`), as the
    ratio to the size before (goal: at most 1.1x the step), and check's ratio to layers at that size
    (against `check_goal` when given). From `fewer_at` on, at most 3 runs."""
    exe = forge_exe()
    results: dict[tuple[str, int], Timing] = {}
    for n in sizes:
        old, new = project(n, False), project(n, True)
        for name, args in commands.items():
            many = runs if n < fewer_at else min(runs, 3)
            t = measure([exe, *command_args(args, old, new)], old, env, many)
            results[name, n] = t
            prev = [m for m in sizes if m < n]
            base = results.get((name, prev[-1])) if prev else None
            note = ""
            if base is not None:
                step = n / prev[-1]
                note = f"vs {prev[-1]:,} ({'met' if t.cpu <= base.cpu * step * 1.1 else 'NOT met'})"
            if name == "check":
                ratio = t.cpu / results["layers", n].cpu
                note += f"; {ratio:.1f}x layers"
                if check_goal is not None:
                    note += f" ({'met' if ratio <= check_goal else 'NOT met'})"
            row(f"{name} at {n:,}", t, base, note)


def rules_memory(tmp: Path, env: dict[str, str], n: int = 100_000, goal_mb: float = 400.0) -> None:
    """Peak memory of `layers`, `check` and `diff` on `rules_project` at `n` (one run each), as the
    ratio to the 400 MB goal (issue 31)."""
    old = tmp / f"rules-old{n}"
    new = tmp / f"rules-new{n}"
    if not old.exists():
        rules_project(old, n)
        rules_project(new, n, changed=True)
    print(f"peak memory, rules project at {n:,} rules (goal: <= {goal_mb:.0f} MB each)")
    for name, args in RULES_MEMORY_COMMANDS.items():
        t = measure([forge_exe(), *command_args(args, old, new)], old, env, 1)
        ratio = t.rss_mb / goal_mb
        print(f"  {name:<34}{t.rss_mb:>7.0f} MB peak  {ratio:5.2f}x the goal "
              f"({'met' if ratio <= 1 else 'NOT met'}); {t.cpu:.1f} s CPU")


def bash_line(tmp: Path, env: dict[str, str], runs: int, sizes: tuple[int, int] = (10_000, 100_000)) -> None:
    """`run bash` on `echo 'x' 'x' ... ; rm sentinel` with 10k and 100k arguments under `"rm *": "deny"`
    (issue 31: 100k within 12x of 10k, and denied as the short line is)."""
    root = tmp / "bash-line"
    (root / ".git").mkdir(parents=True)
    (root / "opencode.json").write_text(json.dumps({"permission": {"bash": {"*": "allow", "rm *": "deny"}}}))
    (root / "sentinel").write_text("kept\n")
    print(f"one long bash line (run bash, a new process; median of {runs}; goal: {sizes[1]:,} args "
          f"<= 12x {sizes[0]:,}, both denied)")
    argvs = []
    for count in sizes:
        args = root / f"args{count}.json"
        args.write_text(json.dumps({"command": "echo " + " ".join(["'x'"] * count) + " ; rm sentinel"}))
        argvs.append([forge_exe(), "run", "bash", "--args", f"@{args}"])
    small, large = measure_together(argvs, root, env, runs)
    row(f"{sizes[0]:,} arguments", small, None,
        "denied" if small.code == 4 else f"NOT denied (exit {small.code})")
    ratio = large.cpu / small.cpu
    row(f"{sizes[1]:,} arguments", large, small,
        ("denied" if large.code == 4 else f"NOT denied (exit {large.code})")
        + f" ({'met' if ratio <= 12 and large.code == 4 else 'NOT met'})")
    assert (root / "sentinel").read_text() == "kept\n"


def call_counts(tmp: Path, env: dict[str, str], sizes: list[int]) -> None:
    """Each command's Python function calls (cProfile's total) on the scaling projects, and each step's
    ratio: the same numbers on every run, whatever else the machine is doing."""
    import pstats

    print("Python calls (cProfile total; goal as for scaling: each step x10 in N at most 11x)")
    counts: dict[tuple[str, int], int] = {}
    for n in sizes:
        old = tmp / f"old{n}"
        new = tmp / f"new{n}"
        if not old.exists():
            scaled_project(old, n)
            scaled_project(new, n, changed=True)
        for name, args in COMMANDS.items():
            argv = command_args(args, old, new)
            prof = tmp / f"{name}-{n}.prof"
            profiled = [sys.executable, "-m", "cProfile", "-o", str(prof), "-m", "forge_tools", *argv]
            subprocess.run(profiled, cwd=old, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                           check=False)
            counts[name, n] = total = pstats.Stats(str(prof)).total_calls  # type: ignore[attr-defined]
            prev = [m for m in sizes if m < n]
            note = ""
            if prev:
                ratio = total / counts[name, prev[-1]]
                met = "met" if ratio <= n / prev[-1] * 1.1 else "NOT met"
                note = f"{ratio:6.2f}x vs {prev[-1]:,} ({met})"
            print(f"  {name} at {n:,}".ljust(40) + f"{total:>14,} calls   {note}")


def team(tmp: Path, env: dict[str, str], runs: int, rules: int = 40_000, agents: int = 200) -> None:
    """`check` on a team's project (`team_project`): goal at most 10 s CPU at 40k rules x 200 agents,
    printed as the ratio to that goal."""
    root = team_project(tmp / f"team{rules}", rules, agents)
    print(f"team project ({rules:,} rules, {agents} agents; median of {runs}; goal: check <= 10 s CPU)")
    t = measure([forge_exe(), "check"], root, env, runs)
    row(f"check at {rules:,} x {agents}", t, Timing(10.0, 10.0, 0), "of the 10 s goal "
        f"({'met' if t.cpu <= 10 else 'NOT met'})")


def memory(tmp: Path, env: dict[str, str], n: int = 100_000, goal_mb: float = 400.0) -> None:
    """Peak memory of `check --load-code` and `diff --load-code` on the scaling project at `n` (one run
    each: the peak does not depend on the machine's load), as the ratio to the 400 MB goal."""
    old = tmp / f"old{n}"
    new = tmp / f"new{n}"
    if not old.exists():
        scaled_project(old, n)
        scaled_project(new, n, changed=True)
    print(f"peak memory at {n:,} rules and tools (goal: <= {goal_mb:.0f} MB each)")
    goal = Timing(0.0, 0.0, 0, goal_mb)
    for name in ("check", "diff"):
        t = measure([forge_exe(), *command_args(COMMANDS[name], old, new)], old, env, 1)
        ratio = t.rss_mb / goal.rss_mb
        print(f"  {name + ' --load-code':<34}{t.rss_mb:>7.0f} MB peak  {ratio:5.2f}x the goal "
              f"({'met' if ratio <= 1 else 'NOT met'}); {t.cpu:.1f} s CPU")


def bash_runs(sizes_mb: list[int]) -> None:
    sys.path.insert(0, str(HERE))
    import bench_run_bash

    for mb in sizes_mb:
        print(f"run bash printing {mb} MB (against the shell writing the same bytes)")
        bench_run_bash.main([f"--mb={mb}", f"--forge-tools={forge_exe()}"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=11, help="runs per figure (median)")
    parser.add_argument("--sizes", default="1000,10000,100000", help="rule/tool counts for scaling")
    parser.add_argument("--bash-mb", default="100,1000", help="bash output sizes in MB ('' for none)")
    parser.add_argument("--only", choices=["startup", "hook", "scaling", "calls", "bash", "team", "memory",
                                           "rules", "rules-memory", "bashline"],
                        action="append",
                        help="parts to run (repeatable; default: startup, scaling and bash)")
    parser.add_argument("--scaling-runs", type=int, default=5,
                        help="runs per scaling figure below 100k (median; 100k takes 3)")
    parser.add_argument("--opencode", help="the opencode executable to compare with (default: on PATH)")
    parser.add_argument("--rule-sizes", default="5000,50000", help="rule counts for `--only rules`")
    args = parser.parse_args()
    parts = args.only or ["startup", "hook", "scaling", "team", "memory", "rules", "rules-memory",
                          "bashline", "bash"]
    with tempfile.TemporaryDirectory(prefix="forge-ratios-") as name:
        tmp = Path(name)
        env = isolated_env(tmp)
        if "startup" in parts:
            startup(tmp, env, args.runs, args.opencode)
        if "hook" in parts:
            hook(tmp, env, args.runs)
        sizes = [int(s) for s in args.sizes.split(",") if s]
        if "scaling" in parts:
            scaling(tmp, env, sizes, args.scaling_runs)
        if "calls" in parts:
            call_counts(tmp, env, sizes)
        if "team" in parts:
            team(tmp, env, min(args.scaling_runs, 3))
        if "memory" in parts:
            memory(tmp, env)
        if "rules" in parts:
            rules_scaling(tmp, env, [int(s) for s in args.rule_sizes.split(",") if s], args.scaling_runs)
        if "rules-memory" in parts:
            rules_memory(tmp, env)
        if "bashline" in parts:
            bash_line(tmp, env, min(args.runs, 5))
    if "bash" in parts and args.bash_mb:
        bash_runs([int(s) for s in args.bash_mb.split(",") if s])


if __name__ == "__main__":
    main()
