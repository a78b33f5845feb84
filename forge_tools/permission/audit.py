"""The audit trail of the gate's decisions (`run --audit`, `run --format json`).

Each `GateDecision` the gate records becomes one JSON object (its own `to_json`, with the time in
ISO-8601 UTC and the tool and answering policy added); `AuditLog` appends those objects, one a line, to
a private file (created 0600).
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from forge_tools.errors import UsageError
from forge_tools.permission.gate import GateDecision


def now_iso(timestamp: float | None = None) -> str:
    """ISO-8601 UTC with milliseconds, e.g. 2026-11-30T08:30:00.123Z."""
    moment = datetime.now(UTC) if timestamp is None else datetime.fromtimestamp(timestamp, UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def audit_record(decision: GateDecision, tool: str, policy: str) -> dict[str, Any]:
    """The one JSON form of a gate decision in an audit line and in `run`'s JSON `permission` list."""
    data = decision.to_json()
    data["time"] = now_iso(decision.time)
    data["tool"] = tool
    data["policy"] = policy
    return data


class AuditLog:
    """Appends one JSON line per permission decision to a private file (created 0600)."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        try:
            fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        except OSError as exc:
            raise UsageError(
                f"cannot open {str(self.path)!r} for appending: {exc.strerror or exc}", where="--audit"
            ) from None
        os.close(fd)

    def __call__(self, record: Mapping[str, Any]) -> None:
        line = json.dumps(dict(record), ensure_ascii=False, default=str) + "\n"
        with self._lock:
            fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
            try:
                os.write(fd, line.encode("utf-8", "replace"))
            finally:
                os.close(fd)
