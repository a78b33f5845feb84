"""Re-record single opencode facts (not run by the test suite): what the real binary prints, or holds.

- `truncation/`: a project with a script tool that prints many lines and a `tool_output` limit;
  each call of `case.json` is run with `opencode debug agent AGENT --tool T --params P` and its
  `output` and `metadata.truncated` are recorded (the saved file's path written as `$OUTPUT`).
- `arity-<version>.json`: the command-prefix ("arity") table opencode uses for the patterns of an
  `always` answer to a bash question, read from the JavaScript embedded in the binary (opencode's
  `debug agent` never asks, so the `always` patterns cannot be seen from outside; the binary's own
  table is the record). `unshare -n` keeps opencode off the network.

- `outputs/`: the same for read's and bash's own wording (an empty file, a `limit`, an `offset` near
  and past the end, a long line, a missing file, a bash timeout, a failing command); a call opencode
  fails is recorded with its last lines.
- `definitions-<version>.json`: every tool definition opencode sends the model (name, description,
  JSON Schema of the parameters) for the build agent of a project with no config file (with
  `OPENCODE_ENABLE_EXA` and `OPENCODE_EXPERIMENTAL_LSP_TOOL`, so websearch and lsp are there too),
  as the
  stand-in model of `../fake_model.py` receives them from `opencode run` (`unshare -rn`).

- `script-args/`: a project whose `.opencode/tool/*.ts` declare zod `args` of every kind forge-tools
  reads; one `opencode run` with the stand-in model sends each call of `case.json` and records the
  JSON Schema opencode sends for each script tool and the text each call came back with (its
  validation errors word for word). `opencode debug agent` does not validate a call's input, so the
  run is the only way to see them. The tools import `@opencode-ai/plugin` and `zod`, which opencode
  would install from the network: `OPENCODE_PLUGIN_MODULES` names a `node_modules` holding them
  (`npm install @opencode-ai/plugin@1.18.33` in a scratch folder), copied into the scratch
  project's `.opencode/`.

Usage: OPENCODE=/path/to/opencode python tests/compat/facts/generate.py [PART ...]
(PART: arity, truncation, outputs, definitions, script-args; all of them when none is named)
(`OPENCODE` must be the platform binary, e.g. node_modules/opencode-linux-x64/bin/opencode, for the
arity table; the `opencode` wrapper script holds no source.)
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from opencode_run import _ANSI, normalise, opencode_env, version  # noqa: E402

# The table sits right after the `prefix` function of opencode's `BashArity` module: `var X={cat:1,...}`
_ARITY_TABLE = re.compile(rb"BashArity:\(\)=>\w+\}\);function \w+\(\w+\)\{.{0,300}?\}var \w+=(\{[^}]*\})",
                          re.DOTALL)
_ENTRY = re.compile(r'(?:"([^"]+)"|([A-Za-z0-9_-]+)):(\d+)')
_OUTPUT_FILE = re.compile(r"\$HOME/\.local/share/opencode/tool-output/tool_[A-Za-z0-9]+")


def run_long(program: str, args: list[str], cwd: Path, env: dict[str, str]) -> tuple[int, str]:
    """`opencode_run.run` with a longer timeout: with a script tool and no network, opencode first
    waits for `.opencode`'s dependency install to give up (over a minute on the recording machine)."""
    done = subprocess.run([program, *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=900, check=False)
    text = done.stdout if done.returncode == 0 else done.stdout + done.stderr
    return done.returncode, _ANSI.sub("", text)


def arity_table(binary: str) -> dict[str, int]:
    data = Path(binary).read_bytes()
    found = _ARITY_TABLE.search(data)
    if found is None:
        raise SystemExit(f"no BashArity table found in {binary}")
    text = found.group(1).decode()
    return {quoted or bare: int(n) for quoted, bare, n in _ENTRY.findall(text)}


def record_definitions(opencode: str, scratch: Path, opencode_version: str) -> dict[str, object]:
    """The tools opencode 1.18.33 offers the build agent, as the model receives them."""
    from fake_model import provider_config

    project, home = scratch / "project", scratch / "home"
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    (home / ".config" / "opencode").mkdir(parents=True)
    (home / ".config" / "opencode" / "opencode.json").write_text(json.dumps(provider_config(18650)))
    (scratch / "queue.json").write_text(json.dumps([["glob", {"pattern": "*.none"}]]))
    subprocess.run(["unshare", "-rn", sys.executable, str(HERE.parent / "fake_model.py"), "18650",
                    str(scratch / "queue.json"), str(scratch / "out.json"), "--", opencode, "run",
                    "--agent", "build", "go"], cwd=project, check=True, timeout=900,
                   # websearch (Exa) and the lsp tool are offered only when switched on
                   env=opencode_env(home, {"OPENCODE_ENABLE_EXA": "1",
                                           "OPENCODE_EXPERIMENTAL_LSP_TOOL": "1"}))
    sent = json.loads((scratch / "out.json").read_text())["calls"][0]["schemas"]
    tools = {name: json.loads(normalise(json.dumps(sent[name]), project, home)) for name in sorted(sent)}
    return {"opencode_version": opencode_version, "agent": "build", "model": "a stand-in (provider fake)",
            "tools": tools}


def record_script_args(opencode: str, scratch: Path, opencode_version: str) -> dict[str, object]:
    """What opencode sends and answers for the zod `args` of `script-args/.opencode/tool/*.ts`."""
    from fake_model import provider_config

    case = HERE / "script-args"
    spec = json.loads((case / "case.json").read_text())
    project, home = scratch / "project", scratch / "home"
    shutil.copytree(case, project, ignore=shutil.ignore_patterns("case.json", "opencode-*.json"))
    modules = os.environ.get("OPENCODE_PLUGIN_MODULES")
    if not modules:
        raise SystemExit("script-args needs OPENCODE_PLUGIN_MODULES (a node_modules holding "
                         "@opencode-ai/plugin)")
    shutil.copytree(modules, project / ".opencode" / "node_modules", symlinks=True)
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    (home / ".config" / "opencode").mkdir(parents=True)
    (home / ".config" / "opencode" / "opencode.json").write_text(json.dumps(provider_config(18651)))
    (scratch / "queue.json").write_text(json.dumps([[c["tool"], c["params"]] for c in spec["calls"]]))
    subprocess.run(["unshare", "-rn", sys.executable, str(HERE.parent / "fake_model.py"), "18651",
                    str(scratch / "queue.json"), str(scratch / "out.json"), "--", opencode, "run",
                    "--agent", "build", "go"], cwd=project, check=True, timeout=1800,
                   env=opencode_env(home, {"OPENCODE_DISABLE_MODELS_FETCH": "1"}))
    out = json.loads((scratch / "out.json").read_text())
    sent = out["calls"][0]["schemas"] if out["calls"] else {}
    tools = {name: json.loads(normalise(json.dumps(sent[name]), project, home))
             for name in sorted(sent) if name in {c["tool"] for c in spec["calls"]}}
    calls = [{**call, "result": normalise(str(got.get("result")), project, home)}
             for call, got in zip(spec["calls"], out["calls"], strict=False)]
    return {"opencode_version": opencode_version, "tools": tools, "calls": calls}


def record_truncation(opencode: str, scratch: Path, opencode_version: str,
                      name: str = "truncation") -> dict[str, object]:
    case = HERE / name
    spec = json.loads((case / "case.json").read_text())
    project, home = scratch / name, scratch / "home"
    shutil.copytree(case, project, ignore=shutil.ignore_patterns("case.json", "opencode-*.json"))
    home.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    env = opencode_env(home, {"OPENCODE_DISABLE_MODELS_FETCH": "1"})
    calls = []
    for call in spec["calls"]:
        params = json.loads(json.dumps(call["params"]).replace("$PROJECT", str(project)))
        code, out = run_long("unshare", ["-n", opencode, "debug", "agent", call["agent"], "--tool",
                                    call["tool"], "--params", json.dumps(params)], project, env)
        if code != 0 and name == "truncation":
            raise SystemExit(f"opencode failed on {call}: {out[-2000:]}")
        if code != 0:
            lines = normalise(out, project, home).strip().splitlines()
            calls.append({**call, "failed": [line for line in lines if line.strip()][-3:]})
            continue
        result = json.loads(out[out.index("{"):])["result"]
        text = _OUTPUT_FILE.sub("$OUTPUT", normalise(result["output"], project, home))
        calls.append({**call, "output": text, "truncated": result["metadata"].get("truncated"),
                      "title": normalise(str(result.get("title", "")), project, home)})
    return {"opencode_version": opencode_version, "calls": calls}


def main() -> int:
    opencode = os.environ.get("OPENCODE", "opencode")
    recorded_with = version(opencode)
    wanted = set(sys.argv[1:]) or {"arity", "truncation", "outputs", "definitions", "script-args"}
    if "arity" in wanted:
        table = arity_table(opencode)
        (HERE / f"arity-{recorded_with}.json").write_text(json.dumps({
            "opencode_version": recorded_with,
            "observed": "read from the JavaScript embedded in the opencode binary (its BashArity table)",
            "count": len(table), "prefixes": table}, indent=1) + "\n")
        print(f"recorded arity ({len(table)} prefixes)")
    for name in ("truncation", "outputs"):
        if name in wanted:
            with tempfile.TemporaryDirectory() as tmp:
                data = record_truncation(opencode, Path(tmp), recorded_with, name)
            (HERE / name / f"opencode-{recorded_with}.json").write_text(json.dumps(data, indent=1) + "\n")
            print(f"recorded {name}")
    if "definitions" in wanted:
        with tempfile.TemporaryDirectory() as tmp:
            data = record_definitions(opencode, Path(tmp), recorded_with)
        (HERE / f"definitions-{recorded_with}.json").write_text(json.dumps(data, indent=1) + "\n")
        print("recorded definitions")
    if "script-args" in wanted:
        with tempfile.TemporaryDirectory() as tmp:
            data = record_script_args(opencode, Path(tmp), recorded_with)
        target = HERE / "script-args" / f"opencode-{recorded_with}.json"
        target.write_text(json.dumps(data, indent=1) + "\n")
        print("recorded script-args")
    return 0


if __name__ == "__main__":
    sys.exit(main())
