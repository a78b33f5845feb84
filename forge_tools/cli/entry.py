"""The console-script entry: start-up housekeeping for a short-lived process, then the CLI.

Cycle collection is paused while modules import (pydantic and typer build many objects that live
until exit) and those objects are then frozen out of later collections; at exit everything is frozen
again so the interpreter does not walk it all once more while shutting down. Together this saves
about a fifth of `forge-tools explain`'s start-up (bench/bench_explain.py).

Collection stays paused while a command builds its result: `layers`, `explain`, `check` and `diff`
build one large, almost cycle-free structure (config nodes, rules, a verdict per tool per agent) and
exit, and every full collection walks all of it again, so on a large project collection grew faster
than the work (measured at 100k rules and tools: 9 of `layers`' 22 s CPU, in 16 full collections that
freed 27 objects). `run` turns collection back on (`collection_for_a_long_call`) before the tool
runs: a call may run for hours, and its garbage is then collected as usual.

The methods `dataclasses` and `collections.namedtuple` write for each class are compiled once per
machine and kept in the data dir, as Python keeps bytecode (`cli/compiled.py`); the hook, which
defines few classes and must not touch a file it does not need, leaves them alone.
"""

from __future__ import annotations

import gc
import sys
from typing import Any

HOOK_SUBCOMMANDS = frozenset({"install", "uninstall", "status", "--help", "-h"})


def main() -> None:
    argv = sys.argv[1:]
    if argv[:1] == ["hook"] and not (len(argv) > 1 and argv[1] in HOOK_SUBCOMMANDS):
        # the agent's pre-tool hook runs before every tool call: decided without building the CLI
        # (neither typer nor rich is imported on this path; forge_tools/hook/main.py), and without
        # cycle collection: one decision builds little and exits (collection was a tenth of its CPU)
        gc.disable()
        from forge_tools.hook.lean import defer

        for name in ("inspect", "ipaddress"):
            defer(name)  # imported on the path, used only later or never: hook/lean.py
        from forge_tools.hook.main import main as hook

        code = hook(argv[1:])
        gc.freeze()  # nor at exit
        sys.exit(code)
    gc.disable()
    from forge_tools.cli import compiled
    from forge_tools.paths import data_dir

    compiled.install(data_dir())
    try:
        from forge_tools.cli.app import TERMINATED_EXIT, Terminated, run
    finally:
        gc.freeze()
    import signal  # not on the hook's path above

    terminated: list[int] = []

    def on_sigterm(signum: int, frame: Any) -> None:
        terminated.append(signum)
        raise Terminated()

    signal.signal(signal.SIGTERM, on_sigterm)
    code = run()
    if terminated:  # whatever the interrupted command made of it (asyncio re-raises a plain Ctrl-C)
        code = TERMINATED_EXIT
    compiled.keep()
    gc.freeze()
    sys.exit(code)


def collection_for_a_long_call() -> None:
    """Cycle collection on again (see the module docstring), for work that may run long, with what was
    built so far frozen out of its collections."""
    if not gc.isenabled():
        gc.freeze()
        gc.enable()
