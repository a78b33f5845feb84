"""Benchmark: the cost of deciding a bash command line grows linearly with its length (issue 22).

An unknown wrapper repeated N times (`strace` x N, `timeout -Z 1` x N, ...) in front of `rm x`, decided
by `explain bash --call` in-process (the same gate decision `run` and `check --expect` use), for
N = 10, 100, 1,000. Prints CPU seconds per N and the ratio to the previous N: linear growth is a
ratio near 10 (the line is 10x longer). A line past `shell.MAX_LINE` characters (1 MiB) is not analysed
(one pattern, asked with a one-line reason unless a rule denies it).

    python bench/bench_splitter.py
    python bench/bench_splitter.py --runs 5 --sizes 10,100,1000
"""

from __future__ import annotations

import argparse
import contextlib
import io
import itertools
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

WRAPPERS = ("strace", "nsenter", "parallel", "nice -Z", "ltrace", "timeout -Z 1")


def decide(line: str) -> str:
    from forge_tools.cli.app import run

    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        run(["explain", "bash", "--call", json.dumps({"command": line}), "--format", "json"])
    return str(json.loads(out.getvalue())["call"]["action"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="10,100,1000", help="repetitions (default 10,100,1000)")
    parser.add_argument("--runs", type=int, default=3, help="runs per figure; the median is printed")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    with tempfile.TemporaryDirectory(prefix="forge-bench-") as tmp:
        project = Path(tmp)
        (project / ".git").mkdir()
        rules = {"permission": {"bash": {"*": "allow", "rm *": "deny"}}}
        (project / "opencode.json").write_text(json.dumps(rules))
        os.chdir(project)
        decide("true")  # imports and caches warm
        print(f"{'wrapper':<14}" + "".join(f"{'x' + str(n):>12}" for n in sizes) + "   ratios")
        for wrapper in WRAPPERS:
            times: list[float] = []
            for n in sizes:
                line = (wrapper + " ") * n + "rm x"
                runs = []
                for _ in range(args.runs):
                    started = time.process_time()
                    action = decide(line)
                    runs.append(time.process_time() - started)
                if action == "allow":
                    print(f"{wrapper} x{n}: allowed (expected ask)", file=sys.stderr)
                    return 1
                times.append(statistics.median(runs))
            ratios = [b / a if a else float("inf") for a, b in itertools.pairwise(times)]
            print(f"{wrapper:<14}" + "".join(f"{t:>11.3f}s" for t in times) + "   "
                  + "  ".join(f"{r:.1f}x" for r in ratios))
    print("(each size is 10x longer than the one before: linear is a ratio near 10x)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
