"""Record Claude Code's answers under the start flags `launch-cases.json` gives (`--add-dir`,
`--dangerously-skip-permissions`, `--permission-mode manual|dontAsk|default`): record.py, unchanged,
run on that file (`CLAUDE_CASES`) into `launch-<version>.json`. Run by hand; the suite replays it
(tests/compat/test_launch_records.py, through forge-tools' launch grammar):

    .venv/bin/python tests/compat/claude/launch.py [--only NAME]
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

if __name__ == "__main__":
    cases = HERE / "launch-cases.json"
    version = json.loads(cases.read_text())["version"]
    env = dict(os.environ, CLAUDE_CASES=str(cases))
    out = HERE / f"launch-{version}.json"
    sys.exit(subprocess.call([sys.executable, str(HERE / "record.py"), "--out", str(out), *sys.argv[1:]],
                             env=env))
