"""Re-record what opencode answers for each layout case (not run by the test suite).

A case is a folder with `case.json` (`cwd` under the project, `env` with `$PROJECT`/`$HOME` standing
for the two trees, `agents` to describe, `calls` to try), a `project/` tree and an optional `home/`
tree. Usage: OPENCODE=/path/to/opencode python tests/compat/layouts/generate.py [CASE ...]
See ../fixtures/README.md ("Layouts") for how the records were made.
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


def expand(value: str, project: Path, home: Path) -> str:
    return value.replace("$PROJECT", str(project)).replace("$HOME", str(home))


def run(opencode: str, args: list[str], cwd: Path, env: dict[str, str]) -> tuple[int, str]:
    done = subprocess.run([opencode, *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=120, check=False)
    text = done.stdout if done.returncode == 0 else done.stdout + done.stderr
    return done.returncode, re.sub(r"\x1b\[[0-9;]*m", "", text)


def record(opencode: str, case: Path, scratch: Path, version: str) -> dict[str, object]:
    spec = json.loads((case / "case.json").read_text())
    project, home = scratch / "work" / case.name, scratch / "home"
    shutil.copytree(case / "project", project)
    if (case / "home").is_dir():
        shutil.copytree(case / "home", home)
    home.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(home), "NO_COLOR": "1",
           "OPENCODE_DISABLE_AUTOUPDATE": "1"}
    env.update({k: expand(v, project, home) for k, v in spec.get("env", {}).items()})
    cwd = project / spec.get("cwd", ".")

    def norm(text: str) -> str:
        return text.replace(str(project), "$PROJECT").replace(str(home), "$HOME")

    code, listing = run(opencode, ["agent", "list"], cwd, env)
    if code != 0:
        return {"opencode_version": version, "error": norm(listing).splitlines()[:3]}
    agents = [{"name": m.group(1), "mode": m.group(2)}
              for m in re.finditer(r"^(\S+) \((\w+)\)$", listing, re.MULTILINE)]
    details = {}
    for name in spec.get("agents", []):
        details[name] = json.loads(norm(run(opencode, ["debug", "agent", name], cwd, env)[1]))
    calls = []
    for call in spec.get("calls", []):
        params = json.loads(expand(json.dumps(call["params"]), project, home))
        code, out = run(opencode, ["debug", "agent", call["agent"], "--tool", call["tool"],
                                   "--params", json.dumps(params)], cwd, env)
        denied = code != 0 and "prevents you from using this specific tool call" in out
        calls.append({**call, "opencode": "denied" if denied else ("ran" if code == 0 else "failed")})
    return {"opencode_version": version, "agent_list": agents, "debug_agent": details, "calls": calls}


def main() -> int:
    opencode = os.environ.get("OPENCODE", "opencode")
    version = subprocess.run([opencode, "--version"], capture_output=True, text=True,
                             check=True).stdout.strip()
    wanted = set(sys.argv[1:])
    for case in sorted(p for p in HERE.iterdir() if (p / "case.json").is_file()):
        if wanted and case.name not in wanted:
            continue
        with tempfile.TemporaryDirectory() as tmp:
            data = record(opencode, case, Path(tmp), version)
        (case / f"opencode-{version}.json").write_text(json.dumps(data, indent=2) + "\n")
        print(f"recorded {case.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
