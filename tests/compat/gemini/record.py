"""Record Gemini CLI 0.61's own policy answers from its released library and CLI settings loader.

Run by hand (the suite never runs this; tests/compat/test_gemini_runtime.py reads the records):

    .venv/bin/python tests/compat/gemini/record.py              # every config in cases.json
    .venv/bin/python tests/compat/gemini/record.py --only NAME
    .venv/bin/python tests/compat/gemini/record.py --defaults   # forge_tools/data/gemini-0.61.0-defaults.json
    .venv/bin/python tests/compat/gemini/record.py --cli-rules NAME ...   # the real CLI's rule list

Each config is laid out (layout.py) in a scratch HOME and project; the script then runs oracle.mjs under
``unshare -n -m`` (loopback only, a private mount namespace with an overlay over /etc, so the system
directory /etc/gemini-cli is written without touching the real /etc). oracle.mjs loads the settings
with the CLI's own ``loadSettings`` (@google/gemini-cli 0.61.0's bundle: layers, merge strategies,
folder trust), builds the policy engine with @google/gemini-cli-core 0.61.0's
``createPolicyEngineConfig`` (bundled defaults, ~/.gemini/policies, the admin directory) and asks
``PolicyEngine.check`` about every call and ``getExcludedTools`` which tools the model is not offered.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from layout import project_dir, write_case  # noqa: E402

CORE = Path(os.environ.get("GEMINI_CORE", "/work/agents/node_modules/@google/gemini-cli-core"))
CLI = Path(os.environ.get("GEMINI_CLI", "/tmp/gem-cli/node_modules/@google/gemini-cli"))
CASES = HERE / "cases.json"
RECORDS = HERE / "gemini-0.61.0.json"
CLI_RULES = HERE / "gemini-0.61.0-cli-rules.json"
#: one line of `/policies list`: `3. **DENY** tool: `x` (args match: `re`) [Priority: 4.3] [Source: S]`
_POLICY_LINE = re.compile(r"^\d+\. \*\*(\w+)\*\* tool: `(.*?)`(?: \(args match: `(.*)`\))?"
                          r" \[Priority: ([\d.]+)\] \[Source: (.*)\]$")
DEFAULTS = HERE.parents[2] / "forge_tools" / "data" / "gemini-0.61.0-defaults.json"
VERSION = "0.61.0"
#: where the recorder puts its scratch homes and projects (fixed, so recorded paths are stable)
ROOT = Path("/tmp/ft-gemini-compat")


def settings_chunk() -> Path:
    """The CLI bundle's chunk that exports `loadSettings` (its name is a content hash)."""
    for path in sorted((CLI / "bundle").glob("chunk-*.js")):
        text = path.read_text(errors="replace")
        if "function _doLoadSettings(" in text:
            return path
    raise SystemExit(f"no settings loader in {CLI / 'bundle'}: npm install @google/gemini-cli@{VERSION}")


def run_oracle(payload: dict[str, Any], home: Path, cwd: Path, etc_upper: Path | None) -> dict[str, Any]:
    env = {"PATH": os.environ["PATH"], "HOME": str(home), "GEMINI_CORE": str(CORE / "dist" / "index.js"),
           "GEMINI_CLI_SETTINGS": str(settings_chunk()), "NO_COLOR": "1"}
    node = f"node {HERE / 'oracle.mjs'}"
    if etc_upper is not None:
        work = etc_upper.parent / "etc-work"
        work.mkdir(exist_ok=True)
        etc_upper.mkdir(parents=True, exist_ok=True)
        script = (f"mount -t overlay overlay -o lowerdir=/etc,upperdir={etc_upper},workdir={work} /etc"
                  f" && cd {cwd} && {node}")
    else:
        script = f"cd {cwd} && {node}"
    out = subprocess.run(["unshare", "-n", "-m", "--propagation", "private", "sh", "-c", script],
                         input=json.dumps(payload), capture_output=True, text=True, env=env, timeout=120,
                         check=False)
    if out.returncode != 0:
        raise SystemExit(f"oracle failed: {out.stderr[-2000:]}")
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def record_case(case: dict[str, Any]) -> dict[str, Any]:
    import shutil

    scratch = ROOT / case["name"]
    if scratch.exists():
        shutil.rmtree(scratch)
    home, project, upper = scratch / "home", scratch / "project", scratch / "etc-upper"
    system = upper / "gemini-cli"
    write_case(case, home, project, system)
    project = project_dir(case, home, project)
    calls = [{"name": c[0], "args": c[1], **({"server": c[2]} if len(c) > 2 else {})} for c in case["calls"]]
    payload = {"load_settings": True, "workspace": str(project), "mode": case.get("mode", "default"),
               "interactive": case.get("interactive", True), "calls": calls,
               "mcp_tools": case.get("mcp_tools", {})}
    out = run_oracle(payload, home, project, upper)
    if "fatal" in out:
        return {"name": case["name"], "project": str(project), "home": str(home), "fatal": out["fatal"]}
    return {"name": case["name"], "project": str(project), "home": str(home), "trusted": out["trusted"],
            "calls": [{"call": c, **r} for c, r in zip(case["calls"], out["calls"], strict=True)],
            "tools": out["tools"], "excluded": out["excluded"], "feedback": out["feedback"],
            "settings_errors": out["settings_errors"]}


def record_defaults() -> None:
    """The rules the bundled default policies give (no settings, no user or admin policies)."""
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        home.mkdir()
        out = run_oracle({"dump_rules": True, "workspace": tmp}, home, Path(tmp), None)
    data = {"version": VERSION, "recorded_by": "tests/compat/gemini/record.py --defaults",
            "rules": out["rules"]}
    DEFAULTS.write_text(json.dumps(data, indent=1) + "\n")
    print(f"{len(out['rules'])} default rules -> {DEFAULTS}")


def record_cli_rules(case: dict[str, Any]) -> list[dict[str, Any]] | dict[str, str]:
    """The rules the real CLI lists in its normal mode (`gemini -p "/policies list"`, headless), for
    `case` laid out as `record_case` lays it out. After printing the list the CLI sends the prompt to
    the model: inside `unshare -n` that fails (loopback only), and the run is cut off after 25 s."""
    record_case(case)
    scratch = ROOT / case["name"]
    home, upper = scratch / "home", scratch / "etc-upper"
    project = project_dir(case, home, scratch / "project")
    gemini = CLI.parents[1] / ".bin" / "gemini"
    work = scratch / "etc-work"
    script = (f"mount -t overlay overlay -o lowerdir=/etc,upperdir={upper},workdir={work} /etc && "
              f"cd {project} && timeout 25 {gemini} -p '/policies list' </dev/null")
    env = {"PATH": os.environ["PATH"], "HOME": str(home), "GEMINI_API_KEY": "placeholder", "NO_COLOR": "1"}
    out = subprocess.run(["unshare", "-n", "-m", "--propagation", "private", "sh", "-c", script],
                         capture_output=True, text=True, env=env, timeout=120, check=False)
    lines = out.stdout.splitlines()
    if "### Normal Mode Policies" not in lines:
        said = [line for line in (out.stdout + out.stderr).splitlines() if "trusted directory" in line]
        if said:  # a headless run refuses an untrusted folder
            return {"refused": re.sub(r"\x1b\[[0-9;]*m", "", said[0]).strip()}
        raise SystemExit(f"{case['name']}: no policy list in the CLI's output: {out.stdout[:500]}")
    section = lines[lines.index("### Normal Mode Policies") + 1:]
    rules = []
    for line in section:
        if line.startswith("###"):
            break
        m = _POLICY_LINE.match(line.strip())
        if m:
            rules.append({"decision": m.group(1).lower(), "toolName": m.group(2), "argsPattern": m.group(3),
                          "priority": float(m.group(4)), "source": m.group(5)})
    return rules


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", action="append", default=[])
    parser.add_argument("--defaults", action="store_true")
    parser.add_argument("--cli-rules", nargs="+", metavar="NAME")
    opts = parser.parse_args()
    if opts.cli_rules:
        by_name = {c["name"]: c for c in json.loads(CASES.read_text())["configs"]}
        old_rules = json.loads(CLI_RULES.read_text())["configs"] if CLI_RULES.is_file() else {}
        for name in opts.cli_rules:
            old_rules[name] = record_cli_rules(by_name[name])
            print(f"{name}: {len(old_rules[name])} rules listed by the CLI")
            CLI_RULES.write_text(json.dumps({"version": VERSION, "configs": old_rules}, indent=1) + "\n")
        return 0
    if opts.defaults:
        record_defaults()
        return 0
    cases = json.loads(CASES.read_text())["configs"]
    old = {c["name"]: c for c in json.loads(RECORDS.read_text())["configs"]} if RECORDS.is_file() else {}
    for case in cases:
        if opts.only and case["name"] not in opts.only:
            continue
        old[case["name"]] = record_case(case)
        print(f"{case['name']}: {len(case['calls'])} calls")
    order = [c["name"] for c in cases]
    records = [old[n] for n in order if n in old]
    RECORDS.write_text(json.dumps({"version": VERSION, "configs": records}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
