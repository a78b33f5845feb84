"""Record Claude Code's own permission answers from its released binary, offline.

Run by hand when the binary is present (the test suite never runs this; it reads the records):

    .venv/bin/python tests/compat/claude/record.py            # every config in cases.json
    .venv/bin/python tests/compat/claude/record.py --only NAME [--only NAME ...]

The script re-executes itself under ``unshare -n -m`` (a private network namespace with only
loopback, and a private mount namespace). Inside, it mounts an overlay over /etc so that managed
settings can be written to /etc/claude-code without touching the real /etc, starts the Messages
API stand-in (standin.py) on 127.0.0.1, and runs ``claude -p go --output-format stream-json
--verbose --permission-prompts none`` once per call, each in a fresh scratch project (git init)
and scratch HOME / CLAUDE_CONFIG_DIR. The stand-in answers with the call as a ``tool_use``; the
permission decision is read back from the stream. Each config is also run once with all its calls
in one session, and any call whose answer differs there is reported (``in_session``).
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as _dt
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from case_layout import expand, write_case_files  # noqa: E402
from standin import Script, StandIn  # noqa: E402

CLAUDE = Path(os.environ.get("CLAUDE_BIN", "/work/agents/node_modules/.bin/claude"))
CASES = Path(os.environ.get("CLAUDE_CASES") or HERE / "cases.json")  # launch.py: launch-cases.json
RUN_TIMEOUT = 90
MCP_CONNECT_WAIT = 10.0  # seconds the stand-in waits before the first call when a config has MCP servers
NS_FLAG = "FT_CLAUDE_RECORDER_IN_NS"
MANAGED_DIR = Path("/etc/claude-code")
ASK_REASONS = {"asyncAgent"}


def _reexec_in_namespace(argv: list[str]) -> int:
    env = dict(os.environ, **{NS_FLAG: "1"})
    cmd = ["unshare", "-n", "-m", "--propagation", "private",
           sys.executable, str(Path(__file__).resolve()), *argv]
    return subprocess.call(cmd, env=env)


def _setup_namespace(scratch: Path) -> None:
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    upper, work = scratch / "etc-upper", scratch / "etc-work"
    upper.mkdir()
    work.mkdir()
    subprocess.run(["mount", "-t", "overlay", "overlay", "-o",
                    f"lowerdir=/etc,upperdir={upper},workdir={work}", "/etc"], check=True)


class Paths:
    def __init__(self, base: Path) -> None:
        self.base = base
        self.project = base / "project"
        self.home = base / "home"
        self.config_dir = self.home / ".claude"
        self.tmp = base / "tmp"

    def expand(self, value: Any) -> Any:
        return expand(value, {"$PROJECT": str(self.project), "$HOME": str(self.home),
                              "$MANAGED": str(MANAGED_DIR), "$PYTHON": sys.executable, "$COMPAT": str(HERE),
                              "$SCRATCH": str(self.base)})

    def normalise(self, value: Any) -> Any:
        if isinstance(value, str):
            pairs = [(str(self.project), "$PROJECT"), (str(self.config_dir), "$HOME/.claude"),
                     (str(self.home), "$HOME"), (str(self.tmp), "$TMP"), (sys.executable, "$PYTHON"),
                     (str(HERE), "$COMPAT"), (str(self.base), "$SCRATCH")]
            for old, new in pairs:
                value = value.replace(old, new)
            return value
        if isinstance(value, list):
            return [self.normalise(v) for v in value]
        if isinstance(value, dict):
            return {k: self.normalise(v) for k, v in value.items()}
        return value


def _prepare(config: dict[str, Any], base: Path) -> Paths:
    paths = Paths(base)
    for d in (paths.project, paths.config_dir, paths.tmp):
        d.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(paths.project)], check=True)
    if MANAGED_DIR.exists():
        shutil.rmtree(MANAGED_DIR)

    def inside(target: Path, name: str) -> None:
        if not (str(target).startswith(str(base)) or str(target).startswith(str(MANAGED_DIR))):
            raise SystemExit(f"cases.json: config {config['name']}: file {name} is outside the scratch dirs")

    write_case_files(config, paths.expand, paths.project, paths.home, inside)
    trust = config.get("trusted", True)
    state_file = paths.config_dir / ".claude.json"
    state = {"projects": {str(paths.project): {"hasTrustDialogAccepted": bool(trust),
                                                "allowedTools": []}}} if trust is not None else {}
    state.update(paths.expand(config.get("state", {})))
    state_file.write_text(json.dumps(state, indent=2))
    return paths


def _run_claude(paths: Paths, config: dict[str, Any], standin: StandIn, calls: list[dict[str, Any]],
                on_turn: Any = None) -> tuple[Script, list[dict[str, Any]], str, int | None]:
    uses_mcp = "mcp_server.py" in json.dumps(config)  # any file or state entry that starts the server
    script = Script([{"tool": c["tool"], "input": paths.expand(c["input"])} for c in calls],
                    first_delay=MCP_CONNECT_WAIT if uses_mcp else 0.0, on_turn=on_turn)
    standin.use(script)
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(paths.home),
        "CLAUDE_CONFIG_DIR": str(paths.config_dir),
        "TMPDIR": str(paths.tmp),
        "XDG_CONFIG_HOME": str(paths.home / ".config"),
        "XDG_DATA_HOME": str(paths.home / ".local/share"),
        "XDG_CACHE_HOME": str(paths.home / ".cache"),
        "XDG_STATE_HOME": str(paths.home / ".local/state"),
        "ANTHROPIC_BASE_URL": f"http://127.0.0.1:{standin.port}",
        "ANTHROPIC_API_KEY": "sk-ant-placeholder-not-a-key",
        "DISABLE_AUTOUPDATER": "1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "LANG": "C.UTF-8",
    }
    env.update(paths.expand(config.get("env", {})))
    env = {k: v for k, v in env.items() if v is not None}  # a null in the config's env unsets it
    cmd = [str(CLAUDE), "-p", "go", "--output-format", "stream-json", "--verbose",
           "--permission-prompts", "none", *paths.expand(config.get("flags", []))]
    proc = subprocess.Popen(cmd, cwd=paths.project / config.get("cwd", ""), env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        out, err = proc.communicate(timeout=RUN_TIMEOUT + 5 * len(calls))
        rc: int | None = proc.returncode
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        rc = None
    events = []
    for line in out.splitlines():
        line = line.strip()
        if line.startswith("{"):
            with contextlib.suppress(ValueError):
                events.append(json.loads(line))
    standin.use(None)
    return script, events, err, rc


def _answers(events: list[dict[str, Any]], n: int) -> list[dict[str, Any] | None]:
    """Per scripted call (by tool_use id), the permission decision Claude Code reported."""
    by_id: dict[str, dict[str, Any]] = {}
    for ev in events:
        if ev.get("type") == "system" and ev.get("subtype") == "permission_denied":
            by_id.setdefault(ev.get("tool_use_id", ""), {}).update(
                denied_event={k: ev.get(k) for k in ("decision_reason_type", "decision_reason", "message")})
        if ev.get("type") == "user":
            content = (ev.get("message") or {}).get("content") or []
            for block in content if isinstance(content, list) else []:
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    text = block.get("content")
                    if isinstance(text, list):
                        text = "\n".join(str(b.get("text", "")) for b in text if isinstance(b, dict))
                    by_id.setdefault(block.get("tool_use_id", ""), {}).update(
                        result=str(text), is_error=bool(block.get("is_error")))
            for meta in ev.get("tool_result_meta") or []:
                by_id.setdefault(meta.get("id", ""), {}).update(meta=meta.get("permission_decision"))
    return [by_id.get(f"toolu_standin_{i:03d}") for i in range(n)]


def _decide(raw: dict[str, Any] | None) -> dict[str, Any]:
    if raw is None:
        return {"decision": "error", "reason_type": None, "message": "no tool_result for this call",
                "ran": False}
    meta = raw.get("meta") or {}
    denied = raw.get("denied_event")
    if denied is not None or meta.get("decision") == "reject":
        reason = (denied or {}).get("decision_reason_type") or meta.get("reason_type")
        message = (denied or {}).get("message") or raw.get("result", "")
        decision = "ask" if reason in ASK_REASONS else "deny"
        out = {"decision": decision, "reason_type": reason, "message": message, "ran": False}
        if denied and denied.get("decision_reason"):
            out["decision_reason"] = denied["decision_reason"]
        if meta:
            out["source"] = meta.get("source")
        return out
    if meta.get("decision") == "accept":
        return {"decision": "allow", "reason_type": meta.get("reason_type"), "source": meta.get("source"),
                "message": raw.get("result", "")[:400], "ran": True, "is_error": raw.get("is_error", False)}
    result = raw.get("result", "")
    if "No such tool available" in result:
        # the tool is not in this session's tool set (a bare-name or MCP deny, --disallowedTools,
        # an MCP server not loaded, or not a tool of this version): the call cannot run at all.
        # "not_offered" is the recorder's label; the binary gives no permission decision here.
        return {"decision": "deny", "reason_type": "not_offered", "message": result[:400], "ran": False}
    return {"decision": "error", "reason_type": None, "message": result[:400], "ran": False,
            "is_error": raw.get("is_error", False)}


def _init(events: list[dict[str, Any]]) -> dict[str, Any]:
    for ev in events:
        if ev.get("type") == "system" and ev.get("subtype") == "init":
            return ev
    return {}


def _observe(paths: Paths, call: dict[str, Any]) -> dict[str, bool] | None:
    names = call.get("observe")
    if not names:
        return None
    return {name: Path(paths.expand(name)).exists() for name in names}


def record_session(config: dict[str, Any], standin: StandIn, scratch: Path) -> dict[str, Any]:
    """All of a config's calls in ONE session (`--session`): one start-up instead of one per call.

    Sound where calls do not change each other's answers: in 2.1.328 only a `cd` did (the Bash
    tool's working directory persists; such configs say `"per_call": true` and are recorded one
    call per session). A call's effects are observed when the stand-in is asked for the next turn
    (the call has run by then) or after the session for the last one; `effect_before` is the same
    paths just before the call (an earlier call of the session may have made them)."""
    calls = config.get("calls", [])
    base = Path(tempfile.mkdtemp(prefix=f"{config['name'][:20]}-s-", dir=scratch))
    paths = _prepare(config, base)
    effects: dict[int, dict[str, bool] | None] = {}
    before: dict[int, dict[str, bool] | None] = {}

    def on_turn(turn: int) -> None:
        if 0 < turn <= len(calls):
            effects[turn - 1] = _observe(paths, calls[turn - 1])
        if turn < len(calls):
            before[turn] = _observe(paths, calls[turn])

    script, events, err, rc = _run_claude(paths, config, standin, calls, on_turn)
    if calls and len(calls) - 1 not in effects:
        effects[len(calls) - 1] = _observe(paths, calls[-1])
    init = _init(events)
    result: dict[str, Any] = {"name": config["name"], "recorded_in": "session", "calls": []}
    if not init:
        result["startup_error"] = {"rc": rc, "stderr_tail": paths.normalise(err[-1500:])}
    for i, (call, raw) in enumerate(zip(calls, _answers(events, len(calls)), strict=True)):
        answer = _decide(raw)
        if answer["decision"] == "error":
            answer["rc"] = rc
            answer["stderr_tail"] = err[-1500:]
        if call.get("observe"):
            answer["effect"] = effects.get(i) or {name: False for name in call["observe"]}
            if before.get(i) is not None:  # the same paths just before it (earlier calls ran too)
                answer["effect_before"] = before[i]
        result["calls"].append({"tool": call["tool"], "input": call["input"], **paths.normalise(answer)})
    result["tools_offered"] = init.get("tools", [])
    result["api_tools"] = script.api_tools
    if script.last_api_tools != script.api_tools:
        result["api_tools_last_request"] = script.last_api_tools
    result["permission_mode"] = init.get("permissionMode")
    if init.get("mcp_servers"):
        result["mcp_servers"] = paths.normalise(init.get("mcp_servers"))
    shutil.rmtree(base, ignore_errors=True)
    return result


def record_config(config: dict[str, Any], standin: StandIn, scratch: Path) -> dict[str, Any]:
    calls = config.get("calls", [])
    result: dict[str, Any] = {"name": config["name"], "calls": []}
    inits: list[list[str]] = []
    api: list[list[str] | None] = []
    last_api: list[list[str] | None] = []
    mcp_status: list[Any] = []
    modes: list[Any] = []
    for call in calls or [None]:
        base = Path(tempfile.mkdtemp(prefix=f"{config['name'][:20]}-", dir=scratch))
        paths = _prepare(config, base)
        script, events, err, rc = _run_claude(paths, config, standin, [call] if call else [])
        init = _init(events)
        inits.append(init.get("tools", []))
        api.append(script.api_tools)
        last_api.append(script.last_api_tools)
        mcp_status.append(paths.normalise(init.get("mcp_servers")))
        modes.append(init.get("permissionMode"))
        if not init and "startup_error" not in result:
            # the session never started (e.g. bypassPermissions as root): every call is an error
            result["startup_error"] = {"rc": rc, "stderr_tail": paths.normalise(err[-1500:])}
        if call is None:
            break
        answer = _decide(_answers(events, 1)[0])
        if answer["decision"] == "error":
            answer["rc"] = rc
            answer["stderr_tail"] = err[-1500:]
            answer["stdout_tail"] = "\n".join(json.dumps(e)[:600] for e in events[-4:])
        effect = _observe(paths, call)
        if effect is not None:
            answer["effect"] = effect
        entry = {"tool": call["tool"], "input": call["input"], **paths.normalise(answer)}
        result["calls"].append(entry)
        shutil.rmtree(base, ignore_errors=True)
    result["tools_offered"] = inits[0] if inits else []
    result["api_tools"] = api[0] if api else None
    if last_api and last_api[0] != result["api_tools"]:
        result["api_tools_last_request"] = last_api[0]  # e.g. MCP tools once their server connected
    result["permission_mode"] = modes[0] if modes else None
    if mcp_status and mcp_status[0]:
        result["mcp_servers"] = mcp_status[0]
    if any(t != inits[0] for t in inits) or any(a != api[0] for a in api):
        result["tool_lists_varied"] = {"init": inits, "api": api}
    if len(calls) > 1 and not config.get("no_session_check"):
        base = Path(tempfile.mkdtemp(prefix=f"{config['name'][:20]}-s-", dir=scratch))
        paths = _prepare(config, base)
        _script, events, _err, _rc = _run_claude(paths, config, standin, calls)
        for entry, raw in zip(result["calls"], _answers(events, len(calls)), strict=True):
            grouped = _decide(raw)
            if (grouped["decision"], grouped["reason_type"]) != (entry["decision"], entry["reason_type"]):
                entry["in_session"] = {"decision": grouped["decision"], "reason_type": grouped["reason_type"],
                                       "message": paths.normalise(grouped["message"])[:400]}
        shutil.rmtree(base, ignore_errors=True)
    return result


def main_in_namespace(args: argparse.Namespace) -> int:
    cases = json.loads(Path(args.cases).read_text())
    version = subprocess.run([str(CLAUDE), "--version"], capture_output=True, text=True, timeout=60,
                             env={"PATH": os.environ.get("PATH", ""), "HOME": "/nonexistent",
                                  "DISABLE_AUTOUPDATER": "1"}).stdout.strip()
    if not version.startswith(cases["version"]):
        print(f"record.py: binary says {version!r}, cases.json is for {cases['version']}", file=sys.stderr)
        return 2
    out_path = Path(args.out or HERE / f"claude-{cases['version']}.json")
    previous = json.loads(out_path.read_text()) if out_path.exists() and (args.only or args.resume) else {}
    kept = {c["name"]: c for c in previous.get("configs", [])}
    names = [c["name"] for c in cases["configs"]]
    unknown = sorted(set(args.only or []) - set(names))
    if unknown:
        print(f"record.py: --only {unknown[0]}: no such config in {CASES.name}", file=sys.stderr)
        return 2

    def write() -> None:
        results = {"version": cases["version"], "binary": version,
                   "recorded": _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d"),
                   "command": "claude -p go --output-format stream-json --verbose --permission-prompts none",
                   "configs": [kept[n] for n in names if n in kept]}
        tmp = out_path.with_suffix(".json.part")
        tmp.write_text(json.dumps(results, indent=1, ensure_ascii=False) + "\n")
        tmp.replace(out_path)

    scratch = Path(tempfile.mkdtemp(prefix="claude-record-"))
    try:
        _setup_namespace(scratch)
        standin = StandIn().start()
        for config in cases["configs"]:
            if args.only and config["name"] not in args.only:
                continue
            if args.resume and config["name"] in kept:
                continue
            print(f"recording {config['name']} ({len(config.get('calls', []))} calls)",
                  file=sys.stderr, flush=True)
            one_session = args.session and not config.get("per_call")
            record = record_session if one_session else record_config
            kept[config["name"]] = record(config, standin, scratch)
            write()  # after each config, so an interrupted run keeps what it recorded
        standin.stop()
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    print(f"wrote {out_path}", file=sys.stderr)
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", action="append",
                        help="record only this config (repeatable); the others are kept")
    parser.add_argument("--resume", action="store_true", help="skip configs already in the results file")
    parser.add_argument("--out", help="results file (default: claude-<version>.json beside cases.json)")
    parser.add_argument("--cases", default=str(CASES),
                        help="the cases file (default: cases.json beside this script)")
    parser.add_argument("--session", action="store_true",
                        help="record each config's calls in one session (configs with per_call: true "
                             "one call per session)")
    parser.add_argument("--jobs", type=int, default=1,
                        help="record in N parallel recorders (each in its own namespaces)")
    args = parser.parse_args(argv)
    if args.jobs > 1 and os.environ.get(NS_FLAG) != "1":
        return _parallel(args)
    if os.environ.get(NS_FLAG) != "1":
        return _reexec_in_namespace(argv)
    return main_in_namespace(args)


def _parallel(args: argparse.Namespace) -> int:
    """Split the configs over ``args.jobs`` recorders, then merge their results in cases order."""
    cases = json.loads(Path(args.cases).read_text())
    names = [c["name"] for c in cases["configs"]]
    out_path = Path(args.out or HERE / f"claude-{cases['version']}.json")
    previous = json.loads(out_path.read_text()) if out_path.exists() and (args.only or args.resume) else {}
    kept = {c["name"]: c for c in previous.get("configs", [])}
    todo = [n for n in names if (not args.only or n in args.only) and not (args.resume and n in kept)]
    with tempfile.TemporaryDirectory(prefix="claude-record-jobs-") as tmp:
        procs = []
        for job in range(args.jobs):
            share = todo[job::args.jobs]
            if not share:
                continue
            part = Path(tmp) / f"part{job}.json"
            cmd = [sys.executable, str(Path(__file__).resolve()), "--out", str(part)]
            cmd += ["--session"] if args.session else []
            cmd += ["--cases", args.cases]
            for name in share:
                cmd += ["--only", name]
            procs.append((part, subprocess.Popen(cmd)))
        failed = [p.wait() for _part, p in procs]
        binary = previous.get("binary")
        for part, _proc in procs:
            if part.exists():
                got = json.loads(part.read_text())
                binary = got["binary"]
                kept.update({c["name"]: c for c in got["configs"]})
    results = {"version": cases["version"], "binary": binary,
               "recorded": _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d"),
               "command": "claude -p go --output-format stream-json --verbose --permission-prompts none",
               "configs": [kept[n] for n in names if n in kept]}
    out_path.write_text(json.dumps(results, indent=1, ensure_ascii=False) + "\n")
    print(f"wrote {out_path}", file=sys.stderr)
    return max(failed, default=0)


if __name__ == "__main__":
    raise SystemExit(main())
