"""forge-tools' Claude Code runtime gives the answers recorded from the Claude Code 2.1.332 binary.

tests/compat/claude/cases.json holds the configs (settings files, project and home files, trust,
flags, env) and the calls; claude-2.1.332.json what the binary did with each call (allow / ask /
deny, its reason_type) and which tools each config offered the model. Each config is laid out again
in a scratch directory (project, HOME, CLAUDE_CONFIG_DIR, a managed directory named by
FORGE_TOOLS_CLAUDE_MANAGED_DIR) and every recorded call is put to `runtimes.claude`. No Node, no
network: the records are the oracle.

A record forge-tools cannot match yet is an `xfail(strict=True)` in `GAPS` naming the gap; no record
is ever skipped.
"""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest

from forge_tools.runtimes.claude.decide import decide
from forge_tools.runtimes.claude.settings import ClaudeOptions, read_settings
from forge_tools.runtimes.claude.tools import offers

HERE = Path(__file__).parent / "claude"
sys.path.insert(0, str(HERE))
from case_layout import expand, write_case_files  # noqa: E402  (tests/compat/claude is no package)

CASES = HERE / "cases.json"
RECORDS = HERE / "claude-2.1.332.json"

#: (config, call index) -> the exact gap; each is an xfail(strict=True)
GAPS: dict[tuple[str, int], str] = {}
#: config -> the gap in its tool lists
TOOL_GAPS: dict[str, str] = {}
#: what init lists once an MCP server has connected before it (a race the recorder does not control):
#: the server's tools and the MCP resource tools; forge-tools lists neither (it starts no server)
MCP_CONNECTED_TOOLS = frozenset({"ListMcpResourcesTool", "ReadMcpResourceTool", "ReadMcpResourceDirTool"})


def _load() -> tuple[dict[str, Any], dict[str, Any]]:
    if not CASES.is_file() or not RECORDS.is_file():
        return {}, {}
    cases = {c["name"]: c for c in json.loads(CASES.read_text())["configs"]}
    records = {c["name"]: c for c in json.loads(RECORDS.read_text())["configs"]}
    # the start flags' records (launch.py: launch-cases.json -> launch-<version>.json), replayed alike
    cases.update({c["name"]: c for c in json.loads((HERE / "launch-cases.json").read_text())["configs"]})
    for path in sorted(HERE.glob("launch-[0-9]*.json")):
        records.update({c["name"]: c for c in json.loads(path.read_text())["configs"]})
    return cases, records


CASE_BY_NAME, RECORD_BY_NAME = _load()


def _calls() -> list[Any]:
    params = []
    for name, record in RECORD_BY_NAME.items():
        for i, call in enumerate(record["calls"]):
            marks = [pytest.mark.xfail(strict=True, reason=GAPS[(name, i)])] if (name, i) in GAPS else []
            params.append(pytest.param(name, i, id=f"{name}[{i}]-{call['tool']}", marks=marks))
    return params


def _configs() -> list[Any]:
    params = []
    for name, record in RECORD_BY_NAME.items():
        if "tools_offered" not in record:
            continue
        marks = [pytest.mark.xfail(strict=True, reason=TOOL_GAPS[name])] if name in TOOL_GAPS else []
        params.append(pytest.param(name, id=name, marks=marks))
    return params


class Layout:
    """One config laid out as the recorder lays it out, in `base`."""

    def __init__(self, base: Path, case: dict[str, Any]) -> None:
        self.project = base / "project"
        self.home = base / "home"
        self.config_dir = self.home / ".claude"
        self.managed = base / "managed"
        for d in (self.project, self.config_dir, base / "tmp"):
            d.mkdir(parents=True, exist_ok=True)
        write_case_files(case, self.expand, self.project, self.home)
        trust = case.get("trusted", True)
        state: dict[str, Any] = ({"projects": {str(self.project): {"hasTrustDialogAccepted": bool(trust)}}}
                                 if trust is not None else {})
        state.update(self.expand(case.get("state", {})))
        (self.config_dir / ".claude.json").write_text(json.dumps(state, indent=2))
        env = {"HOME": str(self.home), "CLAUDE_CONFIG_DIR": str(self.config_dir),
               "FORGE_TOOLS_CLAUDE_MANAGED_DIR": str(self.managed), **self.expand(case.get("env", {}))}
        self.env = {k: v for k, v in env.items() if v is not None}  # a null unsets it
        self.options = _options(case.get("flags", []))
        self.cwd = self.project / case.get("cwd", "")  # where Claude is started: the project or below
        self.uses_mcp = "mcp_server.py" in json.dumps(case)
        self.listed: dict[str, frozenset[str] | None] | None = None

    def expand(self, value: Any) -> Any:
        return expand(value, {"$PROJECT": str(self.project), "$HOME": str(self.home),
                              "$MANAGED": str(self.managed), "$PYTHON": sys.executable, "$COMPAT": str(HERE),
                              "$SCRATCH": str(self.project.parent)})

    def server_tools(self) -> dict[str, frozenset[str] | None] | None:
        """The tools of the MCP servers Claude starts here, listed by starting them (the real
        `mcp_server.py`, as the recorder did); None for a config that starts none."""
        if self.listed is None and self.uses_mcp:
            from forge_tools.runtimes.claude.mcp import server_tools

            self.listed = server_tools(self.settings(), start_s=30.0)
        return self.listed

    def settings(self):  # type: ignore[no-untyped-def]
        # the recorder runs the binary as root (bypassPermissions needs IS_SANDBOX=1 there)
        return read_settings(self.cwd, self.env, self.options, home=self.home, is_root=True)


def _options(flags: list[str]) -> ClaudeOptions:
    """The recorded command line's flags read by forge-tools' Claude launch grammar (runtimes/launch.py),
    as `--launch` reads them: every record with flags is a record of that flag."""
    from forge_tools.runtimes.launch import parse_launch

    options: ClaudeOptions = parse_launch(shlex.join(["claude", *COMMAND, *flags])).options
    return options


#: the recorder's own flags (record.py): `claude -p go --output-format stream-json --verbose
#: --permission-prompts none`
COMMAND = ["-p", "go", "--output-format", "stream-json", "--verbose", "--permission-prompts", "none"]


pytestmark = pytest.mark.skipif(not RECORD_BY_NAME, reason="no Claude Code records in tests/compat/claude")


@pytest.mark.parametrize(("config", "index"), _calls())
def test_call_matches_binary(config: str, index: int, tmp_path: Path) -> None:
    record = RECORD_BY_NAME[config]["calls"][index]
    check_call(Layout(tmp_path, CASE_BY_NAME[config]), record)


def check_call(layout: Layout, record: dict[str, Any],
               server_tools: dict[str, frozenset[str] | None] | None = None) -> None:
    """forge-tools' answer to one recorded call (`tool`, `input`, `decision`, `reason_type`,
    `message`) in `layout` is the binary's; an AssertionError says how it is not. An MCP call is
    decided with the tools its server lists (`server_tools`, else listed in `layout`)."""
    args = layout.expand(record["input"])
    if server_tools is None and record["tool"].startswith("mcp__"):
        server_tools = layout.server_tools()
    got = decide(layout.settings(), record["tool"], args, layout.cwd, server_tools)
    want = record["decision"]
    message = record.get("message") or ""
    if want == "error" and ("InputValidationError" in message or "has not been read yet" in message):
        assert got.invalid is not None, f"{record['tool']}: Claude Code refuses the input, forge-tools not"
        return
    if want == "error" and record.get("message") == "no tool_result for this call":
        settings = layout.settings()  # the binary did not start
        assert settings.start_error is not None, "Claude Code did not start; forge-tools says it does"
        assert not got.offered
        return
    if want == "deny" and record.get("reason_type") in ("tool_disabled", "not_offered"):  # no such tool
        assert not got.offered and got.behavior == "deny", f"{record['tool']}: Claude Code removes it"
        return
    if want == "error":  # the binary has no such tool in this session
        assert not got.offered, f"{record['tool']}: not offered by Claude Code, forge-tools offers it"
        return
    assert got.invalid is None, f"{record['tool']}: forge-tools refuses the input ({got.invalid})"
    assert got.offered, f"{record['tool']}: offered by Claude Code, forge-tools says it is not"
    assert got.behavior == want, (f"{record['tool']} {json.dumps(record['input'])}: Claude Code "
                                  f"{want} ({record.get('reason_type')}), forge-tools {got.behavior} "
                                  f"({got.reason_type}: {got.deciding.why if got.deciding else ''})")
    if want in ("allow", "deny") and record.get("reason_type") in ("rule", "subcommandResults", "mode",
                                                                   "classifier"):
        assert got.reason_type == record["reason_type"], (
            f"{record['tool']} {json.dumps(record['input'])}: reason_type {record['reason_type']} "
            f"recorded, {got.reason_type} given")


@pytest.mark.parametrize("config", _configs())
def test_tools_offered_match_binary(config: str, tmp_path: Path) -> None:
    record = RECORD_BY_NAME[config]
    layout = Layout(tmp_path, CASE_BY_NAME[config])
    # MCP tools reach the model later (deferred, after the server connects): the records' lists,
    # taken at start-up, have none, and neither does this one
    listed = offers(layout.settings())
    want = record["tools_offered"]
    if any(s.get("status") == "connected" for s in record.get("mcp_servers", [])):
        want = [t for t in want if not t.startswith("mcp__") and t not in MCP_CONNECTED_TOOLS]
    assert [o.name for o in listed if o.offered] == want


@pytest.mark.parametrize("config", [c for c, case in CASE_BY_NAME.items() if c in RECORD_BY_NAME
                                    and "mcp_server.py" in json.dumps(case)])
def test_mcp_servers_match_binary(config: str, tmp_path: Path) -> None:
    """The servers Claude Code starts (its init event's `mcp_servers`: name and source, in its order)
    are the ones forge-tools reads from the same files as loaded."""
    record = RECORD_BY_NAME[config]
    layout = Layout(tmp_path, CASE_BY_NAME[config])
    got = [(s.name, s.scope) for s in layout.settings().mcp_servers if s.loaded]
    want = [(s["name"], s["source"]) for s in record.get("mcp_servers", [])]
    assert sorted(got) == sorted(want)

