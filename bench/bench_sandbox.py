"""Benchmark: what `run`'s sandbox (issue 21) adds to each bash call (goal: under 20 ms).

Two parts, each a median over `--runs` runs:

1. Planning: `plan_sandbox` (walking the project against the rules) plus `bwrap_argv`, in process, on
   a project of `--files` files, once with rules that need no walk below the top level and once with
   a `*.env` read deny (which has to look at every file).
2. Starting: `bwrap <the plan> -- /bin/bash -c true` against `/bin/bash -c true`, wall time of a new
   process each run; the difference is the sandbox's start cost per call.

    python bench/bench_sandbox.py
    python bench/bench_sandbox.py --files 20000 --runs 31
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from forge_tools.origin import Origin
from forge_tools.rule import Rule
from forge_tools.tools.sandbox import availability, bwrap_argv, plan_sandbox

GOAL_MS = 20.0


def _rules(*specs: tuple[str, str, str]) -> tuple[Rule, ...]:
    origin = Origin("bench")
    return tuple(Rule(p, pattern, action, origin) for p, pattern, action in specs)  # type: ignore[arg-type]


PLAIN = _rules(("*", "*", "allow"), ("edit", "data/canary.txt", "deny"), ("webfetch", "*", "deny"))
WALKING = (*PLAIN, *_rules(("read", "*.env", "deny")))


def _project(root: Path, files: int) -> None:
    (root / ".git").mkdir()
    (root / "data").mkdir()
    (root / "data" / "canary.txt").write_text("keep\n")
    for i in range(files):
        directory = root / "src" / f"pkg{i // 100}"
        directory.mkdir(parents=True, exist_ok=True)
        (directory / f"m{i}.py").write_text("")
    (root / "src" / ".env").write_text("SECRET\n")


def _median_ms(fn, runs: int) -> float:  # type: ignore[no-untyped-def]
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        fn()
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--files", type=int, default=2000, help="files in the project (default 2000)")
    parser.add_argument("--runs", type=int, default=21, help="runs per figure (default 21)")
    args = parser.parse_args(argv)
    why_not = availability()
    with tempfile.TemporaryDirectory(prefix="forge-bench-sandbox-") as tmp:
        root = Path(tmp)
        _project(root, args.files)
        plan_plain = _median_ms(lambda: bwrap_argv(plan_sandbox(PLAIN, root), ["true"], str(root)),
                                args.runs)
        plan_walk = _median_ms(lambda: bwrap_argv(plan_sandbox(WALKING, root), ["true"], str(root)),
                               args.runs)
        print(f"plan ({args.files} files), rules with no walk: {plan_plain:.2f} ms")
        print(f"plan ({args.files} files), a `*.env` read deny (every file looked at): {plan_walk:.2f} ms")
        if why_not is not None:
            print(f"start: not measured, bubblewrap cannot run here: {why_not}")
            return 0
        plan = plan_sandbox(PLAIN, root)
        sandboxed = bwrap_argv(plan, ["/bin/bash", "-c", "true"], str(root))
        plain = ["/bin/bash", "-c", "true"]

        def start(cmd: list[str]) -> tuple[float, float]:
            """(wall ms, CPU ms: user + system of the process tree, from wait4)."""
            began = time.perf_counter()
            proc = subprocess.Popen(cmd, cwd=root, stdout=subprocess.DEVNULL)
            _, status, usage = os.wait4(proc.pid, 0)
            assert os.waitstatus_to_exitcode(status) == 0
            return (time.perf_counter() - began) * 1000, (usage.ru_utime + usage.ru_stime) * 1000

        bare, boxed = [], []
        for _ in range(args.runs):  # interleaved, so a busy moment weighs on both
            bare.append(start(plain))
            boxed.append(start(sandboxed))
        bare_ms, boxed_ms = (statistics.median(t[0] for t in bare), statistics.median(t[0] for t in boxed))
        bare_cpu, boxed_cpu = (statistics.median(t[1] for t in bare), statistics.median(t[1] for t in boxed))
        cost = boxed_ms - bare_ms + plan_plain
        print(f"start, wall: bash -c true {bare_ms:.2f} ms, inside bwrap {boxed_ms:.2f} ms "
              f"({boxed_ms / bare_ms:.2f}x)")
        print(f"start, CPU: bash -c true {bare_cpu:.2f} ms, inside bwrap {boxed_cpu:.2f} ms "
              f"(+{boxed_cpu - bare_cpu:.2f} ms; namespace set-up in the kernel counts here too)")
        print(f"sandbox cost per call (plan + start): {cost:.2f} ms = {cost / GOAL_MS:.2f}x the "
              f"{GOAL_MS:g} ms goal ({'met' if cost < GOAL_MS else 'NOT met'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
