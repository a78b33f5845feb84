"""MCP servers as the fourth source, against real servers written with the SDK (stdio, streamable HTTP,
SSE on 127.0.0.1) and the published @modelcontextprotocol/server-filesystem."""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from forge_tools.sources.mcp import mcp_tool_id, sanitize

SERVER = Path(__file__).with_name("mcp_demo_server.py")


def local(**extra: object) -> dict[str, object]:
    return {"type": "local", "command": [sys.executable, str(SERVER)], **extra}


def write_config(project: Path, config: dict[str, object]) -> None:
    (project / "opencode.json").write_text(json.dumps(config), encoding="utf-8")


def layers(cli) -> dict[str, object]:
    code, out, err = cli("layers", "--format", "json")
    assert code == 0, err
    return json.loads(out)


def by_id(doc: dict[str, object]) -> dict[str, dict[str, object]]:
    return {t["id"]: t for t in doc["tools"]}  # type: ignore[index,union-attr]


def starts(log: Path) -> int:
    return len(log.read_text().splitlines()) if log.exists() else 0


def test_ids_are_sanitised_as_opencode_does() -> None:
    assert sanitize("my server.v2") == "my_server_v2"
    assert mcp_tool_id("git hub", "create.issue") == "git_hub_create_issue"
    assert mcp_tool_id("a-b", "c_d") == "a-b_c_d"


def test_stdio_server_tools_go_through_the_layers(project: Path, cli, tmp_path: Path) -> None:
    log = tmp_path / "starts.log"
    write_config(project, {
        "mcp": {
            "demo srv": local(environment={"DEMO_LOG": str(log)}),
            "broken": {"type": "local", "command": [str(tmp_path / "no-such-server")]},
            "off": local(enabled=False, environment={"DEMO_LOG": str(tmp_path / "off.log")}),
        },
        "permission": {"demo_srv_big_dump": "deny"},
    })
    doc = layers(cli)
    tools = by_id(doc)
    assert list(tools)[-3:] == ["demo_srv_echo", "demo_srv_big_dump", "demo_srv_env_value"]
    echo = tools["demo_srv_echo"]
    assert echo["visible"] and echo["permission"] == "demo_srv_echo"
    assert echo["source"]["kind"] == "mcp" and echo["source"]["server"] == "demo srv"
    assert echo["tokens"] > 0
    dump = tools["demo_srv_big_dump"]
    assert not dump["visible"] and dump["hidden_at"] == "permission"
    # the failing server is one problem at its config key; the disabled one is never started
    problems = [p["text"] for p in doc["problems"]]
    assert len(problems) == 1 and "mcp.broken" in problems[0] and "opencode.json:1:" in problems[0]
    assert not (tmp_path / "off.log").exists()
    assert doc["definition_tokens"] == sum(t["tokens"] or 0 for t in doc["tools"])
    assert starts(log) == 1


def test_listing_cache_keeps_a_second_explain_off_the_server(project: Path, cli, tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    log = tmp_path / "starts.log"
    write_config(project, {"mcp": {"demo": local(environment={"DEMO_LOG": str(log)})}})
    code, out, _ = cli("explain", "demo_echo")
    assert code == 0 and "Echo the text back" in out
    code, out, err = cli("explain", "demo_echo")
    assert code == 0 and "Echo the text back" in out and "listing cache" in out + err
    assert starts(log) == 1
    monkeypatch.setenv("FORGE_MCP_REFRESH", "1")
    assert cli("explain", "demo_echo")[0] == 0
    assert starts(log) == 2
    # a changed server config is another cache key
    monkeypatch.delenv("FORGE_MCP_REFRESH")
    write_config(project, {"mcp": {"demo": local(environment={"DEMO_LOG": str(log), "X": "1"})}})
    assert cli("explain", "demo_echo")[0] == 0
    assert starts(log) == 3
    cache = Path(tmp_path / "data" / "mcp-tools")
    assert oct(cache.stat().st_mode & 0o777) == "0o700"
    assert all(oct(p.stat().st_mode & 0o777) == "0o600" for p in cache.iterdir())


def test_timeout_is_honoured_and_named(project: Path, cli) -> None:
    write_config(project, {"mcp": {
        "slow": local(environment={"DEMO_SLOW_LIST": "20"}, timeout=300),
        "fast": local(),
    }})
    doc = layers(cli)
    assert "fast_echo" in by_id(doc) and "slow_echo" not in by_id(doc)
    [problem] = [p["text"] for p in doc["problems"]]
    assert "mcp.slow" in problem and "timed out after 300 ms" in problem


def test_run_calls_the_server_through_the_wrapper(project: Path, cli) -> None:
    write_config(project, {"mcp": {"demo": local(environment={"SECRET_FOR_TEST": "from-config"})},
                           "permission": {"demo_echo": "ask"}})
    code, out, err = cli("run", "demo_echo", "--args", '{"text": "hi", "times": 3}', "--yes")
    assert code == 0, err
    assert out.strip() == "hihihi"
    assert "demo_echo" in err and "allowed" in err  # the ask gate was asked
    # the `environment` reaches the server
    code, out, _ = cli("run", "demo_env_value", "--args", '{"name": "SECRET_FOR_TEST"}')
    assert code == 0 and out.strip() == "from-config"
    # validated against the server's input schema before anything is called
    code, _, err = cli("run", "demo_echo", "--args", '{"txt": "hi"}', "--yes")
    assert code == 2 and "text" in err
    # an ask with nobody to answer is not run
    code, out, err = cli("run", "demo_echo", "--args", '{"text": "hi"}')
    assert code != 0 and "hi" not in out


def test_run_truncates_the_text_content(project: Path, cli) -> None:
    write_config(project, {"mcp": {"demo": local()}})
    code, out, err = cli("run", "demo_big_dump", "--args", '{"n": 6000}', "--format", "json")
    assert code == 0, err
    doc = json.loads(out)
    meta = doc["result"]["metadata"]
    assert meta["truncated"] is True
    full = Path(meta["outputPath"]).read_text()
    assert full.splitlines()[-1] == "line 5999" and "line 5999" not in doc["result"]["output"]


def test_check_never_connects_unless_load_code(project: Path, cli, tmp_path: Path) -> None:
    log = tmp_path / "starts.log"
    write_config(project, {"mcp": {"demo": local(environment={"DEMO_LOG": str(log)})},
                           "permission": {"demo_echo": "ask", "demo_ecko": "ask"}})
    _code, out, err = cli("check")
    assert starts(log) == 0 and "FT101" not in out and "without --load-code" in out + err
    _code, out, err = cli("check", "--load-code")
    assert starts(log) == 1
    # once the server's tools are listed, a misspelt one is an unknown name with a suggestion
    assert "FT101" in out and "demo_ecko" in out and "demo_echo" in out
    assert "'demo_echo'" not in out.split("demo_ecko", 1)[0]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def http_server(tmp_path: Path) -> Iterator[tuple[str, int]]:
    """Start the demo server on 127.0.0.1 over the transport the test asks for (indirect param)."""
    procs: list[subprocess.Popen[bytes]] = []

    def start(transport: str) -> int:
        port = _free_port()
        proc = subprocess.Popen([sys.executable, str(SERVER), transport, str(port)],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        procs.append(proc)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and proc.poll() is None:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    return port
            time.sleep(0.1)
        pytest.fail(f"the demo {transport} server did not start")

    yield start  # type: ignore[misc]
    for proc in procs:
        proc.terminate()
        proc.wait(10)


@pytest.mark.parametrize(("transport", "path"), [("http", "/mcp"), ("sse", "/sse")])
def test_remote_servers_streamable_http_and_sse_fallback(project: Path, cli, http_server,
                                                         transport: str, path: str) -> None:
    port = http_server(transport)
    write_config(project, {"mcp": {"web": {"type": "remote", "url": f"http://127.0.0.1:{port}{path}",
                                           "headers": {"X-Test": "1"}}}})
    tools = by_id(layers(cli))
    assert tools["web_echo"]["source"] == {"kind": "mcp", "path": str(project / "opencode.json"),
                                           "plugin": None, "server": "web"}
    code, out, err = cli("run", "web_echo", "--args", '{"text": "ok"}')
    assert code == 0, err
    assert out.strip() == "ok"


def test_a_remote_server_that_answers_nothing_is_one_problem(project: Path, cli) -> None:
    write_config(project, {"mcp": {"gone": {"type": "remote", "url": f"http://127.0.0.1:{_free_port()}/mcp"},
                                   "here": local()}})
    doc = layers(cli)
    assert "here_echo" in by_id(doc)
    [problem] = [p["text"] for p in doc["problems"]]
    assert "mcp.gone" in problem and "streamable HTTP" in problem and "SSE" in problem


def test_malformed_entries_are_located(project: Path, cli) -> None:
    # opencode 1.18.33 loads both (their types fit); forge-tools cannot start either
    write_config(project, {"mcp": {"a": {"type": "local", "command": []},
                                   "b": {"type": "remote", "url": "ftp://x"}}})
    doc = layers(cli)
    texts = [p["text"] for p in doc["problems"]]
    assert len(texts) == 2 and all("opencode.json:1:" in t for t in texts)
    named = [next(k for k in ("command", "url") if f"`{k}`" in t) for t in texts]
    assert named == ["command", "url"]


@pytest.mark.parametrize(("entry", "message"), [
    ({"type": "stdio"}, "mcp.c.type: 'stdio' is not one of 'local' or 'remote'"),
    ({"type": "local"}, "mcp.c: missing key 'command'"),
    ({"type": "local", "command": ["x"], "timeout": -1},
     "mcp.c.timeout: Input should be greater than or equal to 1"),
    ({"type": "remote", "url": "https://x", "headers": {"a": 1}}, "mcp.c.headers.a: expected a string"),
    ({"enabled": "yes"}, "mcp.c.enabled: expected true or false"),
])
def test_entries_opencode_refuses_are_config_errors(project: Path, cli, entry: dict[str, object],
                                                    message: str) -> None:
    """opencode 1.18.33 refuses to start with these ("Configuration is invalid"); so does forge-tools,
    with the entry's location (the `mcp` entries are typed as opencode types them)."""
    write_config(project, {"mcp": {"c": entry}})
    code, _, err = cli("layers", "--format", "json")
    assert code == 3 and "opencode.json:1:" in err and message in err, err


# -- the published filesystem server, through npx ----------------------------------------------------

FS_PACKAGE = "@modelcontextprotocol/server-filesystem"


@pytest.fixture(scope="session")
def filesystem_server(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Install the published server once from the npm registry (skipped without npm/npx)."""
    if shutil.which("npx") is None or shutil.which("npm") is None:
        pytest.skip("npx is not installed: the published MCP filesystem server cannot be started")
    prefix = tmp_path_factory.mktemp("npm-filesystem")
    done = subprocess.run(["npm", "install", "--no-save", "--no-audit", "--no-fund", "--prefix", str(prefix),
                           FS_PACKAGE], capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        pytest.skip(f"npm could not install {FS_PACKAGE}: {done.stderr.strip().splitlines()[-1:]}")
    return prefix


def test_published_filesystem_server_via_npx(project: Path, cli, filesystem_server: Path) -> None:
    data = project / "data"
    data.mkdir()
    (data / "a.txt").write_text("hello from a file\n")
    command = ["npx", "--prefix", str(filesystem_server), "--no-install", "mcp-server-filesystem", str(data)]
    write_config(project, {"mcp": {"files": {"type": "local", "command": command, "timeout": 30000}},
                           "permission": {"files_write_file": "deny"}})
    doc = layers(cli)
    tools = by_id(doc)
    assert doc["problems"] == []
    assert tools["files_read_text_file"]["visible"]
    assert tools["files_write_file"]["hidden_at"] == "permission"
    code, out, err = cli("run", "files_read_text_file", "--args", json.dumps({"path": str(data / "a.txt")}))
    assert code == 0, err
    assert "hello from a file" in out


def test_the_sdk_is_imported_only_to_connect(project: Path, cli) -> None:
    """A cached listing (and a config without servers) costs `explain` no SDK import."""
    import subprocess as sp

    probe = ("import io, sys\nfrom contextlib import redirect_stdout\nfrom forge_tools.cli.app import run\n"
             "with redirect_stdout(io.StringIO()):\n    code = run(sys.argv[1:])\n"
             "print(code, 'mcp' in sys.modules, 'anyio' in sys.modules)")

    def sdk_loaded(tool: str = "demo_echo") -> str:
        done = sp.run([sys.executable, "-c", probe, "explain", tool], cwd=project, capture_output=True,
                      text=True, timeout=120)
        return done.stdout.strip().splitlines()[-1]

    assert sdk_loaded("bash") == "0 False False"
    write_config(project, {"mcp": {"demo": local()}})
    assert sdk_loaded("bash") == "0 False False"  # a builtin needs no server: none is started
    assert sdk_loaded() == "0 True True"  # listed: connected with the SDK
    assert sdk_loaded() == "0 False False"  # from the cache


def test_config_agents_rules_never_start_servers(project: Path, cli, tmp_path: Path) -> None:
    log = tmp_path / "starts.log"
    write_config(project, {"mcp": {"demo": local(environment={"DEMO_LOG": str(log)})}})
    for command in (("config",), ("agents",), ("rules",)):
        assert cli(*command)[0] == 0
    assert starts(log) == 0


def test_a_local_server_starts_in_its_cwd(project: Path, cli) -> None:
    """opencode 1.18.33's `cwd` of a local server: where the process starts, relative paths from the
    workspace dir (issue 17). The demo server writes its relative DEMO_LOG in its own cwd."""
    (project / "srv").mkdir()
    write_config(project, {"mcp": {"demo": local(cwd="srv", environment={"DEMO_LOG": "started.log"})}})
    assert "demo_echo" in by_id(layers(cli))
    assert starts(project / "srv" / "started.log") == 1 and not (project / "started.log").exists()
