"""Record Codex CLI's own answers from its released binary, offline, into `codex-<version>.json`.

Run by hand when the binary is present (the test suite never runs this; it reads the records):

    .venv/bin/python tests/compat/codex/record.py              # every config in cases.json
    .venv/bin/python tests/compat/codex/record.py --only NAME   # one config; the others are kept
    CODEX_BIN=/work/agents-old/node_modules/.bin/codex .venv/bin/python tests/compat/codex/record.py

The binary's `codex --version` names the records file (`codex-0.171.0.json`); each version's records
are kept, so a re-recording with a new release is a diff of answers (the suite names those that differ).

It re-executes itself under ``unshare -n`` (a network namespace with only loopback). Two kinds of
config:

- ``policy``: rule files put to ``codex execpolicy check --rules F... [--resolve-host-executables]
  -- ARGV`` once per call; the JSON it prints (matched rules, decision) is the record, or the load
  error when the files do not load (exit 1, ``failed to parse policy at F``).
- ``layout``: a scratch HOME (``CODEX_HOME=$HOME/.codex``) and project (``git init``) with the
  user's and the project's ``config.toml`` and ``rules/*.rules``; ``codex debug prompt-input hi`` run
  in the project renders what the model is told, from which the recorder keeps ``sandbox_mode``,
  the approval policy's paragraph, the approved command prefixes (the allow rules Codex loaded, from
  every layer it read), the names of the tools offered and of those code mode's `exec` calls
  (no MCP server is started by prompt-input, so MCP tools are not among them), and from ``codex mcp
  list --json`` the MCP servers it would start (name, enabled); or the error it stopped with.
  ``global_flags`` (``--profile NAME``) go before the subcommand, ``flags`` (``-c``) after it.
- ``exec``: the user's ``rules/*.rules`` and config values (and optionally more ``home_files`` and a
  trusted or untrusted project's ``project_files``), and ``codex exec --json go`` run in a
  scratch project against a loopback stand-in for the Responses API (``_StandIn``), which answers
  with one ``exec_command`` call; what Codex gives back as the call's output says what it did: ran
  it, ran it in the sandbox (bwrap), refused it by a forbidden rule, refused it because it needs an
  approval ``codex exec`` never gives, or refused it otherwise (``outcome``); when Codex stops
  before asking the model (a rules file it cannot load), ``outcome`` is ``error`` and ``error`` what
  it printed.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
CODEX = Path(os.environ.get("CODEX_BIN", "/work/agents/node_modules/.bin/codex"))
CASES = HERE / "cases.json"
NS_FLAG = "FT_CODEX_RECORDER_IN_NS"
TIMEOUT = 90


def _expand(text: str, base: Path) -> str:
    return (text.replace("$PROJECT", str(base / "project")).replace("$HOME", str(base / "home"))
            .replace("$PYTHON", sys.executable).replace("$COMPAT", str(HERE.parent / "claude")))


def _normalise(text: str, base: Path) -> str:
    return text.replace(str(base / "project"), "$PROJECT").replace(str(base / "home"), "$HOME").replace(
        str(base), "$SCRATCH")


def _env(base: Path) -> dict[str, str]:
    home = base / "home"
    return {"PATH": os.environ["PATH"], "HOME": str(home), "CODEX_HOME": str(home / ".codex"),
            "TMPDIR": str(base / "tmp"), "LANG": "C.UTF-8", "RUST_BACKTRACE": "0"}


def _error_text(stderr: str, base: Path) -> str:
    lines = [ln for ln in stderr.splitlines() if not ln.startswith("WARNING:")]
    cut = next((i for i, ln in enumerate(lines) if ln.startswith("Stack backtrace")), len(lines))
    return _normalise("\n".join(lines[:cut]).strip(), base)


def _write(root: Path, files: dict[str, str], base: Path) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(_expand(text, base))


def record_policy(case: dict[str, Any]) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="ft-codex-") as tmp:
        base = Path(tmp)
        for d in ("home/.codex", "tmp", "rules"):
            (base / d).mkdir(parents=True, exist_ok=True)
        _write(base / "rules", case["rules"], base)
        flags = [a for name in case["rules"] for a in ("--rules", str(base / "rules" / name))]
        if case.get("resolve_host_executables"):
            flags.append("--resolve-host-executables")
        calls = []
        for argv in case["calls"]:
            proc = subprocess.run([str(CODEX), "execpolicy", "check", *flags, "--", *argv],
                                  capture_output=True, text=True, env=_env(base), timeout=TIMEOUT,
                                  cwd=base)
            entry: dict[str, Any] = {"argv": argv, "rc": proc.returncode}
            if proc.returncode == 0:
                out = json.loads(proc.stdout)
                entry["decision"] = out.get("decision")
                entry["matched"] = json.loads(_normalise(json.dumps(out["matchedRules"]), base))
            else:
                entry["decision"] = "error"
                entry["error"] = _error_text(proc.stderr, base).replace(str(base / "rules") + "/", "")
            calls.append(entry)
        return {"name": case["name"], "kind": "policy", "calls": calls}


_APPROVED = re.compile(r"The following prefix rules have already been approved: (.*?)(?:\n [A-Z]|\n</)", re.S)


def parse_permissions(text: str) -> dict[str, Any]:
    """What the recorder keeps of the `<permissions instructions>` block."""
    sandbox = re.search(r"`sandbox_mode` is `([a-z-]+)`", text)
    approved = _APPROVED.search(text)
    prefixes = [json.loads(ln.lstrip("- ").strip()) for ln in approved.group(1).splitlines()
                if ln.strip()] if approved else []
    lines = text.splitlines()
    return {"sandbox_mode": sandbox.group(1) if sandbox else None,
            "approval_text": lines[2] if len(lines) > 2 else None,
            "approved_prefixes": prefixes}


def record_layout(case: dict[str, Any]) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="ft-codex-") as tmp:
        base = Path(tmp)
        project, home = base / "project", base / "home"
        for d in (project, home / ".codex", base / "tmp"):
            d.mkdir(parents=True, exist_ok=True)
        if case.get("git", True):
            subprocess.run(["git", "init", "-q", str(project)], check=True)
        _write(home, case.get("home_files", {}), base)
        _write(project, case.get("project_files", {}), base)
        cwd = project / case.get("cwd", ".")
        cwd.mkdir(parents=True, exist_ok=True)
        proc = subprocess.run([str(CODEX), *case.get("global_flags", []), "debug", "prompt-input", "hi",
                               *case.get("flags", [])], capture_output=True, text=True, env=_env(base),
                              timeout=TIMEOUT, cwd=cwd)
        out: dict[str, Any] = {"name": case["name"], "kind": "layout", "rc": proc.returncode}
        if proc.returncode != 0:
            out["error"] = _error_text(proc.stderr, base)
            return out
        items = json.loads(proc.stdout)
        tools: list[str] = []
        nested: list[str] = []
        for item in items:
            for group in item.get("tools", []) or []:
                for tool in group.get("tools", [group]):
                    tools.append(tool["name"])
                    if tool["name"] == "exec":  # code mode: the tools it calls are listed in its text
                        nested.extend(re.findall(r"^### `([^`]+)`", tool.get("description", ""), re.M))
            for content in item.get("content", []) or []:
                text = content.get("text", "")
                if text.startswith("<permissions instructions>"):
                    out.update(parse_permissions(_normalise(text, base)))
        out["tools"] = sorted(set(tools))
        out["nested_tools"] = sorted(set(nested))
        servers = subprocess.run([str(CODEX), *case.get("global_flags", []), "mcp", "list", "--json",
                                  *case.get("flags", [])],
                                 capture_output=True, text=True, env=_env(base), timeout=TIMEOUT, cwd=cwd)
        if servers.returncode == 0:
            out["mcp_servers"] = [{"name": s["name"], "enabled": s["enabled"]}
                                  for s in json.loads(servers.stdout)]
        return out


class _StandIn:
    """A loopback stand-in for the Responses API: the first request of a session is answered with
    one `exec_command` function call per item of `calls` (ids `call_0`, `call_1`, ...), the next with
    a message; Codex's answer to each call (its `function_call_output`) is kept in `outputs` by id."""

    def __init__(self) -> None:
        import http.server
        import threading

        stand_in = self
        self.calls: list[dict[str, Any]] = []
        self.outputs: dict[str, str] = {}

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))))
                done = [i for i in body.get("input", []) if i.get("type") == "function_call_output"]
                stand_in.outputs.update({str(i.get("call_id")): str(i.get("output")) for i in done})
                items = ([{"type": "message", "id": "msg_1", "role": "assistant",
                           "content": [{"type": "output_text", "text": "done"}]}] if done else
                         [{"type": "function_call", "id": f"fc_{n}", "call_id": f"call_{n}",
                           "name": "exec_command", "arguments": json.dumps(call)}
                          for n, call in enumerate(stand_in.calls)])
                rid = f"resp_{len(done)}"
                usage = {"input_tokens": 1, "output_tokens": 1, "total_tokens": 2}
                events = [{"type": "response.created", "response": {"id": rid}},
                          *({"type": "response.output_item.done", "item": item} for item in items),
                          {"type": "response.completed", "response": {"id": rid, "usage": usage}}]
                data = "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events).encode()
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"


def outcome(output: str) -> str:
    """What Codex did with the call, from the text the model is given back (a forbidden rule's
    `justification` is said instead of "policy forbids commands ...")."""
    if "rm -f style commands are not permitted" in output:
        return "rejected"
    if "approval required by policy" in output:
        return "approval-required"
    if "policy forbids commands" in output or "rejected:" in output:
        return "forbidden"
    if "Rejected(" in output:
        return "rejected"
    if "Read-only file system" in output or "bwrap:" in output:  # the sandbox showed itself
        return "sandboxed"
    return "ran"  # run, in the sandbox or not (only a write it refused tells)


def run_exec(case: dict[str, Any], calls: list[dict[str, Any]], stand_in: _StandIn, base: Path,
             timeout: float = TIMEOUT) -> subprocess.CompletedProcess[str]:
    """One `codex exec` session in a scratch HOME and project below `base` (the case's user rules,
    config, home and project files) whose stand-in model asks for `calls` at once; Codex's answers
    are then in `stand_in.outputs` (`call_0`, `call_1`, ...)."""
    project, home = base / "project", base / "home"
    for d in (project, home / ".codex", base / "tmp"):
        d.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    _write(home / ".codex" / "rules", case["rules"], base)
    _write(home, case.get("home_files", {}), base)
    _write(project, case.get("project_files", {}), base)
    (home / ".codex" / "config.toml").write_text(
        'model = "gpt-5"\nmodel_provider = "standin"\n' + _expand(case.get("config", ""), base)
        + f'\n[model_providers.standin]\nname = "standin"\nbase_url = "{stand_in.url}"\n'
        'wire_api = "responses"\nenv_key = "FT_STANDIN_KEY"\nrequest_max_retries = 0\n'
        'stream_max_retries = 0\n')
    stand_in.calls, stand_in.outputs = list(calls), {}
    env = dict(_env(base), FT_STANDIN_KEY="placeholder")
    argv = [str(CODEX), *case.get("global_flags", []), "exec", *case.get("exec_flags", []), "--json", "go"]
    return subprocess.run(argv, capture_output=True, text=True, env=env, timeout=timeout, cwd=project)


def record_exec(case: dict[str, Any], stand_in: _StandIn) -> dict[str, Any]:
    calls = []
    for call in case["calls"]:
        with tempfile.TemporaryDirectory(prefix="ft-codex-") as tmp:
            base = Path(tmp)
            proc = run_exec(case, [dict(call)], stand_in, base)
            said = stand_in.outputs.get("call_0")
            output = _normalise(said, base) if said is not None else ""
            entry = {"call": call, "outcome": outcome(output) if stand_in.outputs else "error",
                     "output": output[:400], "rc": proc.returncode}
            if not stand_in.outputs:
                entry["error"] = _error_text(proc.stderr, base)[:400]
            calls.append(entry)
    return {"name": case["name"], "kind": "exec", "calls": calls}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--only", action="append", default=[])
    args = parser.parse_args(argv)
    if os.environ.get(NS_FLAG) != "1":
        env = dict(os.environ, **{NS_FLAG: "1"})
        return subprocess.call(["unshare", "-n", sys.executable, str(Path(__file__).resolve()), *argv],
                               env=env)
    subprocess.run(["ip", "link", "set", "lo", "up"], check=False)
    cases = json.loads(CASES.read_text())
    version = subprocess.run([str(CODEX), "--version"], capture_output=True, text=True).stdout.strip()
    if not version.startswith("codex-cli "):
        print(f"refusing: {CODEX} --version says {version!r}", file=sys.stderr)
        return 2
    number = version.removeprefix("codex-cli ")
    records = HERE / f"codex-{number}.json"
    old = json.loads(records.read_text()) if records.is_file() else {"configs": []}
    kept = {c["name"]: c for c in old["configs"]}
    stand_in = _StandIn()
    for case in cases["configs"]:
        if args.only and case["name"] not in args.only:
            continue
        if case["kind"] == "exec":
            kept[case["name"]] = record_exec(case, stand_in)
        else:
            kept[case["name"]] = (record_policy if case["kind"] == "policy" else record_layout)(case)
        print(case["name"], file=sys.stderr)
    order = [c["name"] for c in cases["configs"]]
    out = {"version": number, "binary": version,
           "recorded": _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d"),
           "configs": [kept[n] for n in order if n in kept]}
    records.write_text(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
