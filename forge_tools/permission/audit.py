"""The audit trail of the gate's decisions (`run --audit`, `run --format json`).

Each `GateDecision` the gate records becomes one JSON object (its own `to_json`, with the time in
ISO-8601 UTC and the tool and answering policy added); `AuditLog` appends those objects, one a line, to
a private file (created 0600).
"""

from __future__ import annotations

import _thread
import json
import os
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from forge_tools.errors import UsageError
from forge_tools.permission.gate import GateDecision


def now_iso(timestamp: float | None = None) -> str:
    """ISO-8601 UTC with milliseconds, e.g. 2026-11-30T08:30:00.123Z (without `datetime`, which costs
    `forge-tools hook` a twentieth of its start-up)."""
    moment = time.time() if timestamp is None else timestamp
    seconds = int(moment // 1)
    millis = min(int((moment - seconds) * 1000), 999)
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds)) + f".{millis:03d}Z"


def audit_record(decision: GateDecision, tool: str, policy: str) -> dict[str, Any]:
    """The one JSON form of a gate decision in an audit line and in `run`'s JSON `permission` list."""
    data = decision.to_json()
    data["time"] = now_iso(decision.time)
    data["tool"] = tool
    data["policy"] = policy
    return data


_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_APPEND | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)


class AuditLog:
    """Appends one JSON line per permission decision to a private file (created 0600).

    The file must be a regular file (a FIFO would block the open until someone reads it, a device
    takes the lines nowhere); opened without blocking, and one that refuses a line (`/proc/version`)
    stops the call with one `--audit` error instead of a decision left unrecorded.
    """

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._lock = _thread.allocate_lock()
        os.close(self._open())

    def _open(self) -> int:
        import stat

        try:
            fd = os.open(self.path, _FLAGS, 0o600)
        except OSError as exc:
            import errno

            reason = ("it is a pipe (FIFO) nobody reads; --audit FILE appends to a regular file"
                      if exc.errno == errno.ENXIO else exc.strerror or str(exc))
            raise UsageError(f"cannot open {str(self.path)!r} for appending: {reason}",
                             where="--audit") from None
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            os.close(fd)
            what = "a directory" if stat.S_ISDIR(mode) else "not a regular file (a device, pipe or socket)"
            raise UsageError(f"{str(self.path)!r} is {what}; --audit FILE appends to a regular file",
                             where="--audit")
        return fd

    def __call__(self, record: Mapping[str, Any]) -> None:
        line = json.dumps(dict(record), ensure_ascii=False, default=str) + "\n"
        with self._lock:
            fd = self._open()
            try:
                os.write(fd, line.encode("utf-8", "replace"))
            except OSError as exc:
                raise UsageError(f"cannot append to {str(self.path)!r}: {exc.strerror or exc}",
                                 where="--audit") from None
            finally:
                os.close(fd)
