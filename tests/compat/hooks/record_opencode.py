"""Record `forge-tools hook` inside the real opencode binary, offline (issue 32 "Done when" 1).

Run by hand, never by the test suite: `nice -n 10 python tests/compat/hooks/record_opencode.py`
(OPENCODE_BIN; default /work/agents/node_modules/.bin/opencode). Re-executes itself under `unshare -n`;
per call one `opencode run --format json go` in a scratch project whose opencode.json allows every
bash command but `rm *` and points the `openai` provider at a loopback Responses API stand-in that
makes one `bash` call, with the shim plugin installed by `forge-tools hook install --runtime opencode`.
Writes `opencode-<version>.json`: per call, whether its effect was observed and the hook's audit line.
`--failures`: only the allowed call, once per way the hook the shim runs is made to fail
(`failures.py`), merged into the record as `failures`. `--sandbox`: the shim installed with
`--sandbox`, one allowed call (`make`) writing into `work/` and into `.opencode/`; merged as `sandbox`.
`--asks`: a call opencode's own defaults ask about (`external_directory`: a file outside the project)
and the allowed one, without the shim and with it: the hook gives no decision (the shim's clear
allow), so opencode still asks (`opencode run` has nobody to ask: "permission requested ...;
auto-rejecting", nothing made); merged as `asks`.
"""

from __future__ import annotations

import http.server
import json
import os
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.append(str(HERE))  # failures.py
OPENCODE = Path(os.environ.get("OPENCODE_BIN", "/work/agents/node_modules/.bin/opencode"))
NS_FLAG = "FT_HOOK_OPENCODE_RECORDER_IN_NS"
FORGE = Path(sys.executable).with_name("forge-tools")
SPELLINGS = ["/bin/rm victim.txt", "env rm victim.txt", "bash -c 'rm victim.txt'"]
ALLOWED = "touch victim-kept.txt"
# the gate asks about a write into `.opencode/` it can see, so the write is `make`'s: only the sandbox
# can hold that one
SANDBOXED = "make"
#: `--asks`: a call opencode's own defaults ask about (a path outside the project:
#: `external_directory`), by the file it makes under the scratch folder
ASKED = {"touch ../outside/asked.txt": "outside/asked.txt"}
MAKEFILE = "all:\n\ttouch work/kept.txt\n\ttouch .opencode/probe\n"


class StandIn:
    """The Responses API: the first request of a run gets one `bash` function call, the next a text."""

    def __init__(self) -> None:
        stand_in = self
        self.command = ""
        self.outputs: list[str] = []

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))))
                done = [i for i in body.get("input", []) if i.get("type") == "function_call_output"]
                stand_in.outputs += [str(i.get("output")) for i in done]
                item = ({"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
                         "content": [{"type": "output_text", "text": "done", "annotations": []}]} if done else
                        {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "bash",
                         "status": "completed",
                         "arguments": json.dumps({"command": stand_in.command, "description": "step"})})
                rid = f"resp_{len(done)}"
                usage = {"input_tokens": 1, "output_tokens": 1, "total_tokens": 2}
                events = [{"type": "response.created", "response": {"id": rid, "output": []}},
                          {"type": "response.output_item.added", "output_index": 0, "item": item},
                          {"type": "response.output_item.done", "output_index": 0, "item": item},
                          {"type": "response.completed",
                           "response": {"id": rid, "usage": usage, "output": [item], "status": "completed"}}]
                data = "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events).encode()
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"


def main() -> int:
    from failures import in_own_network  # type: ignore[import-not-found]

    code = in_own_network(str(Path(__file__).resolve()), NS_FLAG)
    if code is not None:
        return code
    version = subprocess.run([str(OPENCODE), "--version"], capture_output=True, text=True).stdout.strip()
    stand_in = StandIn()
    if "--failures" in sys.argv:
        from failures import FAILURES, merge_record, shown  # type: ignore[import-not-found]

        found = {name: {**_one(stand_in, ALLOWED, how), "hook_command": shown(how, "opencode")}
                 for name, how in FAILURES.items()}
        merge_record(HERE / f"opencode-{version}.json", "failures", found)
        return 0
    if "--asks" in sys.argv:
        from failures import merge_record  # type: ignore[import-not-found]

        runs: dict[str, Any] = {"permission": {"bash": {"*": "allow", "rm *": "deny"}}}
        for label, hook in (("without_hook", False), ("with_hook", True)):
            runs[label] = [{**_one(stand_in, command, hook=hook), "asked": command in ASKED}
                           for command in [*ASKED, ALLOWED]]
        merge_record(HERE / f"opencode-{version}.json", "asks", runs)
        return 0
    if "--sandbox" in sys.argv:
        from failures import merge_record  # type: ignore[import-not-found]

        call = _one(stand_in, SANDBOXED, sandbox=True)
        print(call)
        merge_record(HERE / f"opencode-{version}.json", "sandbox", call)
        return 0
    calls = [_one(stand_in, command) for command in [*SPELLINGS, ALLOWED]]
    out = HERE / f"opencode-{version}.json"
    out.write_text(json.dumps({"agent": "opencode", "version": version, "how": (
        "opencode run --format json go, unshare -n, a Responses API stand-in through the openai provider; "
        "the shim installed by forge-tools hook install --runtime opencode"),
        "permission": {"bash": {"*": "allow", "rm *": "deny"}}, "calls": calls}, indent=2) + "\n")
    print(f"wrote {out}")
    return 0


def _one(stand_in: StandIn, command: str, how: str | None = None, sandbox: bool = False,
         hook: bool = True) -> dict[str, Any]:
    """One `opencode run` making the call `command`, with the shim installed (`how`: the command it
    runs made to fail that way, `failures.py`; `hook` False: without it)."""
    with tempfile.TemporaryDirectory(prefix="ft-hook-oc-") as tmp:
        base = Path(tmp)
        project, home = base / "project", base / "home"
        for d in (project, home):
            d.mkdir(parents=True, exist_ok=True)
        subprocess.run(["git", "init", "-q", str(project)], check=True)
        (project / "opencode.json").write_text(json.dumps({
            "model": "openai/gpt-5",
            "provider": {"openai": {"options": {"baseURL": stand_in.url, "apiKey": "placeholder"}}},
            "permission": {"bash": {"*": "allow", "rm *": "deny"}}}, indent=2))
        (project / "victim.txt").write_text("keep me\n")
        env = {"PATH": os.environ["PATH"], "HOME": str(home), "NO_COLOR": "1",
               "OPENCODE_DISABLE_AUTOUPDATE": "1", "FORGE_DATA_DIR": str(base / "data"),
               "XDG_CONFIG_HOME": str(home / ".config"), "OPENAI_API_KEY": "placeholder"}
        if hook:
            subprocess.run([str(FORGE), "hook", "install", "--runtime", "opencode",
                            *(["--sandbox"] if sandbox else [])], cwd=project, env=env, check=True,
                           capture_output=True)
        (base / "outside").mkdir()
        (project / "work").mkdir(exist_ok=True)
        (project / "Makefile").write_text(MAKEFILE)
        if how is not None:  # the shim runs `sh -c` with the hook made to fail
            import shlex

            from failures import failing  # type: ignore[import-not-found]

            plugin = project / ".opencode" / "plugins" / "forge-tools.js"
            text = plugin.read_text()
            line = next(x for x in text.splitlines() if x.startswith("const COMMAND = "))
            argv = json.loads(line.removeprefix("const COMMAND = "))
            plugin.write_text(text.replace(line, "const COMMAND = " + json.dumps(
                ["sh", "-c", failing(how, shlex.join(argv))])))
        stand_in.command, stand_in.outputs = command, []
        proc = subprocess.run([str(OPENCODE), "run", "--format", "json", "go"], capture_output=True,
                              text=True, env=env, timeout=400, cwd=project)
        ran = ((base / ASKED[command]).exists() if command in ASKED
               else (project / "victim-kept.txt").exists() if command == ALLOWED
               else (project / "work" / "kept.txt").exists() if command == SANDBOXED
               else not (project / "victim.txt").exists())
        audit = base / "data" / "hook-audit.jsonl"
        lines = [json.loads(x) for x in audit.read_text().splitlines()] if audit.exists() else []
        output = stand_in.outputs[0] if stand_in.outputs else None
        import re

        shown = [re.sub(r"\x1b\[[0-9;]*m", "", x).replace(str(base), "$SCRATCH").strip()
                 for x in proc.stderr.splitlines() if "permission requested" in x]
        said = {"command": command, "ran": ran, "rc": proc.returncode,
                "asked_line": shown[0] if shown else None,
                "config_written": (project / ".opencode" / "probe").exists(),
                "output": output.replace(str(base), "$SCRATCH")[:400] if output else None,
                "audit": [{"tool": a.get("tool"), "subject": a.get("subject"), "action": a.get("action"),
                           **{k: a[k] for k in ("error", "sandbox", "agent_allows") if k in a}}
                          for a in lines]}
        print(command, "ran" if ran else "did not run", [a.get("action") for a in lines],
              (output or proc.stderr[-300:])[:200], file=sys.stderr)
    return said


if __name__ == "__main__":
    sys.exit(main())
