"""Record what opencode itself does with each call of `cases.json` (not run by the test suite).

Usage: OPENCODE=/path/to/opencode python tests/compat/runtime/generate.py
Writes `opencode-VERSION.json` beside this file. See README.md here for what is recorded and how.

Each case's `config` is written as the `opencode.json` of a fresh scratch project (a git repo with
README.md, .env, sub/.env, secret/ and one canary file per `canary*.txt` a call names) beside a
scratch `outside/` folder (`$OUTSIDE`, holding seen.txt), with a scratch HOME. Each call is run with
`opencode debug agent build --tool T --params P` inside `unshare -n` (no network): opencode's debug
tool context refuses a call only when a pattern is denied and lets an `ask` through, so every call is
run twice: under the config (a refusal there is `deny`; otherwise it ran, and its effect on the
canary files is recorded) and, in a second scratch copy, under the same config with every `ask`
turned into `deny` (refused there but not under the config: `ask`; neither: `allow`); a case whose
config has no `ask` needs no second run.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from opencode_run import opencode_env  # noqa: E402

DENIED = "prevents you from using this specific tool call"
_CANARY = re.compile(r"canary\w*\.txt")


def asks_denied(value: Any) -> Any:
    """The config with every `ask` action turned into `deny` (the probe for `ask`)."""
    if isinstance(value, dict):
        return {k: asks_denied(v) for k, v in value.items()}
    return "deny" if value == "ask" else value


def expand(value: Any, project: Path, outside: Path, home: Path) -> Any:
    text = json.dumps(value)
    for name, path in (("$PROJECT", project), ("$OUTSIDE", outside), ("$HOME", home)):
        text = text.replace(name, str(path))
    return json.loads(text)


def make_project(project: Path, config: dict[str, Any], calls: list[dict[str, Any]]) -> None:
    project.mkdir(parents=True)
    (project / "opencode.json").write_text(json.dumps(config, indent=1))
    (project / "README.md").write_text("hello\n")
    (project / ".env").write_text("SECRET=1\n")
    (project / "sub").mkdir()
    (project / "sub" / ".env").write_text("SECRET=2\n")
    (project / "secret").mkdir()
    (project / "canary_cp.txt").write_text("copy me\n")
    for name in {m for call in calls for m in _CANARY.findall(json.dumps(call))}:
        (project / name).write_text("canary\n")
    subprocess.run(["git", "init", "-q", str(project)], check=True)


def run_call(opencode: str, call: dict[str, Any], project: Path, outside: Path, home: Path
             ) -> tuple[str, str]:
    """('denied' | 'ran' | 'failed' | 'timeout', opencode's output's last line)."""
    params = expand(call["params"], project, outside, home)
    args = ["unshare", "-n", opencode, "debug", "agent", "build", "--tool", call["tool"],
            "--params", json.dumps(params)]
    try:
        done = subprocess.run(args, cwd=project, env=opencode_env(home), capture_output=True, text=True,
                              timeout=300, check=False)
    except subprocess.TimeoutExpired:
        return "timeout", ""
    text = done.stdout + done.stderr
    outcome = "denied" if DENIED in text else ("ran" if done.returncode == 0 else "failed")
    last = next((line for line in reversed(text.strip().splitlines()) if line.strip()), "")
    return outcome, last[:200]


def record_case(opencode: str, case: dict[str, Any], scratch: Path) -> dict[str, Any]:
    outside, home = scratch / "outside", scratch / "home"
    for folder in (outside, home):
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
    homes = threading.local()  # one scratch HOME per worker: opencode's database allows one process

    def worker_home() -> Path:
        if not hasattr(homes, "path"):
            homes.path = Path(tempfile.mkdtemp(prefix="home-", dir=scratch))
        return homes.path
    (outside / "seen.txt").write_text("hello\n")
    project, probe = scratch / case["name"], scratch / f"{case['name']}-probe"
    make_project(project, case["config"], case["calls"])
    make_project(probe, asks_denied(case["config"]), case["calls"])
    probing = asks_denied(case["config"]) != case["config"]

    def one(call: dict[str, Any]) -> dict[str, Any]:
        canaries = sorted(set(_CANARY.findall(json.dumps(call))))
        own_home = worker_home()
        first, said = run_call(opencode, call, project, outside, own_home)
        probed = probing and first != "denied"
        second = run_call(opencode, call, probe, outside, own_home)[0] if probed else ""
        action = "deny" if first == "denied" else ("ask" if second == "denied" else "allow")
        entry: dict[str, Any] = {**call, "opencode": action, "outcome": first}
        if canaries:
            entry["canaries_left"] = [name for name in canaries if (project / name).exists()]
        if first == "failed":
            entry["failure"] = said.replace(str(project), "$PROJECT").replace(str(outside), "$OUTSIDE")
        print(f"  {call['tool']} {json.dumps(call['params'])[:70]} -> {action} ({first})", flush=True)
        return entry

    # each call touches only its own canary, so a few run at once (opencode takes ~20 s to start)
    with ThreadPoolExecutor(max_workers=3) as pool:
        records = list(pool.map(one, case["calls"]))
    return {"name": case["name"], "config": case["config"], "calls": records}


def main() -> int:
    opencode = os.environ.get("OPENCODE", "opencode")
    cases = json.loads((HERE / "cases.json").read_text())["cases"]
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "home").mkdir()
        recorded_with = subprocess.run(["unshare", "-n", opencode, "--version"], capture_output=True,
                                       text=True, check=True, env=opencode_env(Path(tmp) / "home"),
                                       cwd=tmp).stdout.strip()
        for case in cases:
            print(f"recording {case['name']}", flush=True)
            out.append(record_case(opencode, case, Path(tmp)))
    data = {"opencode_version": recorded_with, "cases": out}
    (HERE / f"opencode-{recorded_with}.json").write_text(json.dumps(data, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
