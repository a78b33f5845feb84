"""bash: real subprocesses; tail truncation, spilling with bounded memory, timeouts, abort, groups."""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from forge_tools.tools.builtins import bash
from forge_tools.tools.contract import ToolContext
from forge_tools.tools.outputs import OutputStore
from forge_tools.tools.truncation import TruncationPolicy


def run(ctx: ToolContext, command: str, **extra: Any) -> Any:
    return bash.execute(bash.BashArgs(command=command, **extra), ctx)


def _gone(pid: int, within: float = 3.0) -> bool:
    end = time.monotonic() + within
    while time.monotonic() < end:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
        except OSError:
            return True
        if state == "Z":
            return True
        time.sleep(0.05)
    return False


def _running(pid: int) -> bool:
    """Alive and not a zombie: the process has not finished yet."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_output_stderr_and_exit_code(ctx: ToolContext) -> None:
    result = run(ctx, "echo out; echo err >&2; exit 3")
    assert result.output == "out\nerr\n"  # opencode says no exit code: it is in the metadata
    assert result.metadata["exitCode"] == 3 and result.metadata["truncated"] is False
    assert not result.is_error


def test_runs_in_project_root_and_workdir(ctx: ToolContext, project: Path) -> None:
    (project / "sub").mkdir()
    assert run(ctx, "pwd").output.strip() == str(project)
    assert run(ctx, "pwd", workdir="sub").output.strip() == str(project / "sub")
    missing = run(ctx, "pwd", workdir="nope")
    assert missing.is_error and "does not exist" in missing.output


def test_command_that_closes_stdout_is_still_awaited(ctx: ToolContext, project: Path) -> None:
    result = run(ctx, "echo early; exec >&- 2>&-; sleep 0.3; touch done.flag")
    assert result.output == "early\n" and (project / "done.flag").exists()
    timed = run(ctx, "exec >&- 2>&-; sleep 30", timeout=300)
    assert timed.metadata["timedOut"] is True


def test_no_output(ctx: ToolContext) -> None:
    assert run(ctx, "true").output == "(no output)"


def test_stdin_is_closed(ctx: ToolContext) -> None:
    assert run(ctx, "cat; echo done", timeout=5000).output.strip() == "done"


def test_line_limit_keeps_the_tail_and_saves_everything(ctx: ToolContext) -> None:
    result = run(ctx, "seq 1 5000")
    meta = result.metadata
    assert meta["truncated"] is True and meta["direction"] == "tail"
    assert meta["unit"] == "lines" and meta["removed"] == 3001
    assert result.output.rstrip().endswith("\n4999\n5000")
    assert "\n3001\n" not in result.output
    assert meta["outputPath"] in result.output
    assert Path(meta["outputPath"]).read_text() == "".join(f"{i}\n" for i in range(1, 5001))


def test_spills_past_the_byte_limit(ctx: ToolContext) -> None:
    ctx.truncation = TruncationPolicy(max_lines=50, max_bytes=1000)
    result = run(ctx, "seq 1 200000")
    meta = result.metadata
    expected = "".join(f"{i}\n" for i in range(1, 200001))
    assert meta["truncated"] is True and meta["bytes"] == len(expected)
    assert Path(meta["outputPath"]).read_text() == expected
    tail = result.output.split("\n\n", 2)[-1]
    assert tail.endswith("199999\n200000\n") and len(tail.encode()) <= 1000
    kept = tail.split("\n")
    assert len(kept) <= 50
    removed = meta["removed"]
    if meta["unit"] == "lines":
        assert removed == 200001 - len(kept)
    else:
        assert removed == len(expected) - len(tail.encode())


def test_capture_memory_stays_bounded(tmp_path: Path) -> None:
    store = OutputStore(tmp_path / "out")
    capture = bash._Capture(limit=50 * 1024, tail_keep=110 * 1024, store=store)
    chunk = (b"x" * 99 + b"\n") * 655  # 65,500 bytes
    peak = 0
    for _ in range(80):  # about 5 MB
        capture.add(chunk)
        peak = max(peak, len(capture.memory))
    capture.close()
    assert capture.file is not None and capture.file.path.stat().st_size == 80 * len(chunk)
    assert peak <= 110 * 1024


def test_capture_takes_only_the_read_part_of_a_reused_buffer(tmp_path: Path) -> None:
    capture = bash._Capture(limit=10, tail_keep=40, store=OutputStore(tmp_path / "out"))
    buffer = bytearray(b"\n" * 64)
    for text in (b"one\ntwo\n", b"three\n", b"four five six\n"):
        buffer[: len(text)] = text
        capture.add(buffer, len(text))
    capture.close()
    assert capture.total == 28 and capture.newlines == 4
    assert capture.file is not None and capture.file.path.read_bytes() == b"one\ntwo\nthree\nfour five six\n"


def test_five_megabytes_end_to_end(ctx: ToolContext) -> None:
    result = run(ctx, "head -c 5000000 /dev/zero | tr '\\0' 'a' | fold -w 100")
    meta = result.metadata
    assert meta["truncated"] is True and meta["bytes"] > 5000000
    assert Path(meta["outputPath"]).stat().st_size == meta["bytes"]
    assert len(result.output.encode()) < 60 * 1024


def test_non_utf8_preview_replaced_file_exact(ctx: ToolContext) -> None:
    ctx.truncation = TruncationPolicy(max_lines=2, max_bytes=1000)
    result = run(ctx, r"printf 'a\xffb\n'; seq 1 5; printf 'end\xfe\n'")
    assert "end\ufffd" in result.output
    raw = Path(result.metadata["outputPath"]).read_bytes()
    assert raw == b"a\xffb\n1\n2\n3\n4\n5\nend\xfe\n"


def test_timeout_kills_the_process_group(ctx: ToolContext) -> None:
    result = run(ctx, "sleep 30 & echo $!; wait", timeout=400)
    assert result.metadata["timedOut"] is True and result.metadata["timeoutSeconds"] == 0.4
    assert "<shell_metadata>\nshell tool terminated command after exceeding timeout 400 ms." in result.output
    child = int(result.output.split()[0])
    assert _gone(child)


def test_sigterm_ignored_then_killed(ctx: ToolContext, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bash, "KILL_GRACE_S", 0.3)
    result = run(ctx, "trap '' TERM; echo ready; while :; do sleep 0.05; done", timeout=300)
    assert result.metadata["timedOut"] is True and result.output.startswith("ready")


def test_context_timeout_overrides_argument(ctx: ToolContext) -> None:
    ctx.timeout = 0.3
    result = run(ctx, "sleep 30", timeout=600000)
    assert result.metadata["timedOut"] is True


def test_abort(ctx: ToolContext) -> None:
    timer = threading.Timer(0.3, ctx.abort.abort)
    timer.start()
    try:
        result = run(ctx, "echo started; sleep 30", timeout=60000)
    finally:
        timer.cancel()
    assert result.metadata["aborted"] is True and "aborted" in result.output
    assert result.output.startswith("started")


def test_background_process_holding_the_pipe_does_not_block(ctx: ToolContext) -> None:
    result = run(ctx, "sleep 20 & echo $!")
    pid = int(result.output.split()[0])
    try:
        # Returned while the background process (which holds the pipe) still runs: it was not waited for.
        assert _running(pid)
        assert result.metadata["exitCode"] == 0 and result.metadata["timedOut"] is False
    finally:
        os.kill(pid, signal.SIGKILL)


def test_progress_reports_bytes(ctx: ToolContext, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bash, "PROGRESS_INTERVAL_S", 0.0)
    seen: list[dict[str, Any]] = []
    ctx.on_metadata = lambda title, meta: seen.append(meta or {})
    run(ctx, "seq 1 1000")
    assert seen and all("bytes" in m for m in seen)


def test_subagent_hint(ctx: ToolContext) -> None:
    ctx.hint = "subagent"
    result = run(ctx, "seq 1 3000")
    assert result.metadata["hint"] == "subagent"


def test_empty_command_is_invalid() -> None:
    with pytest.raises(ValueError):
        bash.BashArgs(command="   ")


def test_permission_requests(reqs: Any, tmp_path: Path) -> None:
    assert reqs(bash.TOOL, command="ls && rm -rf x") == [("bash", ("ls", "rm -rf x"))]
    assert reqs(bash.TOOL, command="ls", workdir=str(tmp_path / "else")) == [
        ("external_directory", (f"{tmp_path}/else/*",)), ("bash", ("ls",))]
    assert reqs(bash.TOOL, command="ls", workdir="sub") == [("bash", ("ls",))]


def test_always_patterns(ctx: ToolContext) -> None:
    assert bash.TOOL.permission_requests is not None
    (req,) = bash.TOOL.permission_requests(bash.BashArgs(command="git status && npm run build"), ctx)
    assert req.always == ("git status *", "npm run build *")  # opencode 1.18.33's arity table


def test_path_arguments_outside_the_root(reqs: Any, project: Path, tmp_path: Path,
                                         isolated_env: dict[str, Path]) -> None:
    home = isolated_env["home"]
    assert reqs(bash.TOOL, command=f"cat {tmp_path}/x.txt && rm -rf ~/junk") == [
        ("external_directory", (f"{tmp_path}/*",)),
        ("external_directory", (f"{home}/*",)),
        ("bash", (f"cat {tmp_path}/x.txt", "rm -rf ~/junk")),
    ]
    up = reqs(bash.TOOL, command="sudo chmod 600 ../secret")
    assert up[0] == ("external_directory", (f"{tmp_path}/*",))
    assert reqs(bash.TOOL, command="cd /etc")[0] == ("external_directory", ("/etc/*",))
    inside = reqs(bash.TOOL, command="rm -rf build ./dist && cp a b")
    assert inside == [("bash", ("rm -rf build ./dist", "cp a b"))]
    # reading commands name paths too: a listing or a read outside the root is asked (issue 9)
    assert reqs(bash.TOOL, command="ls /etc")[0] == ("external_directory", ("/etc/*",))
    assert reqs(bash.TOOL, command="echo /etc") == [("bash", ("echo /etc",))]  # echo names no file


def test_redirect_files_outside_the_root(reqs: Any, project: Path, tmp_path: Path,
                                        isolated_env: dict[str, Path]) -> None:
    home = isolated_env["home"]
    assert reqs(bash.TOOL, command="echo 'alias ls=rm' >> ~/.bashrc")[0] == (
        "external_directory", (f"{home}/*",))
    assert reqs(bash.TOOL, command=f"wc -l < {tmp_path}/secret.txt")[0] == (
        "external_directory", (f"{tmp_path}/*",))
    assert reqs(bash.TOOL, command="make 2>/dev/null >out.log 2>&1") == [
        ("edit", ("out.log",)), ("bash", ("make",))]  # a written file is an edit (issue 9)
