"""Record what opencode itself does with each call of `cases.json` (not run by the test suite).

Usage: OPENCODE=/path/to/opencode python tests/compat/runtime/generate.py
Writes `opencode-VERSION.json` beside this file. See README.md here for what is recorded and how.

`generate.py --corpus [--until HH:MM]` records the generated differential corpus instead (configs and
calls from the small grammar in `corpus_cases`, fixed seed): each config's calls are sent in ONE
`opencode run --auto` to the stand-in model of `../fake_model.py`, and each call's outcome is read from
the result opencode sends back (refusal text: `deny`; an "asking" log line while it ran: `ask`;
otherwise `allow`) and its canary files are looked at afterwards. Written to
`corpus-VERSION.json` after every config, so a bounded run keeps what it recorded.

Each case's `config` is written as the `opencode.json` of a fresh scratch project (a git repo with
README.md, .env, sub/.env, secret/ and one canary file per `canary*.txt` a call names) beside a
scratch `outside/` folder (`$OUTSIDE`, holding seen.txt), with a scratch HOME. Each call is run with
`opencode debug agent build --tool T --params P` inside `unshare -n` (no network): opencode's debug
tool context refuses a call only when a pattern is denied and lets an `ask` through, so every call is
run twice: under the config (a refusal there is `deny`; otherwise it ran, and its effect on the
canary files is recorded) and, in a second scratch copy, under the same config with every `ask`
turned into `deny` (refused there but not under the config: `ask`; neither: `allow`); a case whose
config has no `ask` needs no second run.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from opencode_run import opencode_env  # noqa: E402

DENIED = "prevents you from using this specific tool call"
_CANARY = re.compile(r"canary\w*\.txt")


def asks_denied(value: Any) -> Any:
    """The config with every `ask` action turned into `deny` (the probe for `ask`)."""
    if isinstance(value, dict):
        return {k: asks_denied(v) for k, v in value.items()}
    return "deny" if value == "ask" else value


def expand(value: Any, project: Path, outside: Path, home: Path) -> Any:
    text = json.dumps(value)
    for name, path in (("$PROJECT", project), ("$OUTSIDE", outside), ("$HOME", home)):
        text = text.replace(name, str(path))
    return json.loads(text)


def make_project(project: Path, config: dict[str, Any], calls: list[dict[str, Any]]) -> None:
    project.mkdir(parents=True)
    (project / "opencode.json").write_text(json.dumps(config, indent=1))
    (project / "README.md").write_text("hello\n")
    (project / ".env").write_text("SECRET=1\n")
    (project / "sub").mkdir()
    (project / "sub" / ".env").write_text("SECRET=2\n")
    (project / "secret").mkdir()
    (project / "canary_cp.txt").write_text("copy me\n")
    for name in {m for call in calls for m in _CANARY.findall(json.dumps(call))}:
        (project / name).write_text("canary\n")
    subprocess.run(["git", "init", "-q", str(project)], check=True)


def run_call(opencode: str, call: dict[str, Any], project: Path, outside: Path, home: Path
             ) -> tuple[str, str]:
    """('denied' | 'ran' | 'failed' | 'timeout', opencode's output's last line)."""
    params = expand(call["params"], project, outside, home)
    args = ["unshare", "-n", opencode, "debug", "agent", "build", "--tool", call["tool"],
            "--params", json.dumps(params)]
    try:
        done = subprocess.run(args, cwd=project, env=opencode_env(home), capture_output=True, text=True,
                              timeout=300, check=False)
    except subprocess.TimeoutExpired:
        return "timeout", ""
    text = done.stdout + done.stderr
    outcome = "denied" if DENIED in text else ("ran" if done.returncode == 0 else "failed")
    last = next((line for line in reversed(text.strip().splitlines()) if line.strip()), "")
    return outcome, last[:200]


def record_case(opencode: str, case: dict[str, Any], scratch: Path) -> dict[str, Any]:
    outside, home = scratch / "outside", scratch / "home"
    for folder in (outside, home):
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
    homes = threading.local()  # one scratch HOME per worker: opencode's database allows one process

    def worker_home() -> Path:
        if not hasattr(homes, "path"):
            homes.path = Path(tempfile.mkdtemp(prefix="home-", dir=scratch))
        return homes.path
    (outside / "seen.txt").write_text("hello\n")
    project, probe = scratch / case["name"], scratch / f"{case['name']}-probe"
    make_project(project, case["config"], case["calls"])
    make_project(probe, asks_denied(case["config"]), case["calls"])
    probing = asks_denied(case["config"]) != case["config"]

    def one(call: dict[str, Any]) -> dict[str, Any]:
        canaries = sorted(set(_CANARY.findall(json.dumps(call))))
        own_home = worker_home()
        first, said = run_call(opencode, call, project, outside, own_home)
        probed = probing and first != "denied"
        second = run_call(opencode, call, probe, outside, own_home)[0] if probed else ""
        action = "deny" if first == "denied" else ("ask" if second == "denied" else "allow")
        entry: dict[str, Any] = {**call, "opencode": action, "outcome": first}
        if canaries:
            entry["canaries_left"] = [name for name in canaries if (project / name).exists()]
        if first == "failed":
            entry["failure"] = said.replace(str(project), "$PROJECT").replace(str(outside), "$OUTSIDE")
        print(f"  {call['tool']} {json.dumps(call['params'])[:70]} -> {action} ({first})", flush=True)
        return entry

    # each call touches only its own canary, so a few run at once (opencode takes ~20 s to start)
    with ThreadPoolExecutor(max_workers=3) as pool:
        records = list(pool.map(one, case["calls"]))
    return {"name": case["name"], "config": case["config"], "calls": records}


CORPUS_SEED = 30
_PROGRAMS = ["rm {canary}", "touch {made}", "cat README.md", "ls", "echo hi", "git status", "cat .env",
             "ls $OUTSIDE", "cat $OUTSIDE/seen.txt", "echo hi > $OUTSIDE/{made}", "rm -f {canary}",
             "git log -1", "head -1 README.md", "cp {canary} {made}", "mkdir {made}"]
_FORMS = ["{x}", "{x}", "{x}", "\\{x}", "time {x}", "2>/dev/null {x}", "FOO=1 {x}", "command {x}",
          "env {x}", "{x} | cat", "echo a; {x}", "{x} && echo ok", "({x})", "cd . && {x}",
          "bash -c '{x}'", "double", "quote", "splitquote", "{x} 2>&1", "cd sub && {x}", "cd $OUTSIDE"]
_BASH_RULES = ["rm *", "git push *", "git *", "cat *", "ls *", "echo *", "touch *", "rm canary*",
               "git status", "cd *", "cat README.md", "mkdir *", "cp *", "head *", "* .env", "echo hi"]
_ACTIONS = ["allow", "ask", "deny"]
#: the grammar's second part (issue 30), used from case FIRST_PART on only, so the cases recorded before it
#: are still the ones the seed makes: `cd`-only lines and `cd` in chains, `pushd`, `nohup`, `exec`,
#: `|| true`, a background `&`, workdirs in /tmp, bash `timeout`, read `limit`
FIRST_PART = 60
_FORMS_2 = ["cd sub; {x}", "pushd sub > /dev/null && {x}", "nohup {x} > /dev/null", "{x} || true",
            "exec {x}", "cd .", "cd sub", "cd /tmp && {x}", "{x}; cd sub"]
_BASH_RULES_2 = ["cd *", "cd sub", "pushd *", "nohup *", "exec *", "* || *"]
_READS = ["README.md", ".env", "sub/.env", "$OUTSIDE/seen.txt", "/etc/hostname", "secret/x.txt",
          "$PROJECT/README.md", "$PROJECT/.env", "sub"]
_WRITES = ["{made}", "secret/{made}", "$OUTSIDE/{made}", "sub/{made}", "$PROJECT/{made}", ".env.{made}"]


def _bash_command(rng: Any, number: int, second: bool = False) -> str:
    program = rng.choice(_PROGRAMS).format(canary=f"canary{number}.txt", made=f"made{number}.txt")
    form = rng.choice(_FORMS + _FORMS_2 * 2) if second else rng.choice(_FORMS)
    if form == "double":
        return program.replace(" ", "  ", 1)
    if form == "quote":
        word, _, rest = program.partition(" ")
        return f"'{word}' {rest}".strip()
    if form == "splitquote":
        word, _, rest = program.partition(" ")
        return (f'{word[0]}"{word[1:]}" {rest}' if len(word) > 1 else program).strip()
    return form.replace("{x}", program)


def _one_call(rng: Any, number: int, second: bool = False) -> dict[str, Any]:
    kind = rng.choice(["bash"] * 6 + ["read", "read", "write", "edit", "glob", "grep"])
    made = f"made{number}.txt"
    if kind == "bash":
        params: dict[str, Any] = {"command": _bash_command(rng, number, second), "description": "corpus call"}
        if rng.random() < (0.25 if second else 0.12):
            params["workdir"] = rng.choice(["$OUTSIDE", "sub", "/tmp", "$PROJECT"]
                                           + (["/tmp/", "/var", "$OUTSIDE/../outside"] if second else []))
        if second and rng.random() < 0.15:
            params["timeout"] = rng.choice([5000, 60000])
        return {"tool": "bash", "params": params}
    if kind == "read":
        params = {"filePath": rng.choice(_READS)}
        if rng.random() < 0.2:
            params["offset"] = rng.choice([1, 2])
        if second and rng.random() < 0.2:
            params["limit"] = rng.choice([1, 5])
        return {"tool": "read", "params": params}
    if kind == "write":
        return {"tool": "write", "params": {"filePath": rng.choice(_WRITES).format(made=made),
                                            "content": "x\n"}}
    if kind == "edit":
        target = rng.choice([f"canary{number}.txt", f"secret/canary{number}.txt", ".env"])
        return {"tool": "edit", "params": {"filePath": target, "oldString": "canary" if "canary" in
                                           target else "SECRET", "newString": "edited"}}
    if kind == "glob":
        params = {"pattern": rng.choice(["*.md", "**/*.env", "*", "secret/*"])}
        if rng.random() < 0.3:
            params["path"] = rng.choice(["$OUTSIDE", "sub", "$PROJECT"])
        return {"tool": "glob", "params": params}
    params = {"pattern": rng.choice(["SECRET", "hello", "password"])}
    if rng.random() < 0.3:
        params["path"] = rng.choice(["$OUTSIDE", "sub", "$PROJECT"])
    return {"tool": "grep", "params": params}


def _path_rules(rng: Any, patterns: list[str]) -> Any:
    if rng.random() < 0.25:
        return rng.choice(_ACTIONS[:2])
    rules = {"*": rng.choice(["allow", "allow", "ask"])}
    for pattern in rng.sample(patterns, rng.randint(1, 2)):
        rules[pattern] = rng.choice(_ACTIONS)
    return rules


def corpus_cases(count: int = 80, calls: int = 40, seed: int = CORPUS_SEED) -> list[dict[str, Any]]:
    """The generated corpus: `count` configs with `calls` calls each, the same for the same seed (the
    grammar's second part only from case FIRST_PART on)."""
    import random
    rng = random.Random(seed)
    cases, number = [], 0
    for index in range(count):
        second = index >= FIRST_PART
        bash: dict[str, str] = {"*": rng.choice(["allow", "allow", "ask", "deny"])}
        for pattern in rng.sample(_BASH_RULES + _BASH_RULES_2 if second else _BASH_RULES, rng.randint(1, 4)):
            bash[pattern] = rng.choice(_ACTIONS)
        permission: dict[str, Any] = {"bash": bash if rng.random() < 0.9 else bash["*"]}
        external = rng.random()
        if external < 0.6:
            if external < 0.45:
                permission["external_directory"] = rng.choice(_ACTIONS)
            else:
                outside_rules = {"*": rng.choice(_ACTIONS), "$OUTSIDE/*": rng.choice(_ACTIONS)}
                if second and rng.random() < 0.5:
                    outside_rules["/tmp/*"] = rng.choice(_ACTIONS)
                permission["external_directory"] = outside_rules
        for tool, patterns in (("read", ["*.env", "secret/*", "sub/*", "$OUTSIDE/*"]),
                               ("edit", ["secret/*", "*.env", "*.txt", "$OUTSIDE/*"]),
                               ("glob", ["*.env", "secret/*", "*"]), ("grep", ["password", "SECRET"])):
            if rng.random() < 0.45:
                permission[tool] = _path_rules(rng, patterns)
        if rng.random() < 0.3:  # the order of the keys matters to opencode: the last match wins
            keys = list(permission)
            rng.shuffle(keys)
            permission = {key: permission[key] for key in keys}
        chosen, seen = [], set()
        while len(chosen) < calls:
            number += 1
            call = _one_call(rng, number, second)
            key = json.dumps(call, sort_keys=True)
            if key not in seen:
                seen.add(key)
                chosen.append(call)
        cases.append({"name": f"corpus-{index:03d}", "config": {"permission": permission},
                      "calls": chosen})
    return cases


_LOG_TIME = re.compile(r"^timestamp=(\S+) .*?message=asking id=\S+ permission=(\S+)", re.MULTILINE)


def _log_asks(stderr: str) -> list[tuple[float, str]]:
    from datetime import datetime
    return [(datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp(), permission)
            for stamp, permission in _LOG_TIME.findall(stderr)]


def record_corpus_case(opencode: str, case: dict[str, Any], scratch: Path, port: int
                       ) -> dict[str, Any]:
    """One config of the corpus, all its calls in one `opencode run --auto` (see `fake_model.py`)."""
    outside, home = scratch / "outside", scratch / "home"
    for folder in (outside, home, scratch / case["name"]):
        shutil.rmtree(folder, ignore_errors=True)
    outside.mkdir(parents=True)
    (outside / "seen.txt").write_text("hello\n")
    (home / ".config" / "opencode").mkdir(parents=True)
    sys.path.insert(0, str(HERE.parent))
    from fake_model import provider_config
    (home / ".config" / "opencode" / "opencode.json").write_text(json.dumps(provider_config(port)))
    project = scratch / case["name"]
    make_project(project, expand(case["config"], project, outside, home), case["calls"])
    (project / "secret" / "x.txt").write_text("hidden\n")
    for call in case["calls"]:
        for name in _CANARY.findall(json.dumps(call)):
            if "secret/" + name in json.dumps(call):
                (project / "secret" / name).write_text("canary\n")
    queue = [[call["tool"], expand(call["params"], project, outside, home)] for call in case["calls"]]
    (scratch / "queue.json").write_text(json.dumps(queue))
    command = ["unshare", "-rn", sys.executable, str(HERE.parent / "fake_model.py"), str(port),
               str(scratch / "queue.json"), str(scratch / "out.json"), "--", opencode, "run", "--auto",
               "--print-logs", "--agent", "build", "go"]
    subprocess.run(command, cwd=project, env=opencode_env(home), check=True, timeout=1800)
    out = json.loads((scratch / "out.json").read_text())
    asks = _log_asks(out["stderr"])
    records = []
    for call, sent in zip(case["calls"], (out["calls"] + [None] * len(case["calls"]))[:len(case["calls"])],
                          strict=True):
        entry: list[Any] = [call["tool"], call["params"]]
        if sent is None or sent.get("result") is None:
            entry += ["", "unanswered"]
        else:
            end = sent.get("answered", float("inf"))
            asked = sorted({perm for when, perm in asks if sent["sent"] - 0.002 <= when <= end})
            if call["tool"] not in sent["tools"]:
                action, outcome = "deny", "not offered"
            elif DENIED in sent["result"]:
                action, outcome = "deny", "denied"
            else:
                action, outcome = ("ask" if asked else "allow"), "ran"
            entry += [action, outcome]
            names = sorted(set(re.findall(r"(?:canary|made)\d+\.txt", json.dumps(call))))
            if names:
                entry.append([n for n in names if any((folder / n).exists() for folder in (
                    project, project / "secret", project / "sub", outside))])
        records.append(entry)
    shown = {k: v for k, v in out["calls"][0]["schemas"].items()} if out["calls"] else {}
    return {"name": case["name"], "config": case["config"], "calls": records,
            "tools": sorted(shown)}


def main_corpus(opencode: str, until: str | None) -> int:
    from datetime import UTC, datetime
    target = HERE / "corpus-1.18.33.json"
    done: dict[str, Any] = json.loads(target.read_text()) if target.is_file() else {}
    recorded = {case["name"]: case for case in done.get("cases", [])}
    cases = [case for case in corpus_cases() if case["name"] not in recorded]
    lock = threading.Lock()

    def write() -> None:
        ordered = sorted(recorded.values(), key=lambda case: case["name"])
        lines = ",\n".join(json.dumps(case, separators=(",", ":")) for case in ordered)
        target.write_text(f'{{"opencode_version":"1.18.33","seed":{CORPUS_SEED},"cases":[\n{lines}\n]}}\n')

    def worker(slot: int) -> None:
        with tempfile.TemporaryDirectory(prefix=f"corpus{slot}-") as tmp:
            while True:
                if until and datetime.now(UTC).strftime("%H:%M") >= until:
                    return
                with lock:
                    if not cases:
                        return
                    case = cases.pop(0)
                try:
                    result = record_corpus_case(opencode, case, Path(tmp), 18600 + slot)
                except (subprocess.SubprocessError, OSError, KeyError, ValueError) as failed:
                    print(f"{case['name']}: not recorded ({failed})", flush=True)
                    continue
                answered = [c for c in result["calls"] if c[3] != "unanswered"]
                print(f"{case['name']}: {len(answered)} of {len(result['calls'])} calls", flush=True)
                with lock:
                    recorded[case["name"]] = result
                    write()

    threads = [threading.Thread(target=worker, args=(slot,)) for slot in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return 0


def main() -> int:
    opencode = os.environ.get("OPENCODE", "opencode")
    if "--corpus" in sys.argv:
        until = sys.argv[sys.argv.index("--until") + 1] if "--until" in sys.argv else None
        return main_corpus(opencode, until)
    cases = json.loads((HERE / "cases.json").read_text())["cases"]
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "home").mkdir()
        recorded_with = subprocess.run(["unshare", "-n", opencode, "--version"], capture_output=True,
                                       text=True, check=True, env=opencode_env(Path(tmp) / "home"),
                                       cwd=tmp).stdout.strip()
        for case in cases:
            print(f"recording {case['name']}", flush=True)
            out.append(record_case(opencode, case, Path(tmp)))
    data = {"opencode_version": recorded_with, "cases": out}
    (HERE / f"opencode-{recorded_with}.json").write_text(json.dumps(data, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
