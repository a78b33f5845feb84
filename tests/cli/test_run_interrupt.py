"""A second Ctrl-C during `run bash` ends the command's whole process group at once (issue 9), even when
the command ignores SIGTERM, and the CLI exits 130 with nothing of the command left running."""

from __future__ import annotations

import json
import os
import select
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = [
    pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash"),
    pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals and process groups"),
]

WAIT_S = 30.0  # generous waits for a loaded machine; nothing here asserts how long anything took


def _alive(pid: int) -> bool:
    """Running (a zombie waiting to be reaped counts as gone: it runs nothing)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return True
    return state not in ("Z", "X")


def _describe(pid: int) -> str:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return f"{pid} gone"
    return f"{pid} {stat.split(')')[1].split()[0]} {cmd[:60]!r}"


def _wait_for(predicate, what: str) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + WAIT_S
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up waiting for {what}")
        time.sleep(0.05)


def _read_stderr_until(proc: subprocess.Popen[bytes], needle: bytes) -> bytes:
    assert proc.stderr is not None
    seen = b""
    deadline = time.monotonic() + WAIT_S
    while needle not in seen:
        exited = proc.poll() is not None  # read what it wrote before exiting, then decide
        ready, _, _ = select.select([proc.stderr], [], [], 0.1)
        chunk = os.read(proc.stderr.fileno(), 4096) if ready else b""
        seen += chunk
        if needle in seen:
            break
        if time.monotonic() > deadline or (exited and not chunk):
            raise AssertionError(f"no {needle!r} on stderr; got {seen!r}")
    return seen


def _marked(marker: str) -> list[int]:
    """The host pids whose command line holds `marker` (inside the sandbox `$$` is a namespace pid)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if marker.encode() in (entry / "cmdline").read_bytes() and _alive(int(entry.name)):
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def _start(project: Path, tmp_path: Path, command: str, sandbox: str = "off") -> subprocess.Popen[bytes]:
    env = dict(os.environ, FORGE_DATA_DIR=str(tmp_path / "data"), PYTHONUNBUFFERED="1")
    return subprocess.Popen(
        [sys.executable, "-m", "forge_tools", "run", "bash", "--yes", f"--sandbox={sandbox}", "--args",
         json.dumps({"command": command})],
        cwd=project, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )


def _sandbox_modes() -> list[object]:
    from forge_tools.tools.sandbox import availability

    why_not = availability()
    return ["off", pytest.param("require", marks=pytest.mark.skipif(why_not is not None,
                                                                     reason=f"no sandbox: {why_not}"))]


@pytest.mark.parametrize("sandbox", _sandbox_modes())
@pytest.mark.parametrize("ignore_term", [True, False], ids=["ignores-SIGTERM", "default-SIGTERM"])
@pytest.mark.parametrize("presses", [1, 20], ids=["twice", "burst"])
def test_second_ctrl_c_kills_the_whole_group_and_exits_130(
    project: Path, tmp_path: Path, ignore_term: bool, sandbox: str, presses: int
) -> None:
    """`burst`: Ctrl-C is counted while the tool runs, never raised inside the loop's own waiting (one
    raised half-way through a queue's lock once ended `run` with "release unlocked lock", exit 1)."""
    pids = tmp_path / "pids"
    marker = f"marker-{os.getpid()}-{tmp_path.name}"
    trap = "trap '' TERM; " if ignore_term else ""
    # the shell, a background child and a foreground child; each writes its pid
    command = (f": {marker}; {trap}echo $$ > {pids}.shell; (sleep 300; echo escaped > {tmp_path}/escaped) & "
               f"echo $! > {pids}.child; while :; do sleep 0.2; done")
    proc = _start(project, tmp_path, command, sandbox)
    try:
        _wait_for(lambda: Path(f"{pids}.child").is_file() and Path(f"{pids}.child").read_text().strip(),
                  "the command to start")
        shell_pid = int(Path(f"{pids}.shell").read_text())
        child_pid = int(Path(f"{pids}.child").read_text())
        if sandbox != "off":
            shell_pid, child_pid = [*_marked(marker), 0, 0][:2]  # host pids, not the namespace's
            assert shell_pid and child_pid
        proc.send_signal(signal.SIGINT)
        seen = _read_stderr_until(proc, b"interrupting the tool")
        if ignore_term:
            assert _alive(shell_pid)  # SIGTERM alone does not stop it: the second Ctrl-C must
        for _ in range(presses):  # without ignoring SIGTERM the first Ctrl-C may already have ended it
            if proc.poll() is not None:
                break
            proc.send_signal(signal.SIGINT)
        proc.wait(timeout=WAIT_S)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.stderr is not None
    err = (seen + proc.stderr.read()).decode(errors="replace")
    assert proc.returncode == 130 and "internal error" not in err, err
    _wait_for(lambda: not _alive(shell_pid) and not _alive(child_pid) and not _marked(marker),
              f"the process group to be gone ({_describe(shell_pid)}; {_describe(child_pid)}); stderr: {err}")
    assert not (tmp_path / "escaped").exists()


def test_force_kills_a_group_that_ignores_sigterm_in_process(tmp_path: Path) -> None:
    """The library seam: `AbortSignal.force()` from another thread kills the running command's group."""
    import threading

    from forge_tools.tools.builtins.bash import TOOL, BashArgs
    from forge_tools.tools.contract import ToolContext

    pid_file = tmp_path / "pid"
    ctx = ToolContext(project_root=tmp_path)
    args = BashArgs(command=f"trap '' TERM; echo $$ > {pid_file}; while :; do sleep 0.2; done")
    results: list[object] = []
    worker = threading.Thread(target=lambda: results.append(TOOL.execute(args, ctx)))
    worker.start()
    _wait_for(lambda: pid_file.is_file() and pid_file.read_text().strip(), "the command to start")
    pid = int(pid_file.read_text())
    ctx.abort.force("test")
    worker.join(WAIT_S)
    assert not worker.is_alive()
    _wait_for(lambda: not _alive(pid), "the shell to be gone")
    result = results[0]
    assert getattr(result, "metadata", {}).get("aborted") is True

