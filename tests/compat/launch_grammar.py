"""Record which start command lines each agent's binary accepts and which it refuses (and with what
message), for forge-tools' launch grammars (`forge_tools/runtimes/<agent>/launch.py`, `--launch`).

Run by hand (the suite never runs this; tests/compat/test_launch_records.py replays the records):

    .venv/bin/python tests/compat/launch_grammar.py                 # claude, codex and gemini
    .venv/bin/python tests/compat/launch_grammar.py --only codex

The command lines are generated (seed 28) from each agent's flags: every modelled flag alone with each
of its values, a value outside its choices, a missing value, `--flag=value`, flags in pairs, flags in
the wrong place (`codex exec -a never`), flags the agent does not have, and flags it has whose effect
forge-tools does not model. Each runs under `unshare -n` (loopback only) with a scratch HOME, no
credentials, and a 20 s timeout, nothing else on PATH but the system and the agent:

- Codex CLI: `codex ARGV --help` (clap checks every flag and value before it prints the help: exit 0
  is accepted, exit 2 with `error: ...` refused).
- Claude Code: `claude ARGV` with the prompt `hi` and `ANTHROPIC_BASE_URL` at a closed loopback port: a
  refused line says `error: ...` (commander) at once; an accepted one gets as far as the API (and is
  cut off after 12 s while it retries).
- Gemini CLI: `gemini ARGV` with `GEMINI_API_KEY` unset: a refused line prints the yargs usage and
  the reason; an accepted one gets as far as the auth check or the prompt.

Each record is `{"argv", "accepted", "message"}` (the binary's first line of complaint when refused),
in `tests/compat/<agent>/launch-grammar-<version>.json`.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
BIN = Path(os.environ.get("AGENTS_BIN", "/work/agents/node_modules/.bin"))
NS_FLAG = "FT_LAUNCH_RECORDER_IN_NS"
TIMEOUT = 20
#: commander refuses a bad line before anything else (within a second or two); an accepted one goes on
#: to the API, which it retries: cut off after this long and counted as accepted
CLAUDE_TIMEOUT = 12

#: per agent: (flag, valid values or None for a switch, an invalid value or None)
FLAGS: dict[str, list[tuple[str, list[str] | None, str | None]]] = {
    "claude": [
        ("--permission-mode", ["acceptEdits", "auto", "bypassPermissions", "manual", "dontAsk", "plan",
                               "default"], "bogus"),
        ("--add-dir", ["../lib"], None), ("--allowedTools", ["Bash(git add:*),Edit"], None),
        ("--allowed-tools", ["Read"], None), ("--disallowedTools", ["WebFetch"], None),
        ("--disallowed-tools", ["Bash(rm:*)"], None), ("--settings", ['{"permissions":{}}'], None),
        ("--setting-sources", ["user,local", "project"], None),
        ("--dangerously-skip-permissions", None, None), ("--permission-prompts", ["none", "host"], "bogus"),
        ("--model", ["sonnet"], None), ("--output-format", ["json", "stream-json"], "bogus"),
        ("--verbose", None, None),
    ],
    "codex": [
        ("-a", ["on-request", "never"], "untrusted"), ("--ask-for-approval", ["never"], "on-failure"),
        ("-s", ["read-only", "workspace-write", "danger-full-access"], "bogus"),
        ("--sandbox", ["workspace-write"], "full"),
        ("--dangerously-bypass-approvals-and-sandbox", None, None),
        ("-c", ['approval_policy="never"', "sandbox_mode=read-only"], None),
        ("-p", ["ci"], None), ("--profile", ["ci"], None), ("--enable", ["web_search"], None),
        ("--disable", ["web_search"], None), ("-m", ["o3"], None), ("--strict-config", None, None),
    ],
    "gemini": [
        ("-p", ["hi"], None), ("--prompt", ["hi"], None), ("-i", ["hi"], None),
        ("--approval-mode", ["default", "auto_edit", "yolo", "plan"], "auto-edit"),
        ("-y", None, None), ("--yolo", None, None), ("--skip-trust", None, None),
        ("-m", ["gemini-2.5-pro"], None), ("-o", ["json", "text"], "xml"), ("-d", None, None),
    ],
}
#: flags the agents do not have (forge-tools must refuse them too)
UNKNOWN = {"claude": ["--bogus", "--full-auto", "-y", "--approval-mode"],
           "codex": ["--bogus", "--full-auto", "--yolo", "--permission-mode"],
           "gemini": ["--bogus", "--permission-mode", "--full-auto", "-a"]}
#: flags the agents have whose effect forge-tools does not model (accepted by the binary)
NOT_MODELLED = {"claude": [["--tools", "Bash"], ["--mcp-config", "{}"], ["--strict-mcp-config"]],
                "codex": [["--approve-for-me"], ["-C", "."], ["--add-dir", "/tmp"]],
                "gemini": [["--policy", "p.toml"], ["--allowed-tools", "x"], ["--include-directories", "."]]}


def cases(agent: str) -> list[list[str]]:
    """The generated command lines (without the program name) for `agent`."""
    rng = random.Random(28)
    flags = FLAGS[agent]
    lead = {"claude": ["-p"], "codex": [], "gemini": []}[agent]
    out: list[list[str]] = []
    for flag, values, bad in flags:
        for value in values or [None]:
            out.append([*lead, flag] + ([value] if value is not None else []))
            if value is not None and flag.startswith("--"):
                out.append([*lead, f"{flag}={value}"])
        if bad is not None:
            out.append([*lead, flag, bad])
        if values is not None and agent != "claude":  # commander takes the prompt as a missing value
            out.append([*lead, flag])
    for _ in range(25):
        (f1, v1, _b1), (f2, v2, _b2) = rng.sample(flags, 2)
        line = [*lead, f1] + ([rng.choice(v1)] if v1 else []) + [f2] + ([rng.choice(v2)] if v2 else [])
        out.append(line)
    out += [[*lead, u] for u in UNKNOWN[agent]]
    out += [[*lead, *n] for n in NOT_MODELLED[agent]]
    if agent == "codex":
        out += [["exec"], ["e"], ["exec", "-a", "never"], ["-a", "never", "exec"],
                ["exec", "-s", "workspace-write"], ["exec", "--full-auto"],
                ["-s", "read-only", "exec", "-p", "ci"],
                ["exec", "--dangerously-bypass-approvals-and-sandbox"], ["exec", "--json", "-o", "out.txt"],
                ["exec", "--skip-git-repo-check", "--ephemeral"], ["exec", "--bogus"]]
    if agent == "gemini":
        out += [["-y", "--approval-mode", "plan"], ["-p", "hi", "-i", "hi"],
                ["-p", "hi", "--approval-mode=plan"]]
    if agent == "claude":
        out += [["-p", "--dangerously-skip-permissions", "--permission-mode", "plan"],
                ["-p", "--add-dir", "a", "b", "--model", "sonnet"]]
    seen: set[tuple[str, ...]] = set()
    return [c for c in out if not (tuple(c) in seen or seen.add(tuple(c)))]


def _env(home: Path) -> dict[str, str]:
    return {"PATH": f"/usr/bin:/bin:{BIN}", "HOME": str(home), "NO_COLOR": "1", "TERM": "dumb",
            "DISABLE_AUTOUPDATER": "1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "ANTHROPIC_BASE_URL": "http://127.0.0.1:9", "ANTHROPIC_API_KEY": "placeholder",
            "TMPDIR": str(home)}


def run(agent: str, argv: list[str], scratch: Path) -> dict[str, Any]:
    home = scratch / "home"
    shutil.rmtree(home, ignore_errors=True)
    home.mkdir(parents=True)
    project = scratch / "project"
    project.mkdir(exist_ok=True)
    if not (project / ".git").exists():
        subprocess.run(["git", "init", "-q", str(project)], check=True)
    cmd = [str(BIN / agent), *argv]
    if agent == "codex":
        cmd.append("--help")
    elif agent == "claude":
        cmd.append("hi")
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, env=_env(home), cwd=project,
                              timeout=CLAUDE_TIMEOUT if agent == "claude" else TIMEOUT,
                              stdin=subprocess.DEVNULL)
        out, rc = proc.stdout + "\n" + proc.stderr, proc.returncode
    except subprocess.TimeoutExpired as e:
        out, rc = (str(e.stdout or "") + str(e.stderr or "")), None
    lines = [ln.strip() for ln in out.splitlines() if ln.strip() and not ln.startswith("WARNING: proceeding")]
    if agent == "codex":
        refused = rc != 0
        message = next((ln for ln in lines if ln.startswith("error:")), None)
    elif agent == "claude":
        message = next((ln for ln in lines if ln.startswith("error:")), None)
        refused = message is not None
    else:
        refused = any(ln.startswith("Usage: gemini") for ln in lines)
        said = [ln for ln in lines if not ln.startswith(("Usage:", "Gemini CLI -"))]
        message = said[0] if refused and said else None
    return {"argv": argv, "accepted": not refused, "message": message if refused else None}


def record(agent: str) -> Path:
    version = subprocess.run([str(BIN / agent), "--version"], capture_output=True, text=True,
                             env=_env(Path(tempfile.mkdtemp())), timeout=60).stdout.strip()
    number = version.split()[-1] if agent == "codex" else version.split()[0]
    with tempfile.TemporaryDirectory(prefix=f"ft-launch-{agent}-") as tmp:
        records = []
        for argv in cases(agent):
            records.append(run(agent, argv, Path(tmp)))
            print(agent, argv, records[-1]["accepted"], file=sys.stderr, flush=True)
    path = HERE / agent / f"launch-grammar-{number}.json"
    payload = {"agent": agent, "version": number, "binary": version,
               "recorded": _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d"), "records": records}
    path.write_text(json.dumps(payload, indent=1, ensure_ascii=False) + "\n")
    return path


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", action="append", choices=tuple(FLAGS))
    args = parser.parse_args(argv)
    if os.environ.get(NS_FLAG) != "1":
        env = dict(os.environ, **{NS_FLAG: "1"})
        me = str(Path(__file__).resolve())
        return subprocess.call(["unshare", "-rn", sys.executable, me, *argv], env=env)
    for agent in args.only or FLAGS:
        print(f"wrote {record(agent)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
