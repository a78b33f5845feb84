"""Wall time of `forge-tools explain bash` on a small project (a new process each run).

Prints the median and spread over N runs. Target (bench/README.md): median under 250 ms. To see where start-up
time goes: `python -X importtime -m forge_tools explain bash 2> imports.txt`.

    python bench/bench_explain.py [--runs 21]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

FORGE_TOML = """model = "anthropic/claude-sonnet-4"

[permission]
bash = { "*" = "ask", "git *" = "allow", "rm *" = "deny" }

[agent.plan.permission]
edit = "deny"
"""

SCRIPT = '''from forge_tools import tool


@tool(description="Count the lines of a file")
def count_lines(path: str) -> str:
    return str(len(open(path).read().splitlines()))
'''

PLUGIN = '''from forge_tools import hookimpl


@hookimpl
def tool_definition(tool_id, definition):
    if tool_id == "read":
        definition.description = "Read a file (house rule: never print secrets)."
'''


def make_project(root: Path) -> None:
    (root / ".git").mkdir()
    (root / "forge.toml").write_text(FORGE_TOML)
    (root / ".forge" / "tools").mkdir(parents=True)
    (root / ".forge" / "tools" / "count_lines.py").write_text(SCRIPT)
    (root / ".forge" / "plugins").mkdir(parents=True)
    (root / ".forge" / "plugins" / "policy.py").write_text(PLUGIN)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=21)
    args = parser.parse_args()
    exe = shutil.which("forge-tools", path=str(Path(sys.executable).parent)) or "forge-tools"
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "project"
        root.mkdir()
        make_project(root)
        home = Path(tmp) / "home"
        home.mkdir()
        env = {**os.environ, "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"),
               "FORGE_DATA_DIR": str(Path(tmp) / "data"), "NO_COLOR": "1"}
        argv = [exe, "explain", "bash"]
        subprocess.run(argv, cwd=root, env=env, check=True, capture_output=True)  # warm the disk cache
        times = []
        for _ in range(args.runs):
            start = time.perf_counter()
            subprocess.run(argv, cwd=root, env=env, check=True, capture_output=True)
            times.append(time.perf_counter() - start)
    median = statistics.median(times)
    print(f"forge-tools explain bash: median {median * 1000:.0f} ms, min {min(times) * 1000:.0f} ms, "
          f"max {max(times) * 1000:.0f} ms over {args.runs} runs")
    print(f"target: median under 250 ms: {'met' if median < 0.25 else 'NOT met'}")


if __name__ == "__main__":
    main()
