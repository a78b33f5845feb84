"""A generated differential corpus for Gemini CLI 0.61: a small grammar of settings, policy TOML
tiers, modes, trust and calls, asked of the released library and CLI settings loader offline
(record.py's `record_case`: oracle.mjs under `unshare -n -m`), stored compactly in
`corpus-0.61.0.json`; the suite replays it with no Node (tests/compat/test_gemini_corpus.py).

    GEMINI_CLI=/work/agents/node_modules/@google/gemini-cli .venv/bin/python tests/compat/gemini/corpus.py

Each config is a case in cases.json's form (generated from a fixed seed: a re-recording asks the
same questions); the record keeps the case and, per call, Gemini's decision, the priority and source
of the rule it names, whether an MCP tool is registered at all and an edit's path check, and per
config the tools the engine removes from the model's list.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import record  # noqa: E402

SEED = 29
MODES = ["default", "default", "autoEdit", "plan", "yolo"]
PROGRAMS = ["git", "npm", "rm", "ls", "cat", "curl", "python3", "make", "find", "echo", "sed", "docker"]
ARGS = {"git": ["status", "push", "push origin main", "log -1", "diff", "-c x=y status", "reset --hard"],
        "npm": ["test", "run test", "run test:unit", "install", "publish"], "rm": ["-rf build", "x", "-f x"],
        "ls": ["", "-la", "/etc", "..", "src"], "cat": ["README.md", "/etc/passwd", "../x", "a b"],
        "curl": ["http://127.0.0.1:1/", "-s x"], "python3": ["-c 1", "x.py"], "make": ["", "build", "clean"],
        "find": [". -name x", ". -delete", ". -exec rm {} ;"], "echo": ["hi", "$HOME", "a > f"],
        "sed": ["-n 1p f", "-i s/a/b/ f"], "docker": ["ps", "run x"]}
WRAPS = ["{c}", "{c}", "{c}", "{c} && ls", "ls; {c}", "{c} | head -1", "{c} > out.txt", "bash -c '{c}'",
         "sh -c \"{c}\"", "env {c}", "FOO=1 {c}", "/usr/bin/{c}", "echo $({c})", "({c})", "{c} 2>&1",
         "timeout 5 {c}", "{c} || true", "`{c}`", "sudo {c}", "xargs {c}"]
SERVERS = ["gh", "db", "fs", "my_srv"]
MCP_TOOLS = ["list", "create_issue", "drop", "query", "write", "read"]


def _command(rng: random.Random) -> str:
    prog = rng.choice(PROGRAMS)
    arg = rng.choice(ARGS[prog])
    return (f"{prog} {arg}" if arg else prog).strip()


def _policy(rng: random.Random) -> str:
    rules = []
    for _ in range(rng.randint(1, 5)):
        decision = rng.choice(["allow", "deny", "ask_user"])
        priority = rng.choice([10, 100, 200, 250, 500, 999])
        kind = rng.random()
        lines = ["[[rule]]"]
        if kind < 0.45:
            prefix = _command(rng).split(" ")[: rng.choice([1, 2])]
            lines += ['toolName = "run_shell_command"', f"commandPrefix = {json.dumps(' '.join(prefix))}"]
        elif kind < 0.55:
            regex = json.dumps(rng.choice(PROGRAMS) + " .*")
            lines += ['toolName = "run_shell_command"', f"commandRegex = {regex}"]
        elif kind < 0.75:
            server = rng.choice(SERVERS)
            tool = rng.choice([*MCP_TOOLS, "*"])
            lines += [f'mcpName = "{server}"', f'toolName = "{tool}"']
        elif kind < 0.85:
            tool = rng.choice(["write_file", "replace", "read_file", "web_fetch", "glob"])
            lines += [f'toolName = "{tool}"']
        else:
            lines += ['toolName = "write_file"', "argsPattern = '\"file_path\":\"[^\"]*\\\\.env\"'"]
        lines += [f'decision = "{decision}"', f"priority = {priority}"]
        if rng.random() < 0.15:
            lines.append(f'modes = ["{rng.choice(["default", "autoEdit", "yolo"])}"]')
        if rng.random() < 0.1:
            lines.append("allowRedirection = true")
        rules.append("\n".join(lines) + "\n")
    return "\n".join(rules)


def _settings(rng: random.Random, servers: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    tools: dict[str, Any] = {}
    if rng.random() < 0.3:
        tools["allowed"] = rng.sample(["run_shell_command(git status)", "run_shell_command(npm test)",
                                       "read_file", "write_file", "run_shell_command"], rng.randint(1, 2))
    if rng.random() < 0.2:
        tools["exclude"] = rng.sample(["web_fetch", "glob", "run_shell_command", "write_file"], 1)
    if rng.random() < 0.1:
        tools["core"] = ["read_file", "run_shell_command(ls)"]
    if tools:
        out["tools"] = tools
    if servers:
        out["mcpServers"] = servers
    mcp: dict[str, Any] = {}
    if servers and rng.random() < 0.2:
        mcp["allowed"] = rng.sample(sorted(servers), 1)
    if servers and rng.random() < 0.2:
        mcp["excluded"] = rng.sample(sorted(servers), 1)
    if mcp:
        out["mcp"] = mcp
    return out


def _servers(rng: random.Random) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in rng.sample(SERVERS, rng.randint(0, 3)):
        conf: dict[str, Any] = {"command": "x"} if rng.random() < 0.9 else {}
        if rng.random() < 0.25:
            conf["includeTools"] = rng.sample(MCP_TOOLS, 2)
        if rng.random() < 0.25:
            conf["excludeTools"] = rng.sample(MCP_TOOLS, 1)
        if rng.random() < 0.2:
            conf["trust"] = True
        out[name] = conf
    return out


def _calls(rng: random.Random, count: int, servers: dict[str, Any]) -> list[list[Any]]:
    out: list[list[Any]] = []
    for _ in range(count):
        r = rng.random()
        if r < 0.6:
            out.append(["run_shell_command", {"command": rng.choice(WRAPS).format(c=_command(rng))}])
        elif r < 0.75:
            path = rng.choice(["a.txt", "src/x.py", ".env", "Makefile", "/tmp/outside.txt", "../up.txt",
                               "package.json", "/etc/hosts"])
            tool = rng.choice(["write_file", "replace", "read_file"])
            args: dict[str, Any] = {"file_path": path}
            if tool == "write_file":
                args["content"] = "x"
            elif tool == "replace":
                args.update(old_string="a", new_string="b", instruction="change a to b")
            out.append([tool, args])
        elif r < 0.8:
            out.append([rng.choice(["web_fetch", "glob", "google_web_search"]), {"prompt": "x"}])
        else:
            server = rng.choice([*servers, *SERVERS]) if servers else rng.choice(SERVERS)
            out.append([f"mcp_{server}_{rng.choice(MCP_TOOLS)}", {}, server])
    return out


def generate(count: int = 25, calls: int = 90) -> list[dict[str, Any]]:
    rng = random.Random(SEED)
    cases = []
    for n in range(count):
        servers = _servers(rng)
        case: dict[str, Any] = {"name": f"corpus-{n}", "mode": rng.choice(MODES),
                                "interactive": rng.random() < 0.8, "calls": _calls(rng, calls, servers)}
        where = rng.random()
        settings = _settings(rng, servers)
        if where < 0.6:
            case["user_settings"] = settings
        else:
            case["workspace_settings"] = settings
        if rng.random() < 0.7:
            case["user_policies"] = {"p.toml": _policy(rng)}
        if rng.random() < 0.2:
            case["trusted"] = False
            case["interactive"] = True  # a headless run in an untrusted folder does not start
        case["mcp_tools"] = {c[0]: c[2] for c in case["calls"] if len(c) > 2}
        cases.append(case)
    return cases


def compact(case: dict[str, Any], rec: dict[str, Any]) -> dict[str, Any]:
    """The record in the corpus's form: the case, and per call [decision, priority, source, and the
    registration / path check when asked]."""
    out: dict[str, Any] = {"case": case, "trusted": rec.get("trusted"), "excluded": rec.get("excluded"),
                           "project": rec["project"]}
    if "fatal" in rec:
        out["fatal"] = rec["fatal"]
        return out
    answers = []
    for c in rec["calls"]:
        rule = c["rule"]
        one: list[Any] = [c["decision"], rule["priority"] if rule else None, rule["source"] if rule else None]
        if "unregistered" in c:
            one.append({"unregistered": c["unregistered"]})
        if "validation" in c:
            one.append({"validation": c["validation"]})
        answers.append(one)
    out["answers"] = answers
    return out


def main() -> int:
    out = []
    for case in generate():
        out.append(compact(case, record.record_case(case)))
        print(case["name"], file=sys.stderr)
    target = HERE / f"corpus-{record.VERSION}.json"
    text = json.dumps({"version": record.VERSION, "seed": SEED, "configs": out}, separators=(",", ":"))
    target.write_text(text.replace('{"case":', '\n{"case":') + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
