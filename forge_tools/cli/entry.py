"""The console-script entry: start-up housekeeping for a short-lived process, then the CLI.

Cycle collection is paused while modules import (pydantic and typer build many objects that live
until exit) and those objects are then frozen out of later collections; at exit everything is frozen
again so the interpreter does not walk it all once more while shutting down. Together this saves
about a fifth of `forge-tools explain`'s start-up (bench/bench_explain.py). Collection stays on while
a command runs, so long `run` calls keep their memory bounded.
"""

from __future__ import annotations

import gc
import sys


def main() -> None:
    gc.disable()
    try:
        from forge_tools.cli.app import run
    finally:
        gc.freeze()
        gc.enable()
    code = run()
    gc.freeze()
    sys.exit(code)
