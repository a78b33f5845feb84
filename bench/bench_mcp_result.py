"""`forge-tools run` of an MCP tool whose result is large, against a real stdio server written with the
`mcp` SDK (tests/sources/mcp_trouble_server.py, tool `flood`: MB megabytes of numbered lines, sent as one
JSON-RPC line). Prints CPU time (user + system of forge-tools and the servers it started) per size, and
the cost per MB above a 0 MB result (starting Python and the SDK twice, to list and to call, is most of
a small call) against the smallest size's: flat means reading is linear (the SDK's own stdio reader
joined each 64 KiB chunk to the line buffered so far, which is quadratic in the message's size).

    python bench/bench_mcp_result.py                   # 0 (the base), 4, 16 and 100 MB
    python bench/bench_mcp_result.py --sizes 0,4,8,16 --runs 3
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SERVER = Path(__file__).resolve().parents[1] / "tests" / "sources" / "mcp_trouble_server.py"


def forge_exe() -> str:
    beside = Path(sys.executable).with_name("forge-tools")
    return str(beside) if beside.exists() else shutil.which("forge-tools") or "forge-tools"


def one_run(mb: int, project: Path, env: dict[str, str]) -> tuple[float, float, dict[str, object]]:
    """(CPU seconds of forge-tools and the server it started, wall seconds, the result's metadata)."""
    argv = [forge_exe(), "run", "t_flood", "--args", json.dumps({"mb": mb}), "--yes", "--format", "json"]
    before = os.times()
    started = time.perf_counter()
    proc = subprocess.run(argv, cwd=project, env=env, capture_output=True, check=False)
    wall = time.perf_counter() - started
    after = os.times()
    if proc.returncode != 0:
        raise SystemExit(f"run t_flood {mb} MB failed: {proc.stderr.decode(errors='replace')[-400:]}")
    cpu = after.children_user + after.children_system - before.children_user - before.children_system
    return cpu, wall, json.loads(proc.stdout)["result"]["metadata"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="0,4,16,100", help="result sizes in MB")
    parser.add_argument("--runs", type=int, default=1, help="runs per size (median)")
    opts = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="forge-mcp-bench-") as name:
        root = Path(name)
        project = root / "project"
        (project / ".git").mkdir(parents=True)
        config = {"mcp": {"t": {"type": "local", "command": [sys.executable, str(SERVER), "serve"],
                                "timeout": 3_600_000}}}
        (project / "opencode.json").write_text(json.dumps(config))
        env = {k: v for k, v in os.environ.items() if not k.startswith(("FORGE_", "OPENCODE_"))}
        env.update(HOME=str(root / "home"), FORGE_DATA_DIR=str(root / "data"), NO_COLOR="1")
        one_run(0, project, env)  # warm-up: the first run also lists the tools (a second server start)
        base: float | None = None
        zero = 0.0
        for mb in (int(s) for s in opts.sizes.split(",") if s):
            cpus, walls = [], []
            meta: dict[str, object] = {}
            for _ in range(opts.runs):
                cpu, wall, meta = one_run(mb, project, env)
                cpus.append(cpu)
                walls.append(wall)
            cpu, wall = statistics.median(cpus), statistics.median(walls)
            if mb == 0:
                zero = cpu
                print(f"    0 MB result: {cpu:7.2f} s CPU {wall:7.2f} s wall (the base)")
                continue
            per_mb = (cpu - zero) / mb
            base = per_mb if base is None else base
            saved = Path(str(meta.get("outputPath", ""))) if meta.get("outputPath") else None
            size = saved.stat().st_size / 1e6 if saved is not None and saved.exists() else 0.0
            peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
            print(f"{mb:>5} MB result: {cpu:7.2f} s CPU {wall:7.2f} s wall; "
                  f"{per_mb * 1000:7.1f} ms CPU per MB above the base "
                  f"({per_mb / base:5.2f}x the smallest size's); truncated={meta.get('truncated')}, "
                  f"full text file {size:.1f} MB; largest peak so far {peak:.0f} MB")


if __name__ == "__main__":
    main()
