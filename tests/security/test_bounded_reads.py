"""Reads are bounded (issue 22): `run --args` and `--audit` take regular files (or stdin when asked)
of a documented size (config.files.MAX_BYTES, docs/limits.md) and give one clear error otherwise,
never hanging on a FIFO or exhausting memory on a device; `read` keeps memory bounded however long a
line is. The CLI runs as a real process (a hang is a timeout, not a stuck suite)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tracemalloc
from pathlib import Path

import pytest

from forge_tools.config.files import MAX_BYTES


def forge(*args: str, stdin: object = subprocess.DEVNULL, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "forge_tools", *args], stdin=stdin, cwd=cwd,  # type: ignore[call-overload]
                          capture_output=True, text=True, timeout=60)


def one_error_line(proc: subprocess.CompletedProcess[str], *words: str) -> None:
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("forge-tools: error: "), proc.stderr
    assert "internal error" not in proc.stderr and "MemoryError" not in proc.stderr
    for word in words:
        assert word in lines[0], lines[0]


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "fifo"
    os.mkfifo(path)
    return path


@pytest.mark.parametrize("source", ["/dev/zero", "/dev/urandom", "fifo"])
def test_args_from_a_device_or_fifo_is_one_error(project: Path, fifo: Path, source: str) -> None:
    path = str(fifo) if source == "fifo" else source
    proc = forge("run", "bash", "--args", f"@{path}", cwd=project)
    one_error_line(proc, "--args", path, "not a regular file")


def test_args_from_a_huge_file_is_one_error(project: Path, tmp_path: Path) -> None:
    big = tmp_path / "big.json"
    with big.open("wb") as handle:
        handle.truncate(MAX_BYTES + 1)  # sparse: costs no disk
    proc = forge("run", "bash", "--args", f"@{big}", cwd=project)
    one_error_line(proc, "--args", "larger than 16 MiB")


def test_args_from_endless_stdin_is_one_error(project: Path) -> None:
    with open("/dev/zero", "rb") as endless:
        proc = forge("run", "bash", "--args", "-", stdin=endless, cwd=project)
    one_error_line(proc, "--args - (stdin)", "larger than 16 MiB")


@pytest.mark.parametrize("target", ["fifo", "/proc/version", "/dev/null", "dir"])
def test_audit_to_something_not_a_file_is_one_error_and_nothing_runs(project: Path, fifo: Path,
                                                                       tmp_path: Path, target: str) -> None:
    path = {"fifo": str(fifo), "dir": str(tmp_path)}.get(target, target)
    (project / "forge.json").write_text(json.dumps({"permission": {"bash": "allow"}}))
    canary = project / "canary"
    proc = forge("run", "bash", "--args", json.dumps({"command": f"touch {canary}"}), "--audit", path,
                 cwd=project)
    one_error_line(proc, "--audit", path)
    assert not canary.exists()


def test_read_of_one_huge_line_keeps_memory_bounded(project: Path) -> None:
    from forge_tools.tools.builtins.read import MAX_LINE_CHARS, ReadArgs, execute
    from forge_tools.tools.context import ToolContext

    size = 32 * 1024 * 1024
    big = project / "one-line.txt"
    with big.open("wb") as handle:
        handle.write(b"x" * size + b"\nsecond line\n")
    ctx = ToolContext(project_root=project)
    tracemalloc.start()
    try:
        result = execute(ReadArgs(filePath=str(big)), ctx)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert f"1: {'x' * MAX_LINE_CHARS}... (line truncated to {MAX_LINE_CHARS} chars)" in result.output
    assert "2: second line" in result.output and "(End of file - total 2 lines)" in result.output
    assert peak < 2 * 1024 * 1024, f"peak {peak} bytes for a {size}-byte line"
