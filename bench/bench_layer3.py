"""Layer three at scale: N plugin-registered tools against N rules (1% with wildcard permission names).

Prints the in-process time of the layer-three decision for every tool, at half, full and double size,
so the growth is visible. Target (bench/README.md): 10,000 x 10,000 under 1 s.

    python bench/bench_layer3.py [--size 10000] [--repeat 5] [--pipeline]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from forge_tools.origin import Origin
from forge_tools.rule import Rule
from forge_tools.visibility.permission_layer import permission_layer, request_rules


def workload(n_tools: int, n_rules: int, seed: int = 7) -> tuple[list[str], list[Rule]]:
    rnd = random.Random(seed)
    tools = [f"plugin_tool_{i:06d}" for i in range(n_tools)]
    origin = Origin("file", path="forge.json", line=1, column=1)
    rules = []
    for i in range(n_rules):
        if i % 100 == 0:  # 1% wildcard permission names, e.g. "plugin_tool_0012*"
            name = tools[rnd.randrange(n_tools)][: rnd.randrange(13, 18)] + "*"
        else:
            name = tools[rnd.randrange(n_tools)] if rnd.random() < 0.5 else f"other_{i}"
        action = rnd.choice(["allow", "deny", "ask"])
        rules.append(Rule(name, rnd.choice(["*", "*", "src/*"]), action, origin))
    return tools, rules


def timed(n_tools: int, n_rules: int, repeat: int) -> tuple[float, int]:
    tools, rules = workload(n_tools, n_rules)
    overrides = {tools[0]: False}
    times = []
    hidden = 0
    for _ in range(repeat):
        start = time.perf_counter()
        verdicts = permission_layer(tools, rules, request_rules(overrides, Origin("cli", name="--tools")),
                                    overrides)
        times.append(time.perf_counter() - start)
        hidden = sum(1 for v in verdicts.values() if not v.kept)
    return statistics.median(times), hidden


PLUGIN = """
from forge_tools import hookimpl
from forge_tools.tools.contract import Tool

N = {n}


@hookimpl
def register_tools(register):
    for i in range(N):
        register(Tool(f"plugin_tool_{{i:06d}}", "d", {{"type": "object"}}, lambda a, c: ""))
"""


def timed_pipeline(n: int, repeat: int) -> float:
    """The whole `resolve` (builtins, a plugin registering n tools, 3 layers); config parsing excluded."""
    import tempfile
    from pathlib import Path
    from types import SimpleNamespace

    from forge_tools.origin import Node
    from forge_tools.visibility.pipeline import Request, resolve

    _, rules = workload(n, n)
    permission: dict[str, dict[str, str]] = {}
    for rule in rules:
        permission.setdefault(rule.permission, {})[rule.pattern] = rule.action
    with tempfile.TemporaryDirectory() as tmp:
        plugins = Path(tmp) / "plugins"
        plugins.mkdir()
        (plugins / "many.py").write_text(PLUGIN.format(n=n))
        tree = Node.from_plain({"permission": permission}, Origin("file", path="forge.json"))
        loaded = SimpleNamespace(tree=tree, config_dirs=[Path(tmp)], plugin_specs=[], project_root=Path(tmp),
                                 sources=[])
        times = []
        for _ in range(repeat):
            start = time.perf_counter()
            resolve(loaded, Request())
            times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--pipeline", action="store_true", help="also time the whole resolve()")
    args = parser.parse_args()
    print(f"{'tools':>8} {'rules':>8} {'median s':>9} {'us/tool':>8} {'hidden':>7}")
    full = 0.0
    for factor in (0.5, 1, 2):
        n = int(args.size * factor)
        seconds, hidden = timed(n, n, args.repeat)
        print(f"{n:>8} {n:>8} {seconds:>9.3f} {seconds / n * 1e6:>8.1f} {hidden:>7}")
        if factor == 1:
            full = seconds  # the target is judged on this row, not on a second run of the same size
    seconds = full
    verdict = "under" if seconds < 1.0 else "OVER"
    print(f"target: {args.size} x {args.size} in under 1 s: {seconds:.3f} s ({verdict})")
    if args.pipeline:
        print(f"{'tools':>8} {'rules':>8} {'resolve s':>9}   (whole pipeline, plugin import included)")
        for factor in (0.5, 1, 2):
            n = int(args.size * factor)
            print(f"{n:>8} {n:>8} {timed_pipeline(n, max(1, args.repeat // 2)):>9.3f}")


if __name__ == "__main__":
    main()
