"""Issue 21: the sandbox bounds what a command does, not only what it is called.

Differential: every case is a command line the gate lets through (it asks and `--yes` approves), so
the sandbox is what stands between it and the file. Each case runs twice through `forge-tools run
bash`: with `--no-sandbox` it must take effect (the canary changes, the secret is printed, the
connection is made; a case with no effect here would prove nothing), and with `--sandbox=require` it
must not. The rules: `"rm *": "deny"` for bash, `edit` denied on the canary, `read` denied on `.env`,
webfetch denied (so no network).
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from forge_tools.tools.sandbox import availability

CLI = Callable[..., tuple[int, str, str]]
CANARY = "data/canary.txt"
KEEP = "keep\n"
SECRET = "SECRET-TOKEN-21"

WHY_NOT = availability()
pytestmark = pytest.mark.skipif(WHY_NOT is not None, reason=f"bubblewrap cannot run here: {WHY_NOT}")

RULES = {
    "bash": {"*": "ask", "rm *": "deny"},
    "edit": {"*": "allow", CANARY: "deny"},
    "read": {"*": "allow", ".env": "deny"},
    "webfetch": "deny",
}

# Each line changes or removes the canary under plain bash, and names it in no way the gate denies.
EFFECTS = {
    "mv": f"mv {CANARY} data/moved",
    "mv the parent directory": "mv data elsewhere",
    "unlink": f"unlink {CANARY}",
    "shred -u": f"shred -u {CANARY}",
    "a Makefile": f"printf 'all:\\n\\trm -f {CANARY}\\n' > data/mk && make -s -f data/mk",
    "a script written in the same command": f"echo 'rm -f {CANARY}' > data/s.sh && bash data/s.sh",
    "python3 -c": f"python3 -c \"import os; os.remove('{CANARY}')\"",
    "perl -e": f"perl -e 'unlink \"{CANARY}\" or die'",
    "find -delete": "find data -name canary.txt -delete",
    "gdb -ex shell": f"gdb -batch -ex 'shell rm -f {CANARY}'",
    "cp /dev/null": f"cp /dev/null {CANARY}",
    "echo x > canary": f"c={CANARY}; echo x > $c",
    # names through a variable, so the gate (which makes a linking line's named targets denied edits)
    # asks instead of denying, and the sandbox is what is tested
    "a hard link": f"c={CANARY}; ln $c data/h && echo x > data/h",
    "a symlink swap": f"c={CANARY}; echo x > data/other && ln -sfn other $c",
}
NEEDS = {"a Makefile": "make", "perl -e": "perl", "gdb -ex shell": "gdb", "shred -u": "shred"}

READS = {
    "cat": "cat .env",
    "python3 -c": "python3 -c \"print(open('.env').read())\"",
    "grep": "grep -r SECRET .env",
    "cp to an allowed place": "cp .env data/copy; cat data/copy",
}


@pytest.fixture
def sandboxed(project: Path, cli: CLI) -> Callable[[str, str, dict[str, object] | None], dict[str, object]]:
    """`run bash` of a command in a fresh copy of the scenario; returns the run's JSON."""
    def run(command: str, sandbox: str, rules: dict[str, object] | None = None) -> dict[str, object]:
        for leftover in ("data", "elsewhere"):  # what an earlier run moved, linked or copied
            if (project / leftover).is_dir():
                shutil.rmtree(project / leftover)
        (project / "data").mkdir()
        (project / CANARY).write_text(KEEP)
        (project / ".env").write_text(SECRET + "\n")
        (project / "opencode.json").write_text(json.dumps({"permission": rules or RULES}))
        code, out, err = cli("run", "bash", "--yes", "--format", "json", f"--sandbox={sandbox}",
                             "--args", json.dumps({"command": command}))
        data = json.loads(out)
        assert code in (0, 1), err  # the tool ran: the gate did not refuse the call
        assert all(d["action"] != "deny" for d in data["permission"]), data["permission"]
        return dict(data)

    return run


def _canary_intact(project: Path) -> bool:
    path = project / CANARY
    return path.is_file() and not path.is_symlink() and path.read_text() == KEEP


@pytest.mark.parametrize("case", list(EFFECTS), ids=list(EFFECTS))
def test_no_way_of_changing_the_canary_takes_effect(case: str, project: Path, sandboxed) -> None:  # type: ignore[no-untyped-def]
    if case in NEEDS and shutil.which(NEEDS[case]) is None:
        pytest.skip(f"{NEEDS[case]} is not installed (.ci/run installs it)")
    unsandboxed = sandboxed(EFFECTS[case], "off")
    assert not _canary_intact(project), f"{case} has no effect even without the sandbox: {unsandboxed}"
    result = sandboxed(EFFECTS[case], "require")
    assert result["result"]["metadata"]["sandbox"] == "on"  # type: ignore[index]
    assert _canary_intact(project), f"{case} changed the canary inside the sandbox: {result}"


@pytest.mark.parametrize("case", list(READS), ids=list(READS))
def test_a_read_denied_file_cannot_be_read(case: str, project: Path, sandboxed) -> None:  # type: ignore[no-untyped-def]
    unsandboxed = sandboxed(READS[case], "off")
    assert SECRET in unsandboxed["result"]["output"]  # type: ignore[index]
    result = sandboxed(READS[case], "require")
    assert SECRET not in result["result"]["output"]  # type: ignore[index]
    copy = project / "data" / "copy"
    assert not copy.exists() or SECRET not in copy.read_text()


@pytest.fixture
def listener() -> Iterator[tuple[int, list[object]]]:
    """A TCP server on the host's loopback that records every connection it accepts."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    server.settimeout(0.2)
    accepted: list[object] = []
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except OSError:
                continue
            accepted.append(conn)
            conn.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield server.getsockname()[1], accepted
    stop.set()
    thread.join()
    server.close()


def _connect(port: int) -> str:
    script = f"import socket; socket.create_connection(('127.0.0.1', {port}), 3); print('connected')"
    return f'python3 -c "{script}"'


def test_the_network_is_unreachable_when_the_rules_do_not_allow_it(sandboxed, listener) -> None:  # type: ignore[no-untyped-def]
    port, accepted = listener
    assert "connected" in sandboxed(_connect(port), "off")["result"]["output"]
    count = len(accepted)
    assert count >= 1
    result = sandboxed(_connect(port), "require")
    assert "connected" not in result["result"]["output"]
    assert len(accepted) == count
    assert result["result"]["metadata"]["network"] is False


def test_the_network_is_there_when_the_rules_allow_webfetch(sandboxed, listener) -> None:  # type: ignore[no-untyped-def]
    port, _ = listener
    result = sandboxed(_connect(port), "require", {**RULES, "webfetch": "allow"})
    assert "connected" in result["result"]["output"]
    assert result["result"]["metadata"]["network"] is True


def test_an_allowed_edit_inside_the_project_still_works(project: Path, sandboxed) -> None:  # type: ignore[no-untyped-def]
    (project / "notes.txt").write_text("alpha\n")
    result = sandboxed("echo ok > data/new.txt && echo beta >> notes.txt && mkdir -p data/sub/deep "
                       "&& echo deep > data/sub/deep/f && sed -i s/deep/deeper/ data/sub/deep/f "
                       "&& mv data/new.txt data/renamed.txt", "require")
    assert result["exit_code"] == 0, result
    assert (project / "data" / "renamed.txt").read_text() == "ok\n"
    assert (project / "notes.txt").read_text() == "alpha\nbeta\n"  # in place: the top level keeps its files
    assert (project / "data" / "sub" / "deep" / "f").read_text() == "deeper\n"
    assert _canary_intact(project)


def test_the_agent_config_cannot_be_rewritten_or_created(project: Path, sandboxed) -> None:  # type: ignore[no-untyped-def]
    command = ("f=opencode.json; echo '{}' > $f; g=forge.json; echo '{}' > $g; mkdir .opencode; "
               "python3 -c \"open('forge.toml', 'w').write('x')\"; true")
    result = sandboxed(command, "require")
    assert result["exit_code"] == 0, result
    assert json.loads((project / "opencode.json").read_text()) == {"permission": RULES}
    assert not (project / "forge.json").exists()
    assert not (project / ".opencode").exists()
    assert not (project / "forge.toml").exists()


def test_what_the_command_starts_dies_with_it(project: Path, sandboxed, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """A background process cannot outlive the call (new PID namespace) and write later."""
    result = sandboxed("(sleep 2; echo late > data/late) & echo started", "require")
    assert "started" in result["result"]["output"]
    import time

    time.sleep(3)
    assert not (project / "data" / "late").exists()


def test_explain_shows_the_boundary_beside_the_rules(project: Path, cli: CLI, sandboxed) -> None:  # type: ignore[no-untyped-def]
    sandboxed("true", "require")
    code, out, err = cli("explain", "bash", "--call", json.dumps({"command": "ls"}))
    assert code == 0, err
    assert "sandbox" in out
    assert CANARY in out and ".env" in out and "network: off" in out


def test_layers_json_has_the_sandbox(project: Path, cli: CLI, sandboxed) -> None:  # type: ignore[no-untyped-def]
    sandboxed("true", "require")
    code, out, err = cli("layers", "--format", "json")
    assert code == 0, err
    sandbox = json.loads(out)["sandbox"]
    assert os.path.join(os.path.realpath(project), CANARY) in sandbox["read_only"]
    assert os.path.join(os.path.realpath(project), ".env") in sandbox["hidden"]
    assert sandbox["network"] is False
