"""A generated differential corpus for Codex CLI: a small grammar of rules files and calls, asked of the
released binary offline, stored compactly in `corpus-<version>.json` (the suite replays it with no
Node: tests/compat/test_codex_corpus.py).

    .venv/bin/python tests/compat/codex/corpus.py            # generate (seed 29) and record
    CODEX_BIN=/work/agents-old/node_modules/.bin/codex .venv/bin/python tests/compat/codex/corpus.py

Two parts, each a list of configs (rules files) with their calls:

- ``policy``: argv put to ``codex execpolicy check --rules F... --resolve-host-executables -- ARGV``
  (programs plain, by path, pieced; alternatives, decisions omitted or written, several files,
  examples that hold or fail, unknown decisions); kept as ``[argv, decision, [[prefix, decision,
  resolved], ...]]`` or ``[argv, "error", file]`` when a file is refused;
- ``exec``: lines given to Codex's shell tool by ``codex exec`` against a loopback stand-in model that
  asks for all of one config's calls at once (wrappers, compounds, quoting, redirections, paths,
  ``rm -f`` forms), in a read-only sandbox (nothing a line does can write); kept as ``[line,
  outcome]`` (record.py's ``outcome``).

The cases are generated from a fixed seed, so a re-recording with a new release asks the same
questions; the records hold the cases themselves, so the replay does not depend on this generator.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import random
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import record  # noqa: E402  (the recorder's environment, stand-in and outcome)

SEED = 29
PROGRAMS = ["git", "npm", "rm", "curl", "python3", "docker", "make", "cargo", "kubectl", "ls"]
SUBS = {"git": ["push", "status", "log", "reset", "commit", "fetch", "clean"],
        "npm": ["run", "install", "test", "publish"], "rm": ["-rf", "-f", "-r", "x"],
        "curl": ["-s", "http://127.0.0.1:1/", "-X"], "python3": ["-m", "-c", "x.py"],
        "docker": ["run", "ps", "rm", "push"], "make": ["all", "clean", "install"],
        "cargo": ["test", "build", "publish"], "kubectl": ["delete", "get", "apply"], "ls": ["-la", "."]}
DECISIONS = ["allow", "prompt", "forbidden", None]


def _token(rng: random.Random, prog: str) -> str:
    return rng.choice(SUBS[prog])


def _rule(rng: random.Random) -> tuple[str, list[list[str]]]:
    """One prefix_rule's text and the argv it names (a few spellings of it)."""
    prog = rng.choice(PROGRAMS)
    pattern: list[Any] = [[prog, rng.choice(PROGRAMS)] if rng.random() < 0.15 else prog]
    for _ in range(rng.choice([0, 1, 1, 2])):
        pattern.append([_token(rng, prog), _token(rng, prog)] if rng.random() < 0.2 else _token(rng, prog))
    decision = rng.choice(DECISIONS)
    args = [f"pattern={json.dumps(pattern)}"]
    if decision is not None:
        args.append(f'decision="{decision}"')
    if rng.random() < 0.15:
        args.append('justification="generated"')
    words = [p[0] if isinstance(p, list) else p for p in pattern]
    if rng.random() < 0.1:
        args.append(f"match={json.dumps([shlex.join(words)])}")
    if rng.random() < 0.04:  # an example the rule does not match: the file is refused
        args.append('match=["zz top"]')
    if rng.random() < 0.03:  # an unknown decision: the file is refused
        args = [a for a in args if not a.startswith("decision=")] + ['decision="deny"']
    return f"prefix_rule({', '.join(args)})\n", [words]


def _argv(rng: random.Random, named: list[list[str]]) -> list[str]:
    if named and rng.random() < 0.7:
        argv = list(rng.choice(named))
    else:
        prog = rng.choice(PROGRAMS)
        argv = [prog, *(_token(rng, prog) for _ in range(rng.choice([0, 1, 2])))]
    r = rng.random()
    if r < 0.1:
        argv[0] = f"/usr/bin/{argv[0]}"
    elif r < 0.15:
        argv[0] = f"./{argv[0]}"
    elif r < 0.18:
        argv[0] = argv[0].upper()
    elif r < 0.22:
        argv = ["sudo", *argv]
    elif r < 0.25:
        argv = ["bash", "-lc", shlex.join(argv)]
    if rng.random() < 0.4:
        argv.append(rng.choice(["x", "--force", "-n", "origin", "main", "--", "*"]))
    if rng.random() < 0.1 and len(argv) > 1:
        argv = argv[:-1]
    return argv


def policy_configs(rng: random.Random, count: int, calls: int) -> list[dict[str, Any]]:
    out = []
    for n in range(count):
        files: dict[str, str] = {}
        named: list[list[str]] = []
        for f in range(rng.choice([1, 1, 2, 3])):
            text = ""
            for _ in range(rng.randint(1, 5)):
                rule, words = _rule(rng)
                text += rule
                named += words
            if rng.random() < 0.1:
                text += 'host_executable(name="git", paths=["/usr/bin/git"])\n'
            files[f"f{f}.rules"] = text
        out.append({"name": f"p{n}", "rules": files,
                    "calls": [_argv(rng, named) for _ in range(calls)]})
    return out


LINES = [
    "{c}", "{c} && ls", "ls; {c}", "{c} | cat", "{c} || true", "FOO=1 {c}", "env {c}", "sudo {c}",
    "timeout 5 {c}", "nice {c}", "command {c}", "{c} > out.txt", "{c} 2>&1", "({c})", "bash -lc '{c}'",
    "sh -c '{c}'", "{c} &", "echo $({c})", "{c} # note", "{q}", "{p}", "/usr/bin/{c}", "\\{c}",
    "{c} \"$X\"", "{c} *.md", "{c}\nls",
]


def _pieced(words: list[str], rng: random.Random) -> str:
    """The command with one argument written in quoted pieces, or the program quoted."""
    if len(words) > 1 and rng.random() < 0.7:
        i = rng.randrange(1, len(words))
        w = words[i]
        cut = rng.randrange(0, len(w) + 1)
        words = [*words[:i], f"{w[:cut]}'{w[cut:]}'" if rng.random() < 0.5 else f'{w[:cut]}"{w[cut:]}"',
                 *words[i + 1:]]
        return " ".join(words)
    return " ".join([f"'{words[0]}'", *words[1:]])


def exec_configs(rng: random.Random, count: int, calls: int) -> list[dict[str, Any]]:
    out = []
    for n in range(count):
        text, named = "", []
        for _ in range(rng.randint(2, 6)):
            rule, words = _rule(rng)
            if "deny" in rule or "zz top" in rule:  # a refused file stops Codex: see the exec-bad-* records
                continue
            text += rule
            named += words
        lines = []
        for _ in range(calls):
            argv = _argv(rng, named)
            if argv[0] in ("bash", "sudo") or argv[0].startswith(("/", ".")):
                argv = [a for a in argv if a not in ("bash", "-lc", "sudo")] or ["ls"]
                argv[0] = argv[0].rsplit("/", 1)[-1]
            words = [a for a in argv if a != "*"]
            c = " ".join(shlex.quote(w) for w in words)
            form = rng.choice(LINES)
            lines.append(form.format(c=c, q=_pieced(list(words), rng), p=_pieced(list(words), rng)))
        out.append({"name": f"e{n}", "rules": {"default.rules": text}, "calls": lines})
    return out


def generate() -> dict[str, list[dict[str, Any]]]:
    rng = random.Random(SEED)
    return {"policy": policy_configs(rng, 80, 16), "exec": exec_configs(rng, 24, 45)}


def record_policy(case: dict[str, Any]) -> list[list[Any]]:
    with tempfile.TemporaryDirectory(prefix="ft-codex-corpus-") as tmp:
        base = Path(tmp)
        for d in ("home/.codex", "tmp", "rules"):
            (base / d).mkdir(parents=True, exist_ok=True)
        record._write(base / "rules", case["rules"], base)
        flags = [a for name in case["rules"] for a in ("--rules", str(base / "rules" / name))]
        out = []
        for argv in case["calls"]:
            proc = subprocess.run([str(record.CODEX), "execpolicy", "check", *flags,
                                   "--resolve-host-executables", "--", *argv], capture_output=True,
                                  text=True, env=record._env(base), timeout=record.TIMEOUT, cwd=base)
            if proc.returncode == 0:
                data = json.loads(proc.stdout)
                found = [m["prefixRuleMatch"] for m in data["matchedRules"] if "prefixRuleMatch" in m]
                matched = [[m["matchedPrefix"], m["decision"],
                            record._normalise(m.get("resolvedProgram") or "", base) or None] for m in found]
                out.append([argv, data.get("decision"), matched])
            else:
                text = record._error_text(proc.stderr, base)
                named = text.split("failed to parse policy at ", 1)[-1].split()[0].rsplit("/", 1)[-1]
                out.append([argv, "error", named.rstrip(":")])
        return out


def record_exec(case: dict[str, Any], stand_in: Any) -> list[list[Any]]:
    with tempfile.TemporaryDirectory(prefix="ft-codex-corpus-") as tmp:
        record.run_exec(case, [{"cmd": line} for line in case["calls"]], stand_in, Path(tmp), timeout=600)
        said = stand_in.outputs
        return [[line, record.outcome(said[f"call_{i}"]) if f"call_{i}" in said else "error"]
                for i, line in enumerate(case["calls"])]


def main(argv: list[str]) -> int:
    if os.environ.get(record.NS_FLAG) != "1":
        env = dict(os.environ, **{record.NS_FLAG: "1"})
        return subprocess.call(["unshare", "-n", sys.executable, str(Path(__file__).resolve()), *argv],
                               env=env)
    subprocess.run(["ip", "link", "set", "lo", "up"], check=False)
    version = subprocess.run([str(record.CODEX), "--version"], capture_output=True, text=True).stdout.strip()
    number = version.removeprefix("codex-cli ")
    cases = generate()
    many = record._StandIn()
    out: dict[str, Any] = {"version": number, "binary": version, "seed": SEED, "policy": [], "exec": [],
                           "recorded": _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d")}
    only = set(argv)
    if not only or "exec" in only:
        for case in cases["exec"]:
            out["exec"].append({"name": case["name"], "rules": case["rules"],
                                "calls": record_exec(case, many)})
            print(case["name"], file=sys.stderr)
    if not only or "policy" in only:
        for case in cases["policy"]:
            out["policy"].append({"name": case["name"], "rules": case["rules"], "calls": record_policy(case)})
            print(case["name"], file=sys.stderr)
    target = HERE / f"corpus-{number}.json"
    if only and target.is_file():
        old = json.loads(target.read_text())
        for part in ("policy", "exec"):
            if part not in only:
                out[part] = old.get(part, [])
    target.write_text(json.dumps(out, separators=(",", ":")).replace('],["', '],\n["') + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
