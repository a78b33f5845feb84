"""Record `forge-tools hook` inside the real Gemini CLI binary, offline (issue 32 "Done when").

Run by hand, never by the test suite: `nice -n 10 python tests/compat/hooks/record_gemini.py`
(GEMINI_BIN names the binary; default /work/agents/node_modules/.bin/gemini). Re-executes itself under
`unshare -n` (only loopback); per call one `gemini -p go --approval-mode yolo` in a scratch project
whose `.gemini/settings.json` excludes `run_shell_command(rm)`, pointed by `GOOGLE_GEMINI_BASE_URL` at
a loopback Gemini API stand-in that makes one `run_shell_command` call and then answers with text.

- `without_hook`: FT116's spellings of the denied `rm` and one allowed call, with no hook: what Gemini's
  own reading lets run.
- `with_hook`: the same calls with the hook installed by `forge-tools hook install --runtime gemini`.
- `sandbox`: with `--sandbox`, an allowed call writing into `work/` and into `.gemini/`: the rewrite
  (`hookSpecificOutput.tool_input`, without a decision where Gemini itself would ask) ran it inside
  `run`'s sandbox, so the first write happened and the second did not.
- `failures`: the allowed call again with the hook entry's command made to fail in each way the hook
  must still deny (a forced internal error, garbage on its stdin, a truncated payload, its deadline
  passed): each must leave the call unrun.
- `asks` (`--asks`): under Gemini's default approval mode, with a user policy allowing only the allowed
  call (`ASK_POLICY`), a call Gemini itself asks about and the allowed one, without the hook and with
  it: the hook gives no decision, so Gemini's own answer stands (`gemini -p` has nobody to ask: "denied
  by policy", nothing made) and the allowed call runs.

Writes `gemini-<version>.json`: per call, whether its effect was observed, what the model was given
back as the call's result, and the hook's audit lines (never the environment: Gemini hands hooks its
API key, here a placeholder).
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
sys.path.insert(0, str(HERE))
from failures import FAILURES, failing, shown  # type: ignore[import-not-found]  # noqa: E402

GEMINI = Path(os.environ.get("GEMINI_BIN", "/work/agents/node_modules/.bin/gemini"))
NS_FLAG = "FT_HOOK_GEMINI_RECORDER_IN_NS"
FORGE = Path(sys.executable).with_name("forge-tools")
SETTINGS = {"tools": {"exclude": ["run_shell_command(rm)"]}}
SPELLINGS = ["rm victim.txt", "/bin/rm victim.txt", "command rm victim.txt", "env rm victim.txt",
             "bash -c 'rm victim.txt'", "\\rm victim.txt", "time rm victim.txt", "nice rm victim.txt",
             "eval rm victim.txt", "echo victim.txt | xargs rm"]
ALLOWED = "touch victim-kept.txt"
#: `--sandbox`: an allowed call that writes where the rules leave writable and into Gemini's config
SANDBOXED = "touch work/kept.txt; touch .gemini/probe"
#: `--asks`: a shell call Gemini's default approval mode asks about, by the file it makes
ASKED = {"touch asked.txt": "asked.txt"}
ASK_POLICY = ('[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = "touch victim-kept.txt"\n'
              'decision = "allow"\npriority = 500\n')


class StandIn:
    """The Gemini API's `streamGenerateContent` (and `generateContent`, `countTokens`): the first turn of
    a run gets one `run_shell_command` function call, a turn holding its functionResponse gets text."""

    def __init__(self) -> None:
        stand_in = self
        self.command = ""
        self.results: list[Any] = []

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def reply(self, data: bytes, kind: str = "application/json") -> None:
                self.send_response(200)
                self.send_header("content-type", kind)
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                self.reply(b'{"models": []}')

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))) or b"{}")
                if ":countTokens" in self.path:
                    return self.reply(b'{"totalTokens": 1}')
                responses = [p["functionResponse"] for c in body.get("contents", [])
                             for p in c.get("parts", []) if "functionResponse" in p]
                usage = {"promptTokenCount": 1, "candidatesTokenCount": 1, "totalTokenCount": 2}
                if ":streamGenerateContent" not in self.path:  # a side request (routing, checks): text
                    text = {"candidates": [{"content": {"role": "model", "parts": [{"text": "{}"}]},
                                            "finishReason": "STOP"}], "usageMetadata": usage}
                    return self.reply(json.dumps(text).encode())
                if responses:
                    stand_in.results += [r.get("response") for r in responses]
                    part: dict[str, Any] = {"text": "done"}
                else:
                    part = {"functionCall": {"name": "run_shell_command",
                                             "args": {"command": stand_in.command, "description": "step"}}}
                chunk = {"candidates": [{"content": {"role": "model", "parts": [part]},
                                         "finishReason": "STOP", "index": 0}], "usageMetadata": usage}
                self.reply(f"data: {json.dumps(chunk)}\r\n\r\n".encode(), "text/event-stream")

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"


def one_run(stand_in: StandIn, command: str, hook: str | None, approval: str = "yolo",
            settings: dict[str, Any] | None = None, policy: str | None = None) -> dict[str, Any]:
    """One `gemini -p` run making the call `command`; `hook`: the installed entry's command (None: no
    hook; "" : as `hook install` writes it); `approval`: Gemini's `--approval-mode`; `settings`: the
    project's (default SETTINGS); `policy`: a user policy file's text."""
    with tempfile.TemporaryDirectory(prefix="ft-hook-gemini-") as tmp:
        base = Path(tmp)
        project, home = base / "project", base / "home"
        for d in (project / ".gemini", home / ".gemini"):
            d.mkdir(parents=True, exist_ok=True)
        subprocess.run(["git", "init", "-q", str(project)], check=True)
        (project / ".gemini" / "settings.json").write_text(json.dumps(settings or SETTINGS, indent=2) + "\n")
        (home / ".gemini" / "settings.json").write_text(json.dumps(
            {"security": {"auth": {"selectedType": "gemini-api-key"}}, "general": {"disableAutoUpdate": True},
             "privacy": {"usageStatisticsEnabled": False}}) + "\n")
        if policy is not None:
            (home / ".gemini" / "policies").mkdir()
            (home / ".gemini" / "policies" / "user.toml").write_text(policy)
        (project / "victim.txt").write_text("keep me\n")
        (project / "work").mkdir()
        env = {"PATH": os.environ["PATH"], "HOME": str(home), "NO_COLOR": "1", "TERM": "dumb",
               "FORGE_DATA_DIR": str(base / "data"), "GEMINI_API_KEY": "placeholder",
               "GOOGLE_GEMINI_BASE_URL": stand_in.url, "GEMINI_CLI_NO_RELAUNCH": "true",
               "GEMINI_CLI_TRUST_WORKSPACE": "true"}  # the folder trusted: its settings are read
        if hook is not None:
            subprocess.run([str(FORGE), "hook", "install", "--runtime", "gemini"], cwd=project, env=env,
                           check=True, capture_output=True)
            if hook:
                settings = project / ".gemini" / "settings.json"
                data = json.loads(settings.read_text())
                entry = data["hooks"]["BeforeTool"][0]["hooks"][0]
                entry["command"] = failing(hook, entry["command"])
                settings.write_text(json.dumps(data, indent=2) + "\n")
        stand_in.command, stand_in.results = command, []
        proc = subprocess.run([str(GEMINI), "-p", "go", "--approval-mode", approval,
                               "--output-format", "json"],
                              capture_output=True, text=True, env=env, timeout=300, cwd=project)
        ran = ((project / ASKED[command]).exists() if command in ASKED
               else (project / "victim-kept.txt").exists() if command == ALLOWED
               else (project / "work" / "kept.txt").exists() if command == SANDBOXED
               else not (project / "victim.txt").exists())
        audit = base / "data" / "hook-audit.jsonl"
        lines = [json.loads(x) for x in audit.read_text().splitlines()] if audit.exists() else []
        result = json.dumps(stand_in.results[0]) if stand_in.results else None
        said = {"command": command, "ran": ran, "rc": proc.returncode,
                "result": result.replace(str(base), "$SCRATCH")[:600] if result else None,
                "config_written": (project / ".gemini" / "probe").exists(),
                "audit": [{"tool": a.get("tool"), "subject": a.get("subject"), "action": a.get("action"),
                           "error": a.get("error"), "sandbox": a.get("sandbox"),
                           "agent_allows": a.get("agent_allows")} for a in lines]}
        print(command, hook, "ran" if ran else "did not run", [a.get("action") for a in lines],
              (result or proc.stderr[-400:])[:300], file=sys.stderr)
        return said


def main() -> int:
    from failures import in_own_network  # type: ignore[import-not-found]

    code = in_own_network(str(Path(__file__).resolve()), NS_FLAG)
    if code is not None:
        return code
    version = subprocess.run([str(GEMINI), "--version"], capture_output=True, text=True).stdout.strip()
    stand_in = StandIn()
    out = HERE / f"gemini-{version}.json"
    if sys.argv[1:] == ["--asks"]:
        from failures import merge_record  # type: ignore[import-not-found]

        runs: dict[str, Any] = {"approval_mode": "default", "policy": ASK_POLICY, "settings": SETTINGS}
        for label, hook in (("without_hook", None), ("with_hook", "")):
            runs[label] = [{**one_run(stand_in, command, hook, "default", policy=ASK_POLICY),
                            "asked": command in ASKED} for command in [*ASKED, ALLOWED]]
        merge_record(out, "asks", runs)
        return 0
    if sys.argv[1:] == ["--sandbox"]:  # the sandbox run alone, merged into the record
        from failures import merge_record  # type: ignore[import-not-found]

        merge_record(out, "sandbox", one_run(stand_in, SANDBOXED, "{hook} --sandbox"))
        return 0
    only = sys.argv[1:]  # a quick try: the commands to run (with the hook; `--sandbox` first: sandboxed)
    # (`--sandbox` alone: re-record the record's `sandbox` run)
    if only:
        how = "{hook} --sandbox" if only[0] == "--sandbox" else ""
        for command in only[1:] if how else only:
            print(one_run(stand_in, command, how), file=sys.stderr)
        return 0
    record = {"agent": "gemini", "version": version, "how": (
        "gemini -p go --approval-mode yolo --output-format json, unshare -n, a Gemini API stand-in on "
        "127.0.0.1 through GOOGLE_GEMINI_BASE_URL; the hook installed by forge-tools hook install "
        "--runtime gemini (project scope)"), "settings": SETTINGS,
        "without_hook": [one_run(stand_in, c, None) for c in [*SPELLINGS, ALLOWED]],
        "with_hook": [one_run(stand_in, c, "") for c in [*SPELLINGS, ALLOWED]],
        "failures": {name: {**one_run(stand_in, ALLOWED, how), "hook_command": shown(how, "gemini")}
                     for name, how in FAILURES.items()},
        "sandbox": one_run(stand_in, SANDBOXED, "{hook} --sandbox")}
    out.write_text(json.dumps(record, indent=2) + "\n")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
