"""Servers that do not start, crash, start slowly or never answer (issue 18), against real processes:
`sleep` standing in for a server that never answers, and the SDK server in mcp_trouble_server.py.

Bounds here are generous on purpose: they prove "did not wait for the whole hang" (a 100 s sleep, a
20 s start), never a speed.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

TROUBLE = Path(__file__).with_name("mcp_trouble_server.py")
SRC = Path(__file__).resolve().parents[2]


def write_config(project: Path, config: dict[str, object], name: str = "opencode.json") -> None:
    (project / name).write_text(json.dumps(config), encoding="utf-8")


def trouble(*args: str, **extra: object) -> dict[str, object]:
    return {"type": "local", "command": [sys.executable, str(TROUBLE), *args], **extra}


def never_answers(log: Path) -> dict[str, object]:
    """The issue's `["sleep", "100"]` server, logging each start (its pid) first."""
    return {"type": "local", "command": ["sh", "-c", f'echo $$ >> "{log}"; exec sleep 100'], "timeout": 2000}


def lines(path: Path) -> list[str]:
    return path.read_text().split() if path.exists() else []


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie of ours counts as gone
        done, _status = os.waitpid(pid, os.WNOHANG)
        return done == 0
    except ChildProcessError:
        return True


def gone_within(pid: int, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not alive(pid):
            return True
        time.sleep(0.1)
    return not alive(pid)


def problems(cli, *extra: str) -> list[str]:
    code, out, err = cli("layers", "--format", "json", *extra)
    assert code == 0, err
    return [p["text"] for p in json.loads(out)["problems"]]


# -- one unresponsive server -------------------------------------------------------------------------


def test_a_builtin_question_starts_no_server(project: Path, cli, tmp_path: Path) -> None:
    log = tmp_path / "starts.log"
    write_config(project, {"mcp": {"slow": never_answers(log)}})
    began = time.monotonic()
    code, out, err = cli("explain", "bash")
    assert code == 0, err
    assert "bash: VISIBLE" in out and "MCP server slow not started" in out
    code, out, err = cli("run", "bash", "--args", '{"command": "echo hi", "description": "say hi"}', "--yes")
    assert code == 0, err
    assert out.strip() == "hi"
    assert time.monotonic() - began < 50  # the start limit alone would be 60 s
    assert lines(log) == []


def test_a_failed_server_is_waited_for_once_and_then_remembered(project: Path, cli, tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    log = tmp_path / "starts.log"
    write_config(project, {"mcp": {"slow": never_answers(log)}})
    monkeypatch.setenv("FORGE_MCP_START_TIMEOUT", "1")
    began = time.monotonic()
    [first] = problems(cli)
    assert time.monotonic() - began < 50  # the server sleeps 100 s
    assert "mcp.slow" in first and "connecting timed out after 1 s" in first
    [pid] = lines(log)
    assert gone_within(int(pid), 10)
    # the next commands do not wait again: the failure (with its error) is shown each time
    for _ in range(2):
        [again] = problems(cli)
        assert "connecting timed out after 1 s" in again and "not tried again" in again
        assert "FORGE_MCP_REFRESH=1" in again
    assert len(lines(log)) == 1
    monkeypatch.setenv("FORGE_MCP_REFRESH", "1")
    problems(cli)
    assert len(lines(log)) == 2
    # the failure lives in the private listing cache
    cache = tmp_path / "data" / "mcp-tools"
    assert oct(cache.stat().st_mode & 0o777) == "0o700"
    [entry] = list(cache.iterdir())
    assert "connecting timed out" in json.loads(entry.read_text())["failed"]


def test_no_mcp_skips_every_server(project: Path, cli, tmp_path: Path) -> None:
    log = tmp_path / "starts.log"
    write_config(project, {"mcp": {"slow": never_answers(log)}})
    code, out, err = cli("layers", "--format", "json", "--no-mcp")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["problems"] == [] and any("--no-mcp" in n and "slow" in n for n in doc["notes"])
    assert lines(log) == []
    code, _out, err = cli("run", "slow_x", "--no-mcp")
    assert code == 1 and "unknown tool 'slow_x': MCP server mcp.slow was not started (--no-mcp)" in err
    assert lines(log) == []


def test_a_question_about_one_server_starts_only_that_one(project: Path, cli, tmp_path: Path) -> None:
    log = tmp_path / "starts.log"
    write_config(project, {"mcp": {"slow": never_answers(log), "good": trouble("serve")}})
    code, out, err = cli("run", "good_ping")
    assert code == 0, err
    assert out.strip() == "pong"
    assert lines(log) == []


# -- a crashed server ----------------------------------------------------------------------------------


def test_a_crashed_servers_stderr_is_shown(project: Path, cli) -> None:
    write_config(project, {"mcp": {"db": trouble("crash")}})
    [problem] = problems(cli)
    assert "mcp.db" in problem
    assert "server stderr:" in problem and "fatal: cannot open database 'missing.db'" in problem


# -- timeouts of a call ------------------------------------------------------------------------------


def test_run_timeout_covers_connecting(project: Path, cli, tmp_path: Path) -> None:
    delay = tmp_path / "delay"
    delay.write_text("0")
    write_config(project, {"mcp": {"late": trouble("start-delay", str(delay))}})
    code, out, err = cli("run", "late_ping")  # lists (now cached) and calls
    assert code == 0 and out.strip() == "pong", err
    delay.write_text("20")
    began = time.monotonic()
    code, out, err = cli("run", "late_ping", "--timeout", "2")
    assert time.monotonic() - began < 15  # the server takes 20 s to start
    assert code == 1 and "pong" not in out
    assert "connecting timed out after 2 s" in err and "--timeout" in err
    # with nothing cached, the listing's start is bounded by --timeout too
    began = time.monotonic()
    code, _out, err = cli("run", "late_ping", "--timeout", "2", "--format", "json")
    assert time.monotonic() - began < 15


def test_a_listing_start_bounded_by_run_timeout(project: Path, cli, tmp_path: Path) -> None:
    delay = tmp_path / "delay"
    delay.write_text("20")
    write_config(project, {"mcp": {"late": trouble("start-delay", str(delay))}})
    began = time.monotonic()
    code, _out, err = cli("run", "late_ping", "--timeout", "2")
    assert time.monotonic() - began < 15
    # the unknown tool says why: its server could not be listed in time
    assert code == 1 and "unknown tool 'late_ping': MCP server mcp.late: connecting timed out after 2 s " \
        "(the run's --timeout)" in err


def test_a_call_the_server_never_answers_ends_at_its_timeout(project: Path, cli) -> None:
    write_config(project, {"mcp": {"t": trouble("serve", timeout=1500)}})
    began = time.monotonic()
    code, out, err = cli("run", "t_hang")
    assert time.monotonic() - began < 30
    assert code == 1, (out, err)
    assert "calling the tool timed out after 1500 ms" in out + err and "mcp.t" in out + err
    code, out, err = cli("run", "t_hang", "--timeout", "8")
    assert code == 1 and "calling the tool timed out after 8 s" in out + err


def test_a_big_result_is_truncated_with_the_whole_in_its_file(project: Path, cli) -> None:
    """24 MB in one JSON-RPC line, read by forge-tools' own stdio transport (`sources/mcp_stdio.py`; the
    SDK's reader was quadratic in a line's size, so 4 MB was the most a test could afford). The issue's
    100 MB is `bench/bench_mcp_result.py`'s."""
    mb = 24
    write_config(project, {"mcp": {"t": trouble("serve", timeout=300000)}})
    code, out, err = cli("run", "t_flood", "--args", json.dumps({"mb": mb}), "--format", "json")
    assert code == 0, err
    doc = json.loads(out)
    meta = doc["result"]["metadata"]
    assert meta["truncated"] is True and len(doc["result"]["output"]) < 100_000
    full = Path(meta["outputPath"])
    assert full.stat().st_size >= mb * 1024 * 1024 - 200
    with full.open("rb") as handle:
        handle.seek(-200, os.SEEK_END)
        last = handle.read().decode().splitlines()[-1]
    assert last.startswith(f"{mb * 1024 * 1024 // 100 - 1:08d} ")


# -- progress on a terminal ----------------------------------------------------------------------------


def _on_a_terminal(project: Path, *args: str, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    """Run forge-tools with stderr on a pseudo-terminal: (exit code, stdout, what the terminal got)."""
    import pty
    import select

    leader, follower = pty.openpty()
    full_env = {**os.environ, "PYTHONPATH": str(SRC), "TERM": "xterm", **(env or {})}
    proc = subprocess.Popen([sys.executable, "-m", "forge_tools", *args], cwd=project, env=full_env,
                            stdout=subprocess.PIPE, stderr=follower, stdin=subprocess.DEVNULL)
    os.close(follower)
    seen = b""
    try:
        while True:
            ready, _, _ = select.select([leader], [], [], 0.2)
            if ready:
                try:
                    chunk = os.read(leader, 65536)
                except OSError:
                    break
                if not chunk:
                    break
                seen += chunk
            elif proc.poll() is not None:
                break
        out = proc.stdout.read().decode() if proc.stdout else ""
        proc.wait(60)
    finally:
        os.close(leader)
        if proc.poll() is None:
            proc.kill()
    return proc.returncode, out, seen.decode(errors="replace")


def test_progress_is_shown_on_a_terminal_and_never_in_json(project: Path, tmp_path: Path) -> None:
    delay = tmp_path / "delay"
    delay.write_text("3")
    write_config(project, {"mcp": {"late": trouble("start-delay", str(delay))}})
    code, _out, terminal = _on_a_terminal(project, "layers", "--format", "json")
    assert code == 0
    assert "listing the tools" not in terminal
    code, out, terminal = _on_a_terminal(project, "layers", env={"FORGE_MCP_REFRESH": "1"})
    assert code == 0 and "late_ping" in out
    assert "listing the tools of MCP server late" in terminal
    assert "listing the tools" not in out  # stdout is a pipe: nothing of the status reaches it
    code, out, terminal = _on_a_terminal(project, "check", "--load-code", "--format", "text",
                                         env={"FORGE_MCP_REFRESH": "1"})
    assert "listing the tools of MCP server late" in terminal
    code, out, terminal = _on_a_terminal(project, "check", "--load-code", "--format", "json",
                                         env={"FORGE_MCP_REFRESH": "1"})
    assert "listing the tools" not in terminal and json.loads(out)["findings"] is not None


# -- SIGTERM while a server starts --------------------------------------------------------------------


@pytest.mark.parametrize(("sig", "exit_code"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_sigterm_while_a_server_starts_ends_the_server(project: Path, tmp_path: Path, sig: int,
                                                       exit_code: int) -> None:
    delay = tmp_path / "delay"
    delay.write_text("60")
    pids = tmp_path / "pids"
    write_config(project, {"mcp": {"late": trouble("start-delay", str(delay),
                                                   environment={"TROUBLE_PIDS": str(pids)})}})
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    proc = subprocess.Popen([sys.executable, "-m", "forge_tools", "layers"], cwd=project, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while not lines(pids) and time.monotonic() < deadline:
            time.sleep(0.1)
        [pid] = lines(pids)
        time.sleep(0.5)
        proc.send_signal(sig)
        _out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == exit_code, err
    assert gone_within(int(pid), 10), "the MCP server outlived forge-tools"


# -- check --load-code ---------------------------------------------------------------------------------


def test_an_outage_under_check_is_ft011_which_can_be_ignored(project: Path, cli) -> None:
    write_config(project, {"mcp": {"db": trouble("crash")}})
    code, out, _err = cli("check", "--load-code", "--format", "json")
    findings = json.loads(out)["findings"]
    [outage] = [f for f in findings if f["code"] == "FT011"]
    assert outage["level"] == "warning" and "fatal: cannot open database" in outage["message"]
    assert not any(f["code"] == "FT008" for f in findings)
    assert code == 0  # a warning: fails only under --strict
    assert cli("check", "--load-code", "--strict")[0] == 1
    code, out, _err = cli("check", "--load-code", "--strict", "--ignore", "FT011", "--format", "json")
    assert code == 0 and not any(f["code"] == "FT011" for f in json.loads(out)["findings"])


def test_an_outage_can_be_suppressed_inline(project: Path, cli) -> None:
    command = json.dumps([sys.executable, str(TROUBLE), "crash"])
    (project / "opencode.jsonc").write_text(
        '{\n  "mcp": {\n'
        f'    "db": {{"type": "local", "command": {command}}}  // forge-tools: ignore FT011 -- flaky in CI\n'
        "  }\n}\n", encoding="utf-8")
    code, out, _err = cli("check", "--load-code", "--strict", "--format", "json")
    doc = json.loads(out)
    assert code == 0, doc
    assert not any(f["code"] in ("FT011", "FT114") for f in doc["findings"])


def test_ft011_is_documented(cli) -> None:
    code, out, _err = cli("rule", "FT011")
    assert code == 0 and "MCP server" in out and "warning" in out


# -- the library ---------------------------------------------------------------------------------------


def test_the_library_says_why_an_mcp_tool_is_unknown_without_load_code(project: Path, tmp_path: Path) -> None:
    from forge_tools.api import tool_visibility
    from forge_tools.errors import UnknownNameError

    log = tmp_path / "starts.log"
    write_config(project, {"mcp": {"slow": never_answers(log)}})
    with pytest.raises(UnknownNameError) as caught:
        tool_visibility(project, "slow_query")
    text = str(caught.value)
    assert text.startswith("unknown tool 'slow_query': ")
    assert "mcp.slow" in text and "load_code=True" in text
    assert tool_visibility(project, "bash").visible  # a builtin needs no server
    assert lines(log) == []
