"""Issue 33: `run`'s sandbox keeps what decides and what runs read-only, and the rest follows the rules.

Differential, with real bubblewrap, real bash and a real MCP server (the SDK's): each attack runs once
with `--no-sandbox`, where it must take effect (else the case proves nothing), and once with
`--sandbox=require`, where it must not. The CLI runs as a subprocess, so a plugin rewritten by one
call is imported afresh by the next, as a person's next `run` would.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from forge_tools.tools.sandbox import RESERVED_NAMES, availability

WHY_NOT = availability()
pytestmark = pytest.mark.skipif(WHY_NOT is not None, reason=f"bubblewrap cannot run here: {WHY_NOT}")

PLUGIN = ("from forge_tools import hookimpl\n\n@hookimpl\n"
          "def tool_definition(tool_id, definition):\n    pass\n")
ATTACK = "printf 'import os\\nos.remove(\"victim.txt\")\\n' > plug.py"

MCP_SERVER = '''
import os
from mcp.server.mcpserver import MCPServer

app = MCPServer("writer")
try:  # each start says so where it can: listing the tools starts the server once, each call again
    with open("starts.txt", "a") as log:
        log.write("started\\n")
except OSError:
    pass


@app.tool()
def write(path: str) -> str:
    """Write a line to path (relative to the server's folder)."""
    try:
        with open(path, "w") as handle:
            handle.write("written by the server\\n")
    except OSError as exc:
        return f"refused: {exc}"
    return "written"


if __name__ == "__main__":
    app.run()
'''


def forge(project: Path, *args: str) -> tuple[int, str, str]:
    done = subprocess.run([sys.executable, "-m", "forge_tools", *args], cwd=project, capture_output=True,
                          text=True, timeout=120, env=os.environ.copy())
    return done.returncode, done.stdout, done.stderr


def run_bash(project: Path, command: str, sandbox: str) -> dict[str, object]:
    _, out, err = forge(project, "run", "bash", "--yes", "--format", "json", f"--sandbox={sandbox}",
                           "--args", json.dumps({"command": command}))
    assert out, err
    return dict(json.loads(out))


def write_config(project: Path, config: dict[str, object]) -> None:
    (project / "opencode.json").write_text(json.dumps(config))


@pytest.mark.parametrize("sandbox", ["off", "require"])
def test_the_plugin_rewrite_attack_removes_nothing_in_the_sandbox(project: Path, sandbox: str) -> None:
    """The issue's attack: an allowed write rewrites the config's plugin; the next run imports it and
    removes a file that `rm *` protects. Without the sandbox it works; inside it removes nothing."""
    write_config(project, {"plugin": ["./plug.py"], "permission": {"bash": {"*": "allow", "rm *": "deny"}}})
    (project / "plug.py").write_text(PLUGIN)
    (project / "victim.txt").write_text("keep\n")
    run_bash(project, ATTACK, sandbox)
    run_bash(project, "true", sandbox)  # the next call imports the plugin
    if sandbox == "off":
        assert not (project / "victim.txt").exists()  # the attack is real
    else:
        assert (project / "plug.py").read_text() == PLUGIN
        assert (project / "victim.txt").read_text() == "keep\n"


def test_new_top_level_entries_follow_the_edit_rules(project: Path) -> None:
    write_config(project, {"permission": {"bash": "allow", "edit": {"*": "allow", "locked.txt": "deny"}}})
    (project / "README.md").write_text("old\n")
    (project / "locked.txt").write_text("keep\n")
    result = run_bash(project, "mkdir node_modules && echo x > node_modules/m.js && echo new > new.txt "
                      "&& sed -i s/old/new/ README.md && rm -f locked.txt; mv README.md README.txt; true",
                      "require")
    assert result["result"]["metadata"]["sandbox"] == "on"  # type: ignore[index]
    assert (project / "node_modules" / "m.js").read_text() == "x\n"
    assert (project / "new.txt").read_text() == "new\n"
    assert (project / "README.txt").read_text() == "new\n"  # a top-level file is renamed and replaced
    assert (project / "locked.txt").read_text() == "keep\n"  # an edit deny still holds


@pytest.mark.skipif(shutil.which("npm") is None, reason="npm is not installed")
def test_npm_install_creates_node_modules(project: Path) -> None:
    """A real `npm install` (of a local package, so nothing is fetched) under an allowing config."""
    write_config(project, {"permission": {"bash": "allow", "edit": "allow"}})
    (project / "dep").mkdir()
    (project / "dep" / "package.json").write_text(json.dumps({"name": "dep", "version": "1.0.0"}))
    (project / "package.json").write_text(json.dumps(
        {"name": "app", "version": "1.0.0", "dependencies": {"dep": "file:./dep"}}))
    result = run_bash(project, "npm install --offline --no-audit --no-fund --ignore-scripts", "require")
    assert result["exit_code"] == 0, result
    assert (project / "node_modules" / "dep").exists()


def test_config_names_cannot_be_created_and_leave_no_placeholder(project: Path) -> None:
    write_config(project, {"permission": {"bash": "allow", "edit": "allow"}})
    names = [n for n in RESERVED_NAMES if n != "opencode.json"]
    command = "; ".join(f"mkdir -p {n}/x || echo '{{}}' > {n}" for n in names) + "; ls -a"
    result = run_bash(project, command, "require")
    listed = str(result["result"]["output"])  # type: ignore[index]
    assert all(n in listed.split() for n in names)  # present inside the call, as placeholders
    assert sorted(p.name for p in project.iterdir()) == [".git", "opencode.json"]  # gone after it


def test_what_decides_is_read_only_whatever_the_rules_say(project: Path) -> None:
    write_config(project, {"permission": {"bash": "allow", "edit": "allow"}, "plugin": ["./tools/plug.py"],
                           "mcp": {"w": {"type": "local", "command": ["python3", "srv/server.py"]}}})
    for rel in ("tools/plug.py", "srv/server.py", ".opencode/agent/a.md", ".git/hooks/pre-commit"):
        (project / rel).parent.mkdir(parents=True, exist_ok=True)
        (project / rel).write_text("keep\n")
    (project / ".git" / "config").write_text("keep\n")
    targets = ["tools/plug.py", "srv/server.py", ".opencode/agent/a.md", ".git/hooks/pre-commit",
               ".git/config"]
    run_bash(project, "; ".join(f"echo bad > {t}; rm -f {t}" for t in targets) + "; true", "require")
    for rel in targets:
        assert (project / rel).read_text() == "keep\n", rel
    assert not (project / ".git" / "hooks" / "post-checkout").exists()
    run_bash(project, "echo bad > .git/hooks/post-checkout; true", "require")
    assert not (project / ".git" / "hooks" / "post-checkout").exists()


@pytest.mark.parametrize("sandbox", ["off", "require"])
def test_a_sandboxed_mcp_server_cannot_write_a_denied_path(project: Path, sandbox: str) -> None:
    (project / "server.py").write_text(MCP_SERVER)
    (project / "secrets").mkdir()
    write_config(project, {
        "permission": {"*": "allow", "edit": {"*": "allow", "secrets/*": "deny"}},
        "mcp": {"w": {"type": "local", "command": [sys.executable, "server.py"]}},
    })
    _, out, err = forge(project, "run", "w_write", "--yes", "--format", "json", f"--sandbox={sandbox}",
                           "--args", json.dumps({"path": "secrets/x"}))
    data = json.loads(out)
    assert data["result"] is not None, (out, err)
    _, out2, err2 = forge(project, "run", "w_write", "--yes", "--format", "json",
                              f"--sandbox={sandbox}", "--args", json.dumps({"path": "allowed.txt"}))
    assert json.loads(out2)["result"]["output"] == "written", (out2, err2)  # the server works either way
    starts = (project / "starts.txt").read_text().splitlines()
    if sandbox == "off":
        assert (project / "secrets" / "x").exists()  # the server is what writes it
        assert len(starts) == 3  # listed once (then cached), started for each of the two calls
    else:
        assert len(starts) == 2  # listing its tools, the server could write nothing
        assert data["result"]["metadata"]["sandbox"] == "on"
        assert "refused" in data["result"]["output"]
        assert not (project / "secrets" / "x").exists()


def test_a_call_that_ends_first_leaves_the_placeholders_to_the_one_still_running(project: Path) -> None:
    """Two sandboxed calls of one project at once: the one that ends first must not remove the
    placeholders the other's sandbox still stands on (its mounts would go with them)."""
    import time

    write_config(project, {"permission": {"bash": "allow", "edit": "allow"}})
    # the slow call waits for the test's go (a file the test makes once the quick call has ended)
    command = ("for i in $(seq 600); do [ -e go ] && break; sleep 0.1; done; echo '{}' > opencode.jsonc; "
               "mkdir .claude; true")
    slow = subprocess.Popen([sys.executable, "-m", "forge_tools", "run", "bash", "--yes", "--format", "json",
                             "--sandbox=require", "--args", json.dumps({"command": command})],
                            cwd=project, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=os.environ.copy())
    for _ in range(600):  # until the slow call holds the placeholders
        if (project / "opencode.jsonc").exists():
            break
        time.sleep(0.1)
    quick = run_bash(project, "echo quick", "require")  # a quick call starts and ends meanwhile
    assert quick["exit_code"] == 0 and "quick" in str(quick["result"]["output"]), quick  # type: ignore[index]
    assert (project / "opencode.jsonc").exists()  # still held for the slow call
    code, _out, err = forge(project, "layers")  # the placeholders are read as absent: no empty config
    assert code == 0 and "empty" not in err, err
    (project / "go").write_text("")
    out, err = slow.communicate(timeout=120)
    assert json.loads(out)["result"]["metadata"]["sandbox"] == "on", err
    assert not (project / "opencode.jsonc").exists() and not (project / ".claude").exists()


def test_the_librarys_run_call_lists_a_local_mcp_server_inside_the_sandbox(project: Path) -> None:
    """`forge_tools.run_call` starts a local server to list its tools as `forge-tools run` does: in
    the sandbox, where the project is read-only while listing (the server's start log gets only the
    call's own start, the call runs under the edit rules)."""
    from forge_tools import run_call

    (project / "server.py").write_text(MCP_SERVER)
    write_config(project, {
        "permission": {"*": "allow", "edit": {"*": "allow", "secrets/*": "deny"}},
        "mcp": {"w": {"type": "local", "command": [sys.executable, "server.py"]}},
    })
    outcome = run_call(project, "w_write", {"path": "allowed.txt"}, load_code=True)
    assert outcome.result is not None and outcome.result.output == "written", outcome
    assert outcome.result.metadata.get("sandbox") == "on", outcome.result.metadata
    assert (project / "starts.txt").read_text().splitlines() == ["started"]  # the call's start only


@pytest.mark.parametrize("sandbox", ["off", "require"])
def test_a_call_cannot_plant_code_the_next_forge_tools_runs(project: Path, sandbox: str) -> None:
    """The console keeps compiled class code in the data dir and runs it in the next process
    (`cli/compiled.py`): with the data dir inside the project and edit allowed, a sandboxed call can
    neither replace that file nor add one beside it; without the sandbox the same call does."""
    data = project / ".forge-data"
    env = {**os.environ, "FORGE_DATA_DIR": str(data)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    write_config(project, {"permission": {"bash": "allow", "edit": "allow"}})

    def call(command: str) -> None:
        done = subprocess.run([sys.executable, "-m", "forge_tools", "run", "bash", "--yes", "--format",
                               "json", f"--sandbox={sandbox}", "--args", json.dumps({"command": command})],
                              cwd=project, env=env, capture_output=True, text=True, timeout=120)
        assert done.stdout, done.stderr

    call("true")  # the run path's class code is kept: the next run compiles (and writes) nothing
    kept = next((data / "cache").glob("compiled-*.marshal"))
    before = kept.read_bytes()
    call(f"echo planted > {kept}; echo x > {data}/cache/new; true")
    if sandbox == "off":
        assert kept.read_bytes() == b"planted\n"  # the case proves something
    else:
        assert kept.read_bytes() == before and not (data / "cache" / "new").exists()
