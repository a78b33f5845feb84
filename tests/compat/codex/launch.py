"""Record what Codex CLI's start flags do to its approval policy and sandbox (`--launch 'codex ...'`):
`codex FLAGS debug prompt-input hi` in a scratch HOME and project, the `layout` configs of
`launch-cases.json` (record.py's form: HOME and project files, `global_flags`), the permissions
paragraph kept as record.py keeps it; and for its `exec` configs, `codex GLOBAL exec FLAGS --json go`
with the stand-in model asking for each call (record.py's `record_exec`), what Codex did with it.
Run by hand; tests/compat/test_launch_records.py replays `launch-<version>.json`:

    .venv/bin/python tests/compat/codex/launch.py
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import record  # noqa: E402


def main() -> int:
    if os.environ.get(record.NS_FLAG) != "1":
        env = dict(os.environ, **{record.NS_FLAG: "1"})
        return subprocess.call(["unshare", "-rn", sys.executable, str(Path(__file__).resolve())], env=env)
    version = subprocess.run([str(record.CODEX), "--version"], capture_output=True, text=True).stdout.strip()
    number = version.removeprefix("codex-cli ")
    cases = json.loads((HERE / "launch-cases.json").read_text())["configs"]
    subprocess.run(["ip", "link", "set", "lo", "up"], check=False)  # the stand-in model is on loopback
    stand_in = record._StandIn()
    out = []
    for case in cases:
        if case["kind"] == "exec":  # `codex GLOBAL exec FLAGS --json go`, one session per call
            out.append(record.record_exec(case, stand_in))
            print(case["name"], [c["outcome"] for c in out[-1]["calls"]], file=sys.stderr)
            continue
        got = record.record_layout(case)
        out.append({k: got[k] for k in ("name", "rc", "error", "sandbox_mode", "approval_text") if k in got})
        print(case["name"], got.get("sandbox_mode"), (got.get("approval_text") or got.get("error", ""))[:60],
              file=sys.stderr)
    today = _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d")
    payload = {"version": number, "binary": version, "recorded": today,
               "command": "codex FLAGS debug prompt-input hi", "configs": out}
    (HERE / f"launch-{number}.json").write_text(json.dumps(payload, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
