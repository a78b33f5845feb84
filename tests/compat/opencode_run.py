"""Running opencode for the recorders (`fixtures/generate.py`, `layouts/generate.py`; neither is run
by the test suite): a scratch HOME, no colour, no auto-update, and its output with ANSI colour codes
removed and this machine's paths written as $PROJECT and $HOME."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_AGENT_LINE = re.compile(r"^(\S.*?) \((\w+)\)$", re.MULTILINE)  # a shown name may hold spaces


def opencode_env(home: Path, extra: dict[str, str] | None = None) -> dict[str, str]:
    """opencode's environment: PATH only from ours, and `home` as HOME."""
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(home), "NO_COLOR": "1",
           "OPENCODE_DISABLE_AUTOUPDATE": "1"}
    env.update(extra or {})
    return env


def run(opencode: str, args: list[str], cwd: Path, env: dict[str, str]) -> tuple[int, str]:
    """(exit status, stdout; stdout and stderr when it failed), colour codes removed."""
    done = subprocess.run([opencode, *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=900, check=False)
    text = done.stdout if done.returncode == 0 else done.stdout + done.stderr
    return done.returncode, _ANSI.sub("", text)


def version(opencode: str) -> str:
    return subprocess.run([opencode, "--version"], capture_output=True, text=True,
                          check=True).stdout.strip()


def normalise(text: str, project: Path, home: Path) -> str:
    """Machine-specific paths become $PROJECT and $HOME, so the records are stable."""
    return text.replace(str(project), "$PROJECT").replace(str(home), "$HOME")


def agent_list(listing: str) -> list[dict[str, str]]:
    """`opencode agent list` as [{"name", "mode"}], in its order."""
    return [{"name": m.group(1), "mode": m.group(2)} for m in _AGENT_LINE.finditer(listing)]
