"""Benchmark: `forge-tools run bash` on a command that prints a lot, against a plain shell redirect.

Prints CPU time (user + system of the process and the commands it waited for, from `os.wait4`), wall
time and peak memory (max RSS) for both, side by side; `--runs N` takes the median of N interleaved
runs. Goals: CPU time within 1.3x the redirect's, peak memory under 100 MB.

    python bench/bench_run_bash.py            # 100 MB of output
    python bench/bench_run_bash.py --mb 1000  # 1 GB
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def command_for(megabytes: int) -> str:
    """Lines of 100 'a's (plus newline), `megabytes` million bytes of them before folding."""
    return f"head -c {megabytes * 1_000_000} /dev/zero | tr '\\0' 'a' | fold -w 100"


def measure(argv: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float, int, float]:
    """(wall seconds, max RSS in MB of the process tree it waited for, exit status, CPU seconds)."""
    started = time.perf_counter()
    proc = subprocess.Popen(argv, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - started
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.stderr is not None:
        err = proc.stderr.read().decode("utf-8", "replace")
        proc.stderr.close()
        if proc.returncode != 0:
            print(err, file=sys.stderr)
        else:
            for line in err.splitlines()[-2:]:
                print(f"    {line}")
    return wall, usage.ru_maxrss / 1024.0, proc.returncode, usage.ru_utime + usage.ru_stime


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--mb", type=int, default=100, help="output size in MB (default 100)")
    parser.add_argument("--runs", type=int, default=1, help="interleaved runs of each (median)")
    beside = Path(sys.executable).with_name("forge-tools")  # the venv this script runs in
    parser.add_argument("--forge-tools", default=str(beside) if beside.exists() else
                        shutil.which("forge-tools") or "forge-tools",
                        help="the forge-tools executable")
    args = parser.parse_args(argv)

    command = command_for(args.mb)
    with tempfile.TemporaryDirectory(prefix="forge-bench-") as tmp:
        root = Path(tmp)
        project = root / "project"
        (project / ".git").mkdir(parents=True)
        env = dict(os.environ, FORGE_DATA_DIR=str(root / "data"), NO_COLOR="1")
        env.pop("FORGE_CONFIG_CONTENT", None)
        env.pop("FORGE_PERMISSION", None)

        print(f"command: {command}  ({args.mb} MB)")
        shell_runs, forge_runs = [], []
        for _ in range(args.runs):
            shell_runs.append(measure(["sh", "-c", f"{command} > {root / 'redirect.txt'}"], env, project))
            forge_runs.append(measure(
                [args.forge_tools, "run", "bash", "--timeout", "3600", "--yes",
                 "--args", json.dumps({"command": command, "description": "benchmark output"})],
                env, project,
            ))
        saved = sorted((root / "data" / "tool-output").glob("tool_*"))
        saved_size = saved[-1].stat().st_size if saved else 0
    shell_wall, shell_rss, shell_rc, shell_cpu = (statistics.median(r[i] for r in shell_runs)
                                                  for i in range(4))
    forge_wall, forge_rss, forge_rc, forge_cpu = (statistics.median(r[i] for r in forge_runs)
                                                  for i in range(4))
    print()
    print(f"{'':24}{'shell redirect':>16}{'forge-tools run':>18}")
    print(f"{'CPU time (s)':24}{shell_cpu:>16.2f}{forge_cpu:>18.2f}")
    print(f"{'wall time (s)':24}{shell_wall:>16.2f}{forge_wall:>18.2f}")
    print(f"{'peak RSS (MB)':24}{shell_rss:>16.1f}{forge_rss:>18.1f}")
    print(f"{'exit status':24}{shell_rc:>16}{forge_rc:>18}")
    print(f"full-output file: {saved_size / 1e6:.1f} MB")
    ratio = forge_cpu / shell_cpu if shell_cpu > 0 else float("inf")
    wall_ratio = forge_wall / shell_wall if shell_wall > 0 else float("inf")
    print(f"CPU ratio: {ratio:.2f}x (goal <= 1.3x); wall {wall_ratio:.2f}x; peak memory {forge_rss:.1f} MB "
          "(goal < 100 MB)")
    ok = forge_rc == 0 and forge_rss < 100 and ratio <= 1.3
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
