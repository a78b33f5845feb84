"""A simple command against a config of many rules (issue 22: 200,000 rules, 8 MB of config, took 35 s
and more for `explain bash --call '{"command": "ls"}'`; every evaluation compiled every pattern again
once there were more patterns than the pattern cache held).

Prints CPU time (user + system of the child, from `wait4`) per size and the ratio per rule against the
smallest size: flat ratios mean the cost grows linearly with the config.

    python bench/bench_many_rules.py                 # 10k, 50k, 200k rules
    python bench/bench_many_rules.py --sizes 1000,100000 --runs 3
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path


def make_project(root: Path, n: int) -> Path:
    project = root / f"rules-{n}"
    (project / ".git").mkdir(parents=True)
    rules = {f"cmd{i} --flag{i % 7} *": ("deny" if i % 3 == 0 else "allow") for i in range(n)}
    (project / "opencode.json").write_text(json.dumps({"permission": {"bash": rules}}))
    return project


def cpu_seconds(argv: list[str], cwd: Path, env: dict[str, str]) -> float:
    proc = subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(argv)} failed in {cwd}")
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="10000,50000,200000")
    parser.add_argument("--runs", type=int, default=1)
    opts = parser.parse_args()
    sizes = [int(s) for s in opts.sizes.split(",")]
    command = [sys.executable, "-m", "forge_tools", "explain", "bash", "--call", '{"command": "ls"}']
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        env = {**os.environ, "HOME": str(root / "home"), "FORGE_DATA_DIR": str(root / "data")}
        base: float | None = None
        for n in sizes:
            project = make_project(root, n)
            size_mb = (project / "opencode.json").stat().st_size / 1e6
            cpu = statistics.median(cpu_seconds(command, project, env) for _ in range(opts.runs))
            per_rule = cpu / n
            base = per_rule if base is None else base
            print(f"{n:>8} rules ({size_mb:5.1f} MB): explain --call ls {cpu:6.2f} s CPU, "
                  f"per rule {per_rule * 1e6:6.1f} us ({per_rule / base:4.2f}x the smallest size's)")


if __name__ == "__main__":
    main()
