"""Re-record what opencode answers for each layout case (not run by the test suite).

A case is a folder with `case.json` (`cwd` under the project, `env` with `$PROJECT`/`$HOME` standing
for the two trees, `agents` to describe, `calls` to try, `"git": false` for a project outside
git), a `project/` tree and an optional `home/` tree (or `"tree": "OTHER"`: another case's trees),
`"skills": true` to record `opencode debug skill` too, `"config": true` to record `opencode debug
config`, and `"outputs": true` to record each call's output text.
Usage: OPENCODE=/path/to/opencode python tests/compat/layouts/generate.py [CASE ...]
See ../fixtures/README.md ("Layouts") for how the records were made.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from opencode_run import agent_list, normalise, opencode_env, run, version  # noqa: E402


def expand(value: str, project: Path, home: Path) -> str:
    return value.replace("$PROJECT", str(project)).replace("$HOME", str(home))


def offline(opencode: str) -> tuple[str, list[str]]:
    """The command that runs opencode without network: `unshare -n opencode` where unshare exists."""
    return ("unshare", ["-n", opencode]) if shutil.which("unshare") else (opencode, [])


def record(opencode: str, case: Path, scratch: Path, opencode_version: str) -> dict[str, object]:
    spec = json.loads((case / "case.json").read_text())
    project, home = scratch / "work" / case.name, scratch / "home"
    trees = case.parent / spec["tree"] if "tree" in spec else case
    shutil.copytree(trees / "project", project)
    if (trees / "home").is_dir():
        shutil.copytree(trees / "home", home)
    home.mkdir(parents=True, exist_ok=True)
    if spec.get("git", True):  # `"git": false`: a project outside any git repo
        subprocess.run(["git", "init", "-q", str(project)], check=True)
    # no network (`unshare -n` where it exists) and no models.dev fetch: the bundled model list
    env = opencode_env(home, {"OPENCODE_DISABLE_MODELS_FETCH": "1",
                              **{k: expand(v, project, home) for k, v in spec.get("env", {}).items()}})
    cwd = project / spec.get("cwd", ".")

    program, prefix = offline(opencode)
    code, listing = run(program, [*prefix, "agent", "list"], cwd, env)
    if code != 0:
        return {"opencode_version": opencode_version,
                "error": normalise(listing, project, home).splitlines()[:3]}
    agents = agent_list(listing)
    details = {}
    for name in spec.get("agents", []):
        out = run(program, [*prefix, "debug", "agent", name], cwd, env)[1]
        details[name] = json.loads(normalise(out, project, home))
    config = None
    if spec.get("config"):
        code, out = run(program, [*prefix, "debug", "config"], cwd, env)
        config = json.loads(normalise(out, project, home)) if code == 0 else normalise(out, project, home)
    skills = None
    if spec.get("skills"):
        code, out = run(program, [*prefix, "debug", "skill"], cwd, env)
        skills = json.loads(normalise(out, project, home)) if code == 0 else normalise(out, project, home)
    calls = []
    for call in spec.get("calls", []):
        params = json.loads(expand(json.dumps(call["params"]), project, home))
        code, out = run(program, [*prefix, "debug", "agent", call["agent"], "--tool", call["tool"],
                                   "--params", json.dumps(params)], cwd, env)
        denied = code != 0 and "prevents you from using this specific tool call" in out
        entry = {**call, "opencode": "denied" if denied else ("ran" if code == 0 else "failed")}
        if spec.get("outputs"):
            entry["output"] = _output(normalise(out, project, home))
        calls.append(entry)
    found: dict[str, object] = {"opencode_version": opencode_version, "agent_list": agents,
                                "debug_agent": details, "calls": calls}
    if skills is not None:
        found["skills"] = skills
    if config is not None:
        found["config"] = config
    return found


def _output(text: str) -> str:
    """A call's output: the `output` of the result opencode prints, else its last lines (an error)."""
    start = text.find("{")
    try:
        result = json.loads(text[start:]) if start >= 0 else None
    except ValueError:
        result = None
    if isinstance(result, dict):
        inner = result.get("result", result)
        if isinstance(inner, dict) and "output" in inner:
            return str(inner["output"])
    return "\n".join(line for line in text.strip().splitlines()[-3:])


def main() -> int:
    opencode = os.environ.get("OPENCODE", "opencode")
    recorded_with = version(opencode)
    wanted = set(sys.argv[1:])
    for case in sorted(p for p in HERE.iterdir() if (p / "case.json").is_file()):
        if wanted and case.name not in wanted:
            continue
        with tempfile.TemporaryDirectory() as tmp:
            data = record(opencode, case, Path(tmp), recorded_with)
        (case / f"opencode-{recorded_with}.json").write_text(json.dumps(data, indent=2) + "\n")
        print(f"recorded {case.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
