"""Benchmark: `forge-tools run bash` on a command that prints a lot, against a plain shell redirect.

Prints peak memory (max RSS of the forge-tools process, from `os.wait4`) and wall time for both, side
by side. The issue's targets: peak memory under 100 MB and wall time within 3x of the redirect.

    python bench/bench_run_bash.py            # 100 MB of output
    python bench/bench_run_bash.py --mb 1000  # 1 GB
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def command_for(megabytes: int) -> str:
    """Lines of 100 'a's (plus newline), `megabytes` million bytes of them before folding."""
    return f"head -c {megabytes * 1_000_000} /dev/zero | tr '\\0' 'a' | fold -w 100"


def measure(argv: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float, int]:
    """(wall seconds, max RSS in MB of the process tree it waited for, exit status)."""
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
    return wall, usage.ru_maxrss / 1024.0, proc.returncode


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--mb", type=int, default=100, help="output size in MB (default 100)")
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
        print("shell redirect:")
        shell_wall, shell_rss, shell_rc = measure(
            ["sh", "-c", f"{command} > {root / 'redirect.txt'}"], env, project
        )
        print("forge-tools run bash:")
        forge_wall, forge_rss, forge_rc = measure(
            [args.forge_tools, "run", "bash", "--timeout", "3600", "--yes",
             "--args", json.dumps({"command": command, "description": "benchmark output"})],
            env, project,
        )
        saved = sorted((root / "data" / "tool-output").glob("tool_*"))
        saved_size = saved[-1].stat().st_size if saved else 0

    print()
    print(f"{'':24}{'shell redirect':>16}{'forge-tools run':>18}")
    print(f"{'wall time (s)':24}{shell_wall:>16.2f}{forge_wall:>18.2f}")
    print(f"{'peak RSS (MB)':24}{shell_rss:>16.1f}{forge_rss:>18.1f}")
    print(f"{'exit status':24}{shell_rc:>16}{forge_rc:>18}")
    print(f"full-output file: {saved_size / 1e6:.1f} MB")
    ratio = forge_wall / shell_wall if shell_wall > 0 else float("inf")
    print(f"time ratio: {ratio:.2f}x (target <= 3x); peak memory {forge_rss:.1f} MB (target < 100 MB)")
    ok = forge_rc == 0 and forge_rss < 100 and ratio <= 3
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
