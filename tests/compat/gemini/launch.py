"""Record what Gemini CLI 0.61's start flags do (`--launch 'gemini ...'`): `gemini -p '/policies list'
FLAGS` run headless under `unshare -rn` (loopback only) in a scratch HOME and a git project, trusted
(`~/.gemini/trustedFolders.json`) or not, with folder trust on. Kept per config: whether the CLI
started (it printed its policy list) or refused (its message), and the notices it printed about the
approval mode (`Approval mode overridden to "default" because the current folder is not trusted.`,
`YOLO mode is enabled. ...`). The run is cut off after 25 s (after the list the CLI asks the model,
which cannot be reached). tests/compat/test_launch_records.py replays `launch-<version>.json`:

    .venv/bin/python tests/compat/gemini/launch.py
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
GEMINI = Path(os.environ.get("GEMINI_BIN", "/work/agents/node_modules/.bin/gemini"))
NOTICES = ("Approval mode overridden", "YOLO mode is enabled", "Gemini CLI is not running in a trusted")
#: (name, trusted, flags after `-p '/policies list'`)
CONFIGS = [
    ("trusted", True, []), ("untrusted", False, []), ("untrusted-skip-trust", False, ["--skip-trust"]),
    ("untrusted-plan", False, ["--approval-mode", "plan"]),
    ("untrusted-skip-trust-plan", False, ["--skip-trust", "--approval-mode", "plan"]),
    ("trusted-yolo", True, ["-y"]), ("trusted-approval-yolo", True, ["--approval-mode", "yolo"]),
    ("trusted-plan", True, ["--approval-mode", "plan"]),
    ("trusted-auto-edit", True, ["--approval-mode", "auto_edit"]),
    ("untrusted-yolo-skip-trust", False, ["--yolo", "--skip-trust"]),
]


def run(trusted: bool, flags: list[str], scratch: Path) -> dict[str, object]:
    shutil.rmtree(scratch, ignore_errors=True)
    home, project = scratch / "home", scratch / "project"
    (home / ".gemini").mkdir(parents=True)
    project.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    trust_on = {"security": {"folderTrust": {"enabled": True}}}
    (home / ".gemini" / "settings.json").write_text(json.dumps(trust_on))
    if trusted:
        (home / ".gemini" / "trustedFolders.json").write_text(json.dumps({str(project): "TRUST_FOLDER"}))
    env = {"PATH": f"/usr/bin:/bin:{GEMINI.parent}", "HOME": str(home), "GEMINI_API_KEY": "placeholder",
           "NO_COLOR": "1"}
    try:
        proc = subprocess.run([str(GEMINI), "-p", "/policies list", *flags], capture_output=True, text=True,
                              env=env, cwd=project, timeout=25, stdin=subprocess.DEVNULL)
        out = proc.stdout + proc.stderr
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b"").decode() if isinstance(e.stdout, bytes) else str(e.stdout or "")
        out += (e.stderr or b"").decode() if isinstance(e.stderr, bytes) else str(e.stderr or "")
    lines = [ln.strip() for ln in out.splitlines()]
    notices = list(dict.fromkeys(ln for ln in lines if ln.startswith(NOTICES)))
    return {"started": "### Normal Mode Policies" in lines, "notices": notices}


def main() -> int:
    if os.environ.get("FT_GEMINI_LAUNCH_IN_NS") != "1":
        env = dict(os.environ, FT_GEMINI_LAUNCH_IN_NS="1")
        return subprocess.call(["unshare", "-rn", sys.executable, str(Path(__file__).resolve())], env=env)
    version = subprocess.run([str(GEMINI), "--version"], capture_output=True, text=True,
                             env={"PATH": f"/usr/bin:/bin:{GEMINI.parent}", "HOME": tempfile.mkdtemp()},
                             timeout=60).stdout.strip()
    records = []
    with tempfile.TemporaryDirectory(prefix="ft-gemini-launch-") as tmp:
        for name, trusted, flags in CONFIGS:
            got = run(trusted, flags, Path(tmp) / "s")
            records.append({"name": name, "trusted": trusted, "flags": flags, **got})
            print(name, got, file=sys.stderr, flush=True)
    payload = {"version": version, "recorded": _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d"),
               "command": "gemini -p '/policies list' FLAGS", "configs": records}
    (HERE / f"launch-{version}.json").write_text(json.dumps(payload, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
