"""`forge-tools verify`: ask the agents installed here, through their own offline checkers, about this
project's rules and the other spellings of its deny rules (FT116's), and compare their answers with
forge-tools' reading. Nothing any agent answers with is a tool run:

- Codex CLI: `codex execpolicy check --rules F... --resolve-host-executables -- ARGV` for every rules
  file Codex reads here (`runtimes.codex.config`), once per command asked: each rule's command, its
  `match` / `not_match` examples, and for a `forbidden` or `prompt` rule its other spellings (as
  argv: `execpolicy` checks argv, not a shell line). The matched prefixes and the decision, or the
  file Codex refuses, are compared with `runtimes.codex.policy`.
- opencode: `opencode debug config` (the merged config: its `permission`, and each agent's) and
  `opencode debug agent NAME` (the agent's final ruleset, in order) for the default agent and any
  named, compared with `permission.agents.load_agents`; then each bash deny/ask rule's command and
  its other spellings are decided over both rulesets (opencode's lowering, `runtimes.opencode`),
  so a difference in the rules is shown as the commands it changes. Never `debug ... --tool`, which
  runs the tool. A config naming plugins is not verified (opencode installs them at start).

The binaries run against the user's own setup (HOME, config), with the environment the command is
given, a timeout per run, and no flag of theirs that reaches the network. An agent that is not
installed, or whose checker fails or times out, is reported as not verified, with the reason.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from forge_tools.config.loader import LoadedConfig
    from forge_tools.rule import Rule
    from forge_tools.runtimes.codex.config import CodexSettings
    from forge_tools.runtimes.codex.policy import Policy

TIMEOUT = 60.0
#: at most this many commands are put to `codex execpolicy check` (one run each)
MAX_CODEX_QUESTIONS = 200
AGENTS = ("codex", "opencode")
DISPLAY = {"codex": "Codex CLI", "opencode": "opencode"}
#: environment variables that name a binary instead of PATH
BIN_ENV = {"codex": "FORGE_TOOLS_CODEX", "opencode": "FORGE_TOOLS_OPENCODE"}
#: opencode's own switches that keep it off the network while it answers (none changes a rule)
OPENCODE_QUIET = {"OPENCODE_DISABLE_AUTOUPDATE": "1", "OPENCODE_DISABLE_MODELS_FETCH": "1",
                  "OPENCODE_DISABLE_LSP_DOWNLOAD": "1", "OPENCODE_DISABLE_SHARE": "1"}

#: runs an agent's command: (argv, cwd, env, timeout) -> (exit code, stdout, stderr); raises
#: subprocess.TimeoutExpired or OSError
Runner = Callable[[Sequence[str], Path, Mapping[str, str], float], tuple[int, str, str]]


def run_binary(argv: Sequence[str], cwd: Path, env: Mapping[str, str],
               timeout: float) -> tuple[int, str, str]:
    proc = subprocess.run(list(argv), cwd=cwd, env=dict(env), capture_output=True, text=True,
                          timeout=timeout, stdin=subprocess.DEVNULL, check=False)
    return proc.returncode, proc.stdout, proc.stderr


@dataclass(frozen=True)
class Disagreement:
    """One question the agent and forge-tools answer differently."""

    subject: str  # what was asked: a command, a ruleset position, a config key
    theirs: str
    ours: str
    where: str | None = None  # the rule or file the question came from

    def to_json(self) -> dict[str, Any]:
        return {"subject": self.subject, "theirs": self.theirs, "ours": self.ours, "where": self.where}


@dataclass
class Verification:
    """One agent's verification: how many questions, which disagreed, or why it was not verified."""

    agent: str
    binary: str | None = None
    version: str | None = None
    asked: int = 0
    disagreements: list[Disagreement] = field(default_factory=list)
    not_verified: str | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def display(self) -> str:
        return DISPLAY[self.agent]

    def to_json(self) -> dict[str, Any]:
        return {"agent": self.agent, "binary": self.binary, "version": self.version, "asked": self.asked,
                "verified": self.not_verified is None, "why_not": self.not_verified, "notes": self.notes,
                "disagreements": [d.to_json() for d in self.disagreements]}


def find_binary(agent: str, env: Mapping[str, str]) -> Path | None:
    """The agent's binary: `FORGE_TOOLS_<AGENT>` when set, else the first on PATH."""
    named = env.get(BIN_ENV[agent])
    if named:
        return Path(named) if Path(named).is_file() else None
    found = shutil.which(agent, path=env.get("PATH", os.defpath))
    return Path(found) if found else None


def installed_version(binary: Path) -> str | None:
    """The npm package's version beside the binary (`node_modules/<pkg>/package.json`), read, not run."""
    real = binary.resolve()
    for folder in real.parents:
        package = folder / "package.json"
        if package.is_file():
            try:
                data = json.loads(package.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                return None
            version = data.get("version") if isinstance(data, dict) else None
            return str(version) if version else None
        if folder.name == "node_modules":
            break
    return None


# ---- Codex CLI -------------------------------------------------------------------------------------

def codex_questions(policy: Policy) -> list[tuple[tuple[str, ...], str]]:
    """(argv, the rule it came from) for every command to put to `execpolicy check`: each rule's
    command (every alternative of its first token), that command with one more word, its examples,
    and for a forbidden or prompt rule the command's other spellings, split as a shell would."""
    from forge_tools.tools.spellings import other_spellings

    out: dict[tuple[str, ...], str] = {}
    for f in policy.files:
        for rule in f.rules:
            where = str(rule.origin)
            words = tuple(alts[0] for alts in rule.pattern)
            for first in rule.pattern[0] if rule.pattern else ():
                out.setdefault((first, *words[1:]), where)
            out.setdefault((*words, "x"), where)
            for example in (*rule.match, *rule.not_match):
                out.setdefault(example.tokens, where)
            if rule.decision != "allow" and words:
                for spelling in other_spellings(shlex.join(words)):
                    try:
                        argv = tuple(shlex.split(spelling))
                    except ValueError:
                        continue
                    if argv:
                        out.setdefault(argv, where)
    return list(out.items())[:MAX_CODEX_QUESTIONS]


def codex_answer(policy: Policy, argv: Sequence[str], cwd: Path, resolve: bool = True) -> dict[str, Any]:
    """forge-tools' answer in `execpolicy check`'s terms: the decision and matched prefixes, or the
    file it refuses (`resolve`: `--resolve-host-executables`, as Codex itself always does)."""
    refused = policy.error
    if refused is not None:
        return {"refused": refused.path.name if refused.error is not None else None,
                "unread": refused.unread}
    got = policy.evaluate(tuple(argv), resolve, cwd)
    matched = sorted([list(m.prefix), m.rule.decision] for m in got.matches)
    return {"decision": got.decision, "matched": matched}


def parse_codex_output(rc: int, stdout: str, stderr: str) -> dict[str, Any]:
    """`execpolicy check`'s output in the same terms (`refused`: the file name it failed to parse)."""
    if rc == 0:
        data = json.loads(stdout)
        matched = [[m["prefixRuleMatch"]["matchedPrefix"], m["prefixRuleMatch"]["decision"]]
                   for m in data.get("matchedRules", []) if "prefixRuleMatch" in m]
        return {"decision": data.get("decision"), "matched": sorted(matched)}
    for line in stderr.splitlines():
        if "failed to parse policy at " in line:
            path = line.split("failed to parse policy at ", 1)[1].strip().rstrip(":")
            return {"refused": Path(path).name, "message": stderr.strip()}
    return {"failed": (stderr.strip() or stdout.strip() or f"exit {rc}").splitlines()[0]}


def _codex_words(answer: dict[str, Any]) -> str:
    if "refused" in answer:
        return f"refuses {answer['refused']}" if answer["refused"] else "does not read a file"
    matched = ", ".join(f"{' '.join(p)} ({d})" for p, d in answer["matched"]) or "no rule"
    return f"{answer['decision'] or 'no decision'} ({matched})"


def compare_codex(argv: Sequence[str], where: str, theirs: dict[str, Any], ours: dict[str, Any]
                  ) -> Disagreement | None:
    """A disagreement about one command, or None."""
    if "refused" in theirs or "refused" in ours:
        if theirs.get("refused") == ours.get("refused") and ours.get("refused") is not None:
            return None
        return Disagreement(shlex.join(argv), _codex_words(theirs), _codex_words(ours), where)
    if (theirs["decision"], theirs["matched"]) == (ours["decision"], ours["matched"]):
        return None
    return Disagreement(shlex.join(argv), _codex_words(theirs), _codex_words(ours), where)


def verify_codex(settings: CodexSettings, binary: Path, env: Mapping[str, str], run: Runner = run_binary,
                 timeout: float = TIMEOUT) -> Verification:
    from forge_tools.runtimes.codex.policy import Policy

    out = Verification("codex", str(binary), installed_version(binary))
    files = [path for path, _scope, loaded, _why in settings.rules_files if loaded]
    if not files:
        out.not_verified = "no rules file Codex reads here (~/.codex/rules, a trusted project's .codex/rules)"
        return out
    policy = Policy.read(files)
    if policy.error is not None and policy.error.unread is not None:
        out.not_verified = f"forge-tools does not read {policy.error.path}: {policy.error.unread}"
        return out
    flags = [a for p in files for a in ("--rules", str(p))]
    questions = codex_questions(policy) if policy.error is None else [(("true",), str(policy.error.path))]
    for argv, where in questions:
        try:
            rc, stdout, stderr = run([str(binary), "execpolicy", "check", *flags,
                                      "--resolve-host-executables", "--", *argv], settings.cwd, env, timeout)
        except subprocess.TimeoutExpired:
            out.not_verified = f"`codex execpolicy check` did not answer within {timeout:g} s"
            return out
        except OSError as exc:
            out.not_verified = f"cannot run {binary}: {exc}"
            return out
        theirs = parse_codex_output(rc, stdout, stderr)
        if "failed" in theirs:
            out.not_verified = f"`codex execpolicy check` failed: {theirs['failed']}"
            return out
        out.asked += 1
        found = compare_codex(argv, where, theirs, codex_answer(policy, argv, settings.cwd))
        if found is not None:
            out.disagreements.append(found)
    return out


# ---- opencode --------------------------------------------------------------------------------------

def ruleset_of(printed: Any) -> list[tuple[str, str, str]]:
    """`opencode debug agent NAME`'s `permission` list as (permission, pattern, action)."""
    rules = printed.get("permission") if isinstance(printed, dict) else None
    if not isinstance(rules, list):
        raise ValueError("no `permission` list in opencode's answer")
    return [(str(r.get("permission")), str(r.get("pattern")), str(r.get("action"))) for r in rules]


def opencode_output_glob(env: Mapping[str, str]) -> str:
    """opencode's own tool-output folder's `external_directory` pattern (forge-tools' gate keeps its
    output in its own folder: that rule is the same rule, compared as such)."""
    from forge_tools.paths import home_dir

    data = Path(env["XDG_DATA_HOME"]) if env.get("XDG_DATA_HOME") else home_dir(env) / ".local" / "share"
    return str(data / "opencode" / "tool-output") + "/*"


def compare_rulesets(agent: str, theirs: list[tuple[str, str, str]], ours: Sequence[Rule],
                     env: Mapping[str, str] | None = None) -> list[Disagreement]:
    """Each position where the two ordered rulesets differ (at most the first 20). opencode's
    tool-output folder counts as forge-tools' own (`opencode_output_glob`)."""
    from forge_tools.paths import truncation_globs

    if env is not None:
        own, forge = opencode_output_glob(env), truncation_globs(env)[-1]
        theirs = [(p, forge if p == "external_directory" and pat == own else pat, a) for p, pat, a in theirs]
    mine = [(r.permission, r.pattern, r.action) for r in ours]
    out = []
    for i in range(max(len(theirs), len(mine))):
        a = theirs[i] if i < len(theirs) else None
        b = mine[i] if i < len(mine) else None
        if a != b:
            where = str(ours[i].origin) if i < len(ours) else None
            out.append(Disagreement(f"agent {agent}: rule {i + 1}", _rule_words(a), _rule_words(b), where))
        if len(out) >= 20:
            break
    return out


def _rule_words(rule: tuple[str, str, str] | None) -> str:
    return f"{rule[0]} {rule[1]!r}: {rule[2]}" if rule is not None else "no rule"


def spelling_questions(ruleset: Sequence[Rule]) -> list[tuple[str, str]]:
    """(command, the rule's origin) for each bash deny/ask rule's command and its other spellings."""
    from forge_tools.check.context import is_user_rule
    from forge_tools.tools.spellings import example_command, other_spellings

    out: dict[str, str] = {}
    for rule in ruleset:
        if rule.permission != "bash" or rule.action == "allow" or not is_user_rule(rule):
            continue
        command = example_command(rule.pattern)
        if command is None:
            continue
        for form in (command, *other_spellings(command)):
            out.setdefault(form, str(rule.origin))
    return list(out.items())


def bash_action(command: str, ruleset: Sequence[Rule], root: Path, cwd: Path) -> str:
    """opencode's decision of a bash call over `ruleset`: each command of the line (its lowering),
    the strictest wins."""
    from forge_tools.permission.calls import STRICTNESS
    from forge_tools.permission.evaluate import evaluate
    from forge_tools.runtimes.opencode.decide import bash_requests

    actions = ["allow"]
    for request in bash_requests(command, None, str(root), str(cwd)):
        if request.permission == "bash":
            actions += [evaluate("bash", p, ruleset).action for p in request.patterns]
    return max(actions, key=lambda a: STRICTNESS[a])


def compare_config(theirs: Any, ours: Any) -> list[Disagreement]:
    """`permission` and each agent's `permission` of opencode's merged config against forge-tools'."""
    out = []
    names = set(_dig(theirs, ("agent",)) or {}) | set(_dig(ours, ("agent",)) or {})
    keys = [("permission",)] + [("agent", name, "permission") for name in sorted(names)]
    for key in keys:
        a, b = _dig(theirs, key), _dig(ours, key)
        if a != b:
            out.append(Disagreement("config " + ".".join(key), json.dumps(a, sort_keys=True),
                                    json.dumps(b, sort_keys=True)))
    return out


def _dig(data: Any, keys: tuple[str, ...]) -> Any:
    for key in keys:
        data = data.get(key) if isinstance(data, dict) else None
    return data


def verify_opencode(loaded: LoadedConfig, binary: Path, env: Mapping[str, str], agents: Sequence[str] = (),
                    run: Runner = run_binary, timeout: float = TIMEOUT) -> Verification:
    from forge_tools.origin import Origin
    from forge_tools.permission.agents import default_agent_name, load_agents
    from forge_tools.rule import Rule

    out = Verification("opencode", str(binary), installed_version(binary))
    tree = loaded.tree.plain() if loaded.tree is not None else {}
    if isinstance(tree, dict) and tree.get("plugin"):
        out.not_verified = "the config names plugins, which opencode installs when it starts (network)"
        return out
    cwd = Path(loaded.cwd)
    quiet = {**env, **OPENCODE_QUIET}

    def ask(*args: str) -> Any:
        rc, stdout, stderr = run([str(binary), "debug", *args], cwd, quiet, timeout)
        if rc != 0:
            raise RuntimeError(f"`opencode debug {' '.join(args)}` failed: "
                               + ((stderr.strip() or stdout.strip()).splitlines() or [f"exit {rc}"])[0])
        start = stdout.find("{")
        return json.loads(stdout[start:]) if start >= 0 else None

    ours_agents = load_agents(loaded)
    names = list(agents) or [default_agent_name(loaded, ours_agents)]
    watched = {Path(src.path) for src in loaded.sources if src.path is not None}
    watched |= {Path(loaded.project_root) / n for n in ("opencode.json", "opencode.jsonc")}
    before = {path: path.read_bytes() for path in watched if path.is_file()}
    try:
        config = ask("config")
        out.asked += 1
        out.disagreements += compare_config(config, tree)
        for name in names:
            printed = ask("agent", name)
            out.asked += 1
            theirs = [Rule(p, pat, act, Origin("default", name="opencode debug agent"))  # type: ignore[arg-type]
                      for p, pat, act in ruleset_of(printed)]
            mine = ours_agents[name].ruleset if name in ours_agents else ()
            out.disagreements += compare_rulesets(name, ruleset_of(printed), mine, env)
            root = Path(loaded.project_root)
            for command, where in spelling_questions(mine):
                out.asked += 1
                a, b = bash_action(command, theirs, root, cwd), bash_action(command, mine, root, cwd)
                if a != b:
                    out.disagreements.append(Disagreement(f"agent {name}: bash {command}", a, b, where))
    except subprocess.TimeoutExpired:
        out.not_verified = f"`opencode debug` did not answer within {timeout:g} s"
    except (OSError, RuntimeError, ValueError) as exc:
        out.not_verified = str(exc)
    finally:
        out.notes += _restore(watched, before)
    return out


def _restore(watched: set[Path], before: dict[Path, bytes]) -> list[str]:
    """Put back each config file opencode changed while it answered (it adds a `$schema` line to a
    file without one) and remove one it created: verify leaves the files as it found them."""
    notes = []
    for path in sorted(watched):
        now = path.read_bytes() if path.is_file() else None
        if now == before.get(path):
            continue
        if path in before:
            path.write_bytes(before[path])
            notes.append(f"opencode rewrote {path} while answering; put back as it was")
        elif now is not None:
            path.unlink()
            notes.append(f"opencode created {path} while answering; removed")
    return notes


# ---- both ------------------------------------------------------------------------------------------

def verify(loaded: LoadedConfig, env: Mapping[str, str] | None = None, agents: Sequence[str] = AGENTS,
           opencode_agents: Sequence[str] = (), run: Runner = run_binary,
           timeout: float = TIMEOUT) -> list[Verification]:
    """Every agent in `agents`, asked through its installed checker (or said not verified, and why)."""
    from forge_tools.runtimes.codex.config import read_codex

    env = dict(os.environ if env is None else env)
    results = []
    for agent in agents:
        binary = find_binary(agent, env)
        if binary is None:
            where = f"${BIN_ENV[agent]}" if env.get(BIN_ENV[agent]) else "PATH"
            results.append(Verification(agent, not_verified=f"`{agent}` is not installed (not on {where})"))
            continue
        if agent == "codex":
            settings = read_codex(Path(loaded.cwd), env)
            results.append(verify_codex(settings, binary, env, run, timeout))
        else:
            results.append(verify_opencode(loaded, binary, env, opencode_agents, run, timeout))
    return results


def report_lines(results: Sequence[Verification]) -> list[str]:
    lines = []
    for r in results:
        label = r.display + (f" {r.version}" if r.version else "") + (f" ({r.binary})" if r.binary else "")
        if r.not_verified is not None:
            lines.append(f"{label}: NOT VERIFIED: {r.not_verified}")
            lines += [f"  note: {n}" for n in r.notes]
            continue
        state = "agrees" if not r.disagreements else f"{len(r.disagreements)} DISAGREEMENT(S)"
        lines.append(f"{label}: {r.asked} question(s) asked, {state}")
        lines += [f"  note: {n}" for n in r.notes]
        for d in r.disagreements:
            lines.append(f"  {d.subject}: {r.display} says {d.theirs}; forge-tools says {d.ours}"
                         + (f" ({d.where})" if d.where else ""))
    return lines
