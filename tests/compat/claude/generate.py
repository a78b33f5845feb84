"""A generated differential corpus for Claude Code: configs and calls drawn from a small grammar.

    .venv/bin/python tests/compat/claude/generate.py cases OUT.json      # write the generated cases
    .venv/bin/python tests/compat/claude/record.py --session --cases OUT.json --out FULL.json --jobs 2
    .venv/bin/python tests/compat/claude/generate.py compact FULL.json   # -> generated-<version>.json

The grammar (seeded, so every run gives the same cases; `SEED` and `CONFIGS` fix the corpus):

- **settings**: a user, a project and a local settings file, each present or not, each with
  `allow` / `ask` / `deny` rules drawn from `RULES` (Bash prefix, glob and exact spellings, bare tool
  names, Read / Edit paths with every anchor, WebFetch domains, MCP names, misspellings) and now and
  then a `defaultMode`;
- **trust**: trusted, untrusted or no entry for the project;
- **MCP**: in some configs a project `.mcp.json` starting the SDK server `mcp_server.py` (`srv`);
- **calls**: Bash commands built from a base command (`COMMANDS`), a wrapper or environment prefix
  (`sudo`, `timeout 5`, `CI=1`, `FOO=1`, ...), a quoting or spacing variant and a compound form
  (`&&`, `;`, `|`, `$(...)`, `bash -c`, a subshell); Read of paths and Write of new files inside
  and outside the project (sensitive files, denied directories, `..`; `Edit(...)` rules decide
  Write); Grep / Glob; WebFetch URLs; MCP names. No Edit: in one session Claude refuses an Edit of
  a file it has not read before any permission check, and which files count as read there is not
  what a one-call answer can know (Edit is in cases.json, one call per file).

Nothing in a case writes outside the scratch directories the recorder makes, and no call runs
for long (no `watch`, no `sleep`), so a whole config is recorded in one session (`--session`; a
session that ends its turn early, as plan mode does after a few classifier denials, is continued
in a new one from the next call). Calls
never write Claude's own settings files (a settings change reloads the rules mid-session).

`compact` keeps what the replay needs: per config its digest (of the generated case, so a changed
grammar cannot be replayed against old answers), the tool list when it is not the default one,
the mode, and one `decision:reason_type` per call; errors keep only their kind.
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
SEED = 29
CONFIGS = 64
#: a second, smaller draw with another seed, recorded after the first one's disagreements were
#: fixed: what it found had not been seen (docs: tests/compat/claude/README.md)
SEEDS = ((SEED, CONFIGS, "gen"), (4242, 20, "gen4242"))
CALLS = 36

PROJECT_FILES = {
    "README.md": "readme\n", "notes.txt": "hello\n", "a.txt": "x\n", ".env": "TOKEN=placeholder\n",
    "src/a.ts": "export const a = 1;\n", "src/secrets/k.txt": "k\n", "secrets/s.txt": "s\n",
    "protected/p.txt": "p\n", "docs/guide.md": "guide\n", ".vscode/settings.json": "{}\n",
    ".bashrc": "# rc\n", "x/src/b.ts": "b\n",
}
HOME_FILES = {"docs/h.txt": "h\n", "x.txt": "x\n"}

RULES = [
    "Bash", "Bash(*)", "Bash(git push:*)", "Bash(git push *)", "Bash(git *)", "Bash(git:*)", "Bash(rm:*)",
    "Bash(rm *)", "Bash(npm test)", "Bash(npm run *)", "Bash(npm run test:*)", "Bash(touch g-*)",
    "Bash(touch g-1)", "Bash(cat *)", "Bash(ls:*)", "Bash(echo *)", "Bash(curl:*)", "Bash(sudo *)",
    "Bash(python3 *)", "Bash(git status)", "Bash(cp *)", "Bash(mv:*)", "Bash(sed *)", "Bash(find *)",
    "Bash(git log:*)", "Bash(head *)", "Bash(mkdir:*)", "Bash(tee *)",
    "Read", "Read(./.env)", "Read(.env)", "Read(secrets/**)", "Read(./secrets/**)", "Read(**/*.key)",
    "Read(//$SCRATCH/outside/**)", "Read(~/docs/**)", "Read(src/**)", "Read(/docs/**)", "Read(./notes.txt)",
    "Edit", "Edit(src/**)", "Edit(./protected/**)", "Edit(protected/**)", "Edit(*.md)",
    "Edit(//$PROJECT/notes.txt)", "Edit(docs/**)", "Edit(.vscode/**)",
    "Write", "Write(src/**)",
    "WebFetch", "WebFetch(domain:example.com)", "WebFetch(domain:*.example.com)", "WebSearch",
    "mcp__srv", "mcp__srv__read_thing", "mcp__srv__*", "mcp__srv__write_thing",
    "bash(ls)", "Bash( ls )", "Unknown(x)", "Grep", "Glob",
]
MODES = [None] * 8 + ["acceptEdits", "acceptEdits", "plan", "dontAsk", "default", "bypassPermissions"]

COMMANDS = [
    "git push origin main", "git status", "git log -1", "git -C . push origin main", "git diff",
    "rm notes.txt", "rm -f g-1", "rm -rf protected", "touch g-1", "touch g-2", "mkdir g-dir",
    "cp notes.txt g-copy.txt", "cp .env g-env", "mv a.txt g-moved.txt", "cat README.md", "cat .env",
    "cat secrets/s.txt", "cat src/secrets/k.txt", "head -n 1 notes.txt", "ls", "ls -la src",
    "ls $SCRATCH/outside", "cat $SCRATCH/outside/f.txt", "cat /etc/hostname", "cat $HOME/docs/h.txt",
    "grep -r hello .", "echo hi", "echo x > g-out.txt", "echo x > protected/g.txt", "echo x >> .bashrc",
    "cat < .env", "npm test", "npm run test", "npm run build", "python3 -c 'print(1)'",
    "sed -i s/x/y/ a.txt", "sed -i.bak s/x/y/ a.txt", "sed -n 1p notes.txt", "curl http://127.0.0.1:9/",
    "tee g-tee.txt < notes.txt", "touch .vscode/g.json", "find . -name '*.ts'", "wc -l notes.txt",
    "sort notes.txt", "chmod 600 notes.txt", "ln -s .env g-link", "touch $SCRATCH/outside/g",
    "rm $HOME/x.txt", "cp notes.txt protected/g.txt", "git branch g-new", "pwd", "which ls",
]
PREFIXES = ["", "", "", "", "", "sudo ", "timeout 5 ", "nice ", "env X=1 ", "CI=1 ", "NODE_ENV=test ",
            "FOO=1 ", "nohup ", "command ", "time ", "doas ", "sudo -u root ", "RUST_LOG=debug "]
READ_PATHS = ["$PROJECT/README.md", "$PROJECT/.env", "$PROJECT/src/secrets/k.txt", "$PROJECT/secrets/s.txt",
              "$SCRATCH/outside/f.txt", "/etc/hostname", "$HOME/docs/h.txt", "$PROJECT/src/../.env",
              "$PROJECT/.vscode/settings.json", "$PROJECT/docs/guide.md", "$PROJECT/x/src/b.ts",
              "$PROJECT/notes.txt"]
#: Write targets: `{n}` is the call's index, so no earlier call has made the file (Claude refuses a
#: Write over a file the session has not read, before any permission check)
WRITE_PATHS = ["$PROJECT/src/g{n}.ts", "$PROJECT/protected/g{n}.txt", "$PROJECT/.vscode/g{n}.json",
               "$PROJECT/sub{n}/.bashrc", "$PROJECT/n{n}/.gitconfig", "$SCRATCH/outside/g{n}.txt",
               "$PROJECT/docs/g{n}.md", "$PROJECT/x/src/g{n}.ts", "$PROJECT/.git/hooks/g{n}",
               "$PROJECT/.idea/g{n}.xml", "$PROJECT/secrets/g{n}.txt", "$PROJECT/g{n}.md",
               "$PROJECT/src/../g{n}.txt", "$HOME/g{n}.txt"]
URLS = ["https://example.com/", "https://sub.example.com/x", "https://other.org/"]
MCP_TOOLS = ["mcp__srv__read_thing", "mcp__srv__write_thing", "mcp__srv__nothing", "mcp__other__x"]


def _quoted(rng: random.Random, command: str) -> str:
    """A quoting or spacing variant of `command` (or the command itself)."""
    words = command.split(" ")
    pick = rng.random()
    if pick < 0.6 or len(words) < 2 or any(c in command for c in "<>'$|"):
        return command
    i = rng.randrange(1, len(words))
    if pick < 0.7:
        words[i] = f"'{words[i]}'"
    elif pick < 0.8:
        words[i] = f'"{words[i]}"'
    elif pick < 0.9:
        return command.replace(" ", "  ", 1)
    else:
        words[0] = "\\" + words[0]
    return " ".join(words)


def _bash(rng: random.Random) -> str:
    first = rng.choice(PREFIXES) + _quoted(rng, rng.choice(COMMANDS))
    form = rng.random()
    if form < 0.62:
        return first
    second = rng.choice(COMMANDS)
    if form < 0.72:
        return f"{first} && {second}"
    if form < 0.78:
        return f"{first}; {second}"
    if form < 0.84:
        return f"{second} | {rng.choice(['cat', 'wc -l', 'head -1', 'sort'])}"
    if form < 0.88:
        return f"{first} || {second}"
    if form < 0.92:
        return f"echo $({second})"
    if form < 0.96:
        return f"bash -c '{second}'" if "'" not in second else first
    return f"({second})"


def _call(rng: random.Random, mcp: bool, n: int) -> dict[str, Any]:
    pick = rng.random()
    if pick < 0.55:
        return {"tool": "Bash", "input": {"command": _bash(rng)}}
    if pick < 0.68:
        return {"tool": "Read", "input": {"file_path": rng.choice(READ_PATHS)}}
    if pick < 0.84:
        path = rng.choice(WRITE_PATHS).format(n=n)
        return {"tool": "Write", "input": {"file_path": path, "content": "g\n"}}
    if pick < 0.88:
        tool = rng.choice(["Grep", "Glob"])
        path = rng.choice(["$PROJECT", "$PROJECT/.env", "$PROJECT/secrets", "/etc"])
        return {"tool": tool, "input": {"pattern": "hello" if tool == "Grep" else "*", "path": path}}
    if pick < 0.93:
        return {"tool": "WebFetch", "input": {"url": rng.choice(URLS), "prompt": "summarise"}}
    if pick < 0.95:
        return {"tool": "WebSearch", "input": {"query": "forge tools"}}
    if mcp:
        return {"tool": rng.choice(MCP_TOOLS), "input": {}}
    return {"tool": "Bash", "input": {"command": _bash(rng)}}



def _layer(rng: random.Random) -> dict[str, Any] | None:
    if rng.random() < 0.3:
        return None
    perms: dict[str, Any] = {}
    for behavior, weight in (("allow", 3), ("deny", 2), ("ask", 1)):
        n = rng.randint(0, weight)
        if n:
            perms[behavior] = rng.sample(RULES, n)
    mode = rng.choice(MODES)
    if mode is not None:
        perms["defaultMode"] = mode
    return {"permissions": perms}


def config(i: int, rng: random.Random, prefix: str = "gen") -> dict[str, Any]:
    files: dict[str, Any] = {"$SCRATCH/outside/f.txt": "outside\n"}
    sandbox = False
    for where in ("$HOME/.claude/settings.json", "$PROJECT/.claude/settings.json",
                  "$PROJECT/.claude/settings.local.json"):
        layer = _layer(rng)
        if layer is not None:
            files[where] = layer
            sandbox = sandbox or layer["permissions"].get("defaultMode") == "bypassPermissions"
    mcp = rng.random() < 0.2
    if mcp:
        files["$PROJECT/.mcp.json"] = {"mcpServers": {"srv": {"command": "$PYTHON",
                                                              "args": ["$COMPAT/mcp_server.py"]}}}
    trusted = rng.choice([True, True, True, False, None])
    out: dict[str, Any] = {
        "name": f"{prefix}-{i:03d}", "about": "generated (generate.py)", "files": files,
        "project_files": PROJECT_FILES, "home_files": HOME_FILES, "trusted": trusted, "flags": [],
        "calls": [_call(rng, mcp, n) for n in range(CALLS)],
    }
    if sandbox:
        out["env"] = {"IS_SANDBOX": "1"}
    return out


def cases(version: str) -> dict[str, Any]:
    configs = []
    for seed, count, prefix in SEEDS:
        rng = random.Random(seed)
        configs += [config(i, rng, prefix) for i in range(count)]
    return {"version": version, "configs": configs}


def digest(case: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(case, sort_keys=True).encode()).hexdigest()[:16]


def version() -> str:
    return str(json.loads((HERE / "cases.json").read_text())["version"])


def _answer(call: dict[str, Any]) -> str:
    decision, reason = call["decision"], call.get("reason_type")
    if decision != "error":
        return f"{decision}:{reason}"
    message = call.get("message") or ""
    if "InputValidationError" in message:
        return "error:invalid"
    if "has not been read yet" in message:
        return "error:unread"
    if message == "no tool_result for this call":
        return "error:nostart"
    return "error:other"


def compact(full: dict[str, Any], generated: dict[str, Any]) -> dict[str, Any]:
    from collections import Counter

    by_name = {c["name"]: c for c in generated["configs"]}
    lists = Counter(json.dumps(r.get("tools_offered")) for r in full["configs"])
    default_tools = json.loads(lists.most_common(1)[0][0]) if lists else None
    out = []
    for record in full["configs"]:
        tools = record.get("tools_offered")
        out.append({"name": record["name"], "digest": digest(by_name[record["name"]]),
                    "mode": record.get("permission_mode"), "tools": None if tools == default_tools else tools,
                    "answers": [_answer(c) for c in record["calls"]]})
    return {"version": full["version"], "binary": full["binary"], "recorded": full["recorded"],
            "seeds": [list(x) for x in SEEDS], "command": full["command"] + " (one session per config)",
            "default_tools": default_tools, "configs": out}


def _dump(data: dict[str, Any]) -> str:
    """One line per config: small enough to keep, readable in a diff."""
    head = {k: v for k, v in data.items() if k != "configs"}
    lines = [json.dumps(c, ensure_ascii=False) for c in data["configs"]]
    body = json.dumps(head, indent=1, ensure_ascii=False)[:-2]
    return body + ',\n "configs": [\n  ' + ",\n  ".join(lines) + "\n ]\n}\n"


def main(argv: list[str]) -> int:
    if len(argv) < 2 or argv[0] not in ("cases", "compact") or (argv[0] == "cases" and len(argv) != 2):
        print("usage: generate.py cases OUT.json | generate.py compact FULL.json [MORE.json ...]",
              file=sys.stderr)
        return 2
    if argv[0] == "cases":
        Path(argv[1]).write_text(json.dumps(cases(version()), indent=1, ensure_ascii=False) + "\n")
        return 0
    full = json.loads(Path(argv[1]).read_text())
    for more in argv[2:]:  # records of the same cases made in several runs
        full["configs"] += json.loads(Path(more).read_text())["configs"]
    order = [c["name"] for c in cases(full["version"])["configs"]]
    full["configs"].sort(key=lambda c: order.index(c["name"]))
    out = HERE / f"generated-{full['version']}.json"
    out.write_text(_dump(compact(full, cases(full["version"]))))
    print(f"wrote {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
