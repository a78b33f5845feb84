"""Claude Code 2.1.332's decision of one tool call, without running it.

The loaded rules of every settings file are merged; for the call's tool and input, any matching deny
denies, else any matching ask asks, else any matching allow allows, whatever file each came from.
When nothing matches, Claude's default decides: read-only tools (Read, Glob, Grep, ...) and
read-only Bash commands (`readonly.py`) are allowed, as are reads inside the working directories;
edits ask (allowed in the working directories under `acceptEdits`); everything else asks. The mode
then applies: `dontAsk` turns every ask into a deny; `bypassPermissions` allows what only the
default would have asked (an ask or deny rule still holds).

A Bash line is split into subcommands (`shell.py`): each is decided so; any deny denies the line,
any ask asks, else it is allowed. An output redirection to a file asks unless a deny or ask rule
decided the subcommand. Commands inside `$(...)` and backquotes are checked against deny and ask
rules; the line is otherwise asked.

`reason_type` is the binary's name for what decided: `rule` (a rule matched the whole call),
`subcommandResults` (the line's subcommands decided), `mode` (the mode, or the default for a
read-only tool), `other`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from forge_tools.named_tuple import NamedTuple
from forge_tools.runtimes.claude.mcp import no_server_why, normalise, server_named
from forge_tools.runtimes.claude.readonly import read_only
from forge_tools.runtimes.claude.rules import (
    EDIT_TOOLS,
    READ_TOOLS,
    bash_matches,
    bash_pattern,
    domain_matches,
    gitignore_matches,
    mcp_parts,
    path_rule,
    tool_rule_matches,
)
from forge_tools.runtimes.claude.settings import Behavior, ClaudeRule, ClaudeSettings
from forge_tools.runtimes.claude.shell import (
    EDIT_WRAPPERS,
    Part,
    builtin_argv,
    deny_candidates,
    lower,
    strip_wrappers,
    unsafe_free,
    watched,
)
from forge_tools.runtimes.claude.tools import NO_PERMISSION, canonical, hiding_rule, input_problem, is_builtin

_ORDER = {"allow": 0, "ask": 1, "deny": 2}
#: tools whose unruled calls a record shows asking (`no-config`: WebSearch); any other such tool's
#: ask is modelled
RECORDED_ASK = frozenset({"WebSearch"})
#: commands whose arguments Claude checks as paths: read ones against Read rules, the rest
#: against Edit rules (`grep`, `rg` and `sed` take a pattern or script first)
READ_COMMANDS = frozenset({"cat", "head", "tail", "sort", "stat", "diff", "wc", "grep", "rg", "sed"})


class Check(NamedTuple):
    """One thing Claude decided: a subcommand, a path, a URL or the tool itself."""

    subject: str
    behavior: Behavior
    rule: ClaudeRule | None
    why: str
    fidelity: str = "reproduced"  # or "modelled": no record of the binary shows this fact


class ClaudeDecision(NamedTuple):
    behavior: Behavior
    reason_type: str
    checks: tuple[Check, ...]
    offered: bool = True
    invalid: str | None = None  # Claude's input validation refused the call (no permission asked)

    @property
    def deciding(self) -> Check | None:
        worst: Check | None = None
        for check in self.checks:
            if worst is None or _ORDER[check.behavior] > _ORDER[worst.behavior]:
                worst = check
        return worst

    @property
    def rule(self) -> ClaudeRule | None:
        d = self.deciding
        return d.rule if d is not None else None


def _first(rules: list[ClaudeRule], behavior: str, test: Any) -> ClaudeRule | None:
    return next((r for r in rules if r.behavior == behavior and test(r)), None)


def _by_rules(rules: list[ClaudeRule], test: Any) -> tuple[Behavior, ClaudeRule] | None:
    for behavior in ("deny", "ask", "allow"):
        rule = _first(rules, behavior, test)
        if rule is not None:
            return behavior, rule
    return None


def decide(settings: ClaudeSettings, tool: str, args: dict[str, Any], cwd: Path | None = None,
           server_tools: Mapping[str, frozenset[str] | None] | None = None) -> ClaudeDecision:
    """What Claude Code does with a call of `tool` (its own name) with `args`. `server_tools`: per
    started MCP server, the tools it lists (`mcp.server_tools`); without it, or for a server that
    could not be listed, an MCP call is decided by the rules and the answer says the tool may be
    missing."""
    decision = _refused_ask(settings, _decide(settings, tool, args, cwd))
    parts = mcp_parts(canonical(tool))
    server = server_named(settings, parts[0]) if parts is not None and decision.offered else None
    deciding = decision.deciding
    if server is None or deciding is None or parts is None:
        return decision
    listed = (server_tools or {}).get(parts[0])
    if listed is not None and parts[1] is not None and parts[1] not in listed:
        return ClaudeDecision("deny", "not_offered", (Check(canonical(tool), "deny", None,
                              f"the MCP server {server.name!r} ({server.scope}, {server.origin}) was "
                              f"started and lists no tool {parts[1]!r}: Claude Code has no such tool"),),
                              False)
    if listed is not None:
        return decision
    # the rules' answer holds if the server has the tool: its tool list is not known here
    said = (f"{deciding.why} (the MCP server {server.name!r} is Claude's, {server.scope} scope at "
            f"{server.origin}; whether it has this tool is not known: it was not listed here, and "
            "Claude Code has no tool its server does not list)")
    checks = tuple(c._replace(why=said) if c is deciding else c for c in decision.checks)
    return decision._replace(checks=checks)


def _refused_ask(settings: ClaudeSettings, decision: ClaudeDecision) -> ClaudeDecision:
    """`claude -p` with no one to answer a prompt (`--permission-prompts host`, the default, and no
    SDK host): what would ask is refused ("... needs approval", "you haven't granted it yet"; recorded:
    tests/compat/claude/launch-2.1.332.json `launch-prompts-host`)."""
    if not settings.asks_refused or decision.behavior != "ask":
        return decision
    why = "claude -p has no one to ask (--permission-prompts host, no host): refused"
    checks = tuple(c._replace(behavior="deny", why=f"{c.why}; {why}") if c.behavior == "ask" else c
                   for c in decision.checks)
    return decision._replace(behavior="deny", checks=checks)


def _decide(settings: ClaudeSettings, tool: str, args: dict[str, Any], cwd: Path | None = None
            ) -> ClaudeDecision:
    name = canonical(tool)
    if settings.start_error is not None:
        return ClaudeDecision("deny", "other", (Check(name, "deny", None, settings.start_error),), False)
    hidden = hiding_rule(settings, name)
    if hidden is not None:
        return ClaudeDecision("deny", "tool_disabled", (Check(name, "deny", hidden,
                              f"not offered: the deny rule {hidden.text!r} removes {name}"),), False)
    server = mcp_parts(name)
    if server is not None and (server_named(settings, server[0]) is None
                               or (server[1] is not None and normalise(server[1]) != server[1])):
        return ClaudeDecision("deny", "not_offered", (Check(name, "deny", None,
                              no_server_why(settings, *server)),), False)
    if not name.startswith("mcp__") and not is_builtin(settings, name):
        return ClaudeDecision("deny", "other", (Check(name, "deny", None,
                              f"Claude Code does not offer {name} in this session (no such tool)"),),
                              False)
    problem = input_problem(name, args)
    if problem is not None:
        return ClaudeDecision("deny", "other", (Check(name, "deny", None, problem),), True, problem)
    rules = settings.loaded_rules
    if settings.mode in ("plan", "auto"):
        rules = [r for r in rules if not _dangerous_allow(r)]
    here = Path(cwd) if cwd is not None else settings.cwd
    bare = [r for r in rules if r.content is None and (tool_rule_matches(r.tool, name) or (
        name in EDIT_TOOLS and r.tool == "Read" and r.behavior == "deny"))]  # a Read deny covers edits
    decided = _by_rules(bare, lambda r: True)
    if decided is not None and decided[0] == "ask" and name == "Bash":
        # a bare (or `*`) Bash ask: a deny of a subcommand or of a path it names still denies
        denied = _bash(settings, str(args.get("command", "")), [r for r in rules if r.behavior == "deny"],
                       None, here)
        if denied.behavior == "deny" and denied.deciding is not None and denied.deciding.rule is not None:
            return denied
    if decided is not None and decided[0] != "allow":
        behavior, rule = decided
        return _moded(settings, ClaudeDecision(behavior, "rule", (Check(name, behavior, rule,
                                               f"the rule {rule.text!r} names the tool"),)), name)
    if decided is not None and name != "Bash":
        # a bare allow: the tool's deny and ask rules with a content still decide first
        strict = [r for r in rules if r.content is not None and r.behavior != "allow"]
        answer = decide_content(settings, name, args, strict, here)
        if answer is not None and answer.behavior != "allow" and answer.checks[0].rule is not None:
            return answer
        rule = decided[1]
        if settings.mode == "plan" and name in EDIT_TOOLS:  # plan asks before every edit
            target = _path_of(name, args, here)
            return _plan_edit(settings, name, str(target), _real(target, here), f"the rule {rule.text!r} "
                              "names the tool, but plan mode asks before every edit")
        return _moded(settings, ClaudeDecision("allow", "rule", (Check(name, "allow", rule,
                                               f"the rule {rule.text!r} names the tool"),)), name)
    return decide_content(settings, name, args, rules, here, decided) or _moded(
        settings, _default(name, name, f"no rule names {name}: Claude Code asks",
                           "reproduced" if name.startswith("mcp__") or name in RECORDED_ASK
                           else "modelled"), name)


def decide_content(settings: ClaudeSettings, name: str, args: dict[str, Any], rules: list[ClaudeRule],
                   here: Path, decided: tuple[Behavior, ClaudeRule] | None = None) -> ClaudeDecision | None:
    """The call decided by rules with a content (and the default for the tool); None for a tool
    whose calls only bare rules decide."""
    if name == "Bash":
        return _bash(settings, str(args.get("command", "")), rules, decided, here)
    if name in READ_TOOLS or name in EDIT_TOOLS:
        return _path_call(settings, name, args, rules, here)
    if name == "WebFetch":
        url = str(args.get("url", ""))
        hit = _by_rules([r for r in rules if r.tool == "WebFetch" and r.content is not None],
                        lambda r: domain_matches(r.content or "", url))
        if hit is not None:
            return _moded(settings, ClaudeDecision(hit[0], "rule", (Check(url, hit[0], hit[1],
                                                   f"the rule {hit[1].text!r} names its domain"),)),
                          name)
        return _moded(settings, _default(name, url, "no rule names this domain: Claude Code asks"), name)
    if name in NO_PERMISSION:
        return ClaudeDecision("allow", "other", (Check(name, "allow", None,
                              f"{name} needs no permission in Claude Code", "modelled"),))
    return None


def _default(tool: str, subject: str, why: str, fidelity: str = "reproduced") -> ClaudeDecision:
    return ClaudeDecision("ask", "other", (Check(subject, "ask", None, why, fidelity),))


#: the tools whose unruled calls plan mode leaves to Claude's classifier (auto mode: every tool's),
#: which does not run offline (the binary denies them: "Auto mode is unavailable")
CLASSIFIED = frozenset({"Bash", "WebFetch", "WebSearch"})
#: commands an allow rule may not name as a whole in plan and auto mode: Claude drops such a rule
#: there (its `strippedDangerousRules`), as it drops a bare `Bash` allow (generated corpus: `Bash`,
#: `Bash(sudo *)` allow nothing in plan mode)
DANGEROUS_PREFIXES = frozenset({
    "python", "python3", "python2", "node", "deno", "tsx", "ruby", "perl", "php", "lua", "npx", "bunx",
    "pnpx", "npm run", "yarn run", "pnpm run", "bun run", "npm exec", "npm x", "pnpm exec", "pnpm dlx",
    "yarn exec", "yarn dlx", "bun exec", "bun x", "bash", "sh", "ssh", "zsh", "fish", "eval", "exec", "env",
    "xargs", "sudo"})


def _dangerous_allow(rule: ClaudeRule) -> bool:
    """A Bash allow Claude drops in plan and auto mode: bare, `*`, or one naming a whole interpreter,
    shell or privilege command (`python3 *`, `npm run:*`, `sudo *`; not `npm run test:*`)."""
    if rule.behavior != "allow" or rule.tool != "Bash":
        return False
    if rule.content is None:
        return True
    text = " ".join(rule.content.strip().lower().split())
    if text == "*":
        return True
    # only the whole-command forms: `Bash(npm run test:*)` still allows in plan mode (a second
    # generated corpus, seed 4242)
    return any(text in (prefix, f"{prefix}:*", f"{prefix} *", f"{prefix}*") for prefix in DANGEROUS_PREFIXES)


def _moded(settings: ClaudeSettings, decision: ClaudeDecision, tool: str | None = None) -> ClaudeDecision:
    """The mode's last word: dontAsk denies every ask; bypassPermissions allows all that no deny or
    ask rule decided; plan and auto leave an unruled Bash or WebFetch call to the classifier, which
    is not there offline (deny)."""
    mode = settings.mode
    if decision.behavior == "deny":
        return decision
    ruled_ask = any(c.behavior == "ask" and c.rule is not None for c in decision.checks)
    if mode == "bypassPermissions":
        if ruled_ask:
            return decision
        checks = tuple(c._replace(behavior="allow", why=c.why + "; bypassPermissions allows it")
                       if c.behavior == "ask" else c for c in decision.checks)
        return ClaudeDecision("allow", "mode", checks, decision.offered)
    if decision.behavior != "ask":
        return decision
    if mode == "dontAsk":
        checks = tuple(c._replace(behavior="deny", why=c.why + "; dontAsk denies what would ask")
                       if c.behavior == "ask" else c for c in decision.checks)
        return ClaudeDecision("deny", "mode", checks, decision.offered)
    if (mode == "auto" or (mode == "plan" and tool in CLASSIFIED)) and not ruled_ask:
        checks = tuple(c._replace(behavior="deny", why=c.why + f"; in {mode} mode Claude Code leaves it to "
                                  "its classifier, which does not run here: deny", fidelity="reproduced")
                       if c.behavior == "ask" else c for c in decision.checks)
        return ClaudeDecision("deny", "classifier", checks, decision.offered)
    return decision


# ------------------------------------------------------------------------------------------ Bash

#: the commands acceptEdits runs unasked when every path they name is in the working directories
#: (touch, mkdir, rm, mv and cp recorded; rmdir modelled; `sed -i` asks, recorded)
ACCEPT_EDITS_COMMANDS = frozenset({"touch", "mkdir", "rm", "rmdir", "mv", "cp"})
RECORDED_ACCEPT_EDITS = frozenset({"touch", "mkdir", "rm", "mv", "cp"})


def _bash_rules(rules: list[ClaudeRule]) -> list[ClaudeRule]:
    return [r for r in rules if r.tool == "Bash" and r.content is not None]


def _match(rules: list[ClaudeRule], part: Part) -> tuple[Behavior, ClaudeRule] | None:
    """The strictest rule matching one subcommand: deny and ask rules see more of its forms
    (`shell.deny_candidates`) than allow rules do; a wildcard allow does not approve a command
    whose words the shell expands as a glob."""
    strict = deny_candidates(part)
    stricter: tuple[Behavior, ...] = ("deny", "ask")
    for behavior in stricter:
        rule = _first(rules, behavior, lambda r: any(bash_matches(r.content or "", c) for c in strict))
        if rule is not None:
            return behavior, rule

    if watched(part.stripped) is not None:
        return None  # `watch cmd` is allowed by a bare Bash allow only (recorded, deny-through-sudo-noallow)

    def allows(r: ClaudeRule) -> bool:
        kind = bash_pattern(r.content or "").kind
        if part.expands and not any("$" not in c for c in part.candidates[2:]):
            return False  # a variable's value is not known when the rule is matched
        if part.glob and kind == "wildcard":
            return False
        if kind == "exact":  # as written (trimmed): `touch  n-1` is not `touch n-1`
            return any(bash_matches(r.content or "", c) for c in part.candidates if c != _blank(part.text))
        return any(bash_matches(r.content or "", c) for c in part.candidates)

    rule = _first(rules, "allow", allows)
    return ("allow", rule) if rule is not None else None


def _rule_hit(settings: ClaudeSettings, parts: list[Part], part: Part,
              hit: tuple[Behavior, ClaudeRule]) -> ClaudeDecision:
    """A deny or ask rule matching one subcommand of a line a bare `Bash` allows."""
    named = len(parts) == 1 and any(_whole(hit[1], c) for c in deny_candidates(part))
    return _moded(settings, ClaudeDecision(hit[0], "rule" if named else "subcommandResults", (Check(
        part.text, hit[0], hit[1], f"the rule {hit[1].text!r} matches {part.text!r}"),)), "Bash")


def _blank(text: str) -> str | None:
    import re

    squeezed = re.sub(r"[ \t]+", " ", text)
    return squeezed if squeezed != text else None


def _bash(settings: ClaudeSettings, command: str, rules: list[ClaudeRule],
          bare_allow: tuple[Behavior, ClaudeRule] | None, cwd: Path) -> ClaudeDecision:
    bash = _bash_rules(rules)
    inner = _substituted(command)
    for text in inner:
        hit = _by_rules([r for r in bash if r.behavior != "allow"],
                        lambda r, t=text: bash_matches(r.content or "", t))
        if hit is not None and hit[0] == "deny":
            return _moded(settings, ClaudeDecision("deny", "rule", (Check(text, "deny", hit[1],
                                                   f"the rule {hit[1].text!r} matches {text!r}"),)), "Bash")
        if hit is not None and bare_allow is not None:  # an ask rule of a command inside $(...)
            return _moded(settings, ClaudeDecision("ask", "rule", (Check(text, "ask", hit[1],
                          f"the rule {hit[1].text!r} matches {text!r}, inside a substitution"),)), "Bash")
    parts = lower(command)
    if len(parts) > 1 and parts[0].argv[:1] == ("command",):
        # behind `command`, a prefix deny matching the rest of the line as a whole is the binary's
        # `rule` (generated corpus: `command npm run test && ls` under `Bash(npm run test:*)`;
        # `time git -C . push ... && ...` and `git log -1 | sort` stay subcommandResults)
        line = command.strip()[len("command"):].strip()
        prefixes = [r for r in bash
                    if r.behavior == "deny" and bash_pattern(r.content or "").kind == "prefix"]
        whole = _first(prefixes, "deny", lambda r: bash_matches(r.content or "", line))
        if whole is not None and _match([whole], parts[0]) is not None:
            return _moded(settings, ClaudeDecision("deny", "rule", (Check(command.strip(), "deny", whole,
                                                   f"the rule {whole.text!r} matches {line!r}"),)), "Bash")
    inner_watch = watched(parts[0].stripped) if len(parts) == 1 else None
    if inner_watch:
        # `watch [options] cmd`: the command it repeats is matched against deny rules first,
        # as a whole (the binary's `rule`; recorded, deny-through-sudo-*)
        repeated = " ".join(inner_watch)
        lowered = lower(repeated)
        forms = deny_candidates(lowered[0]) if len(lowered) == 1 else (repeated,)
        watch_hit = _by_rules([r for r in bash if r.behavior == "deny"],
                              lambda r: any(bash_matches(r.content or "", f) for f in forms))
        if watch_hit is not None:
            return _moded(settings, ClaudeDecision("deny", "rule", (Check(
                command.strip(), "deny", watch_hit[1], f"the rule {watch_hit[1].text!r} matches "
                f"{repeated!r}, the command watch runs"),)), "Bash")
    if bare_allow is not None:
        # `Bash` (or `Bash(*)`) allowed: only a deny or ask rule matching a subcommand, or a
        # path argument a Read or Edit deny covers, still decides
        hits = [_match([r for r in bash if r.behavior != "allow"], part) for part in parts]
        for part, hit in zip(parts, hits, strict=True):
            if hit is not None and hit[0] == "deny":
                return _rule_hit(settings, parts, part, hit)
        # a path deny wins over an ask rule (recorded, bash-ask-vs-path-deny-bare); `rule` when an
        # ask rule matches a denied subcommand outside a pipeline
        denied = [(part, hit, d) for part, hit in zip(parts, hits, strict=True)
                  for d in [_denied_path(settings, part, rules, cwd)] if d is not None]
        if denied:
            wrapped = len(parts) == 1 and denied[0][0].opaque in ("a subshell", "a { ...; } group")
            asked = any(hit is not None and not part.piped for part, hit, _ in denied)
            return ClaudeDecision("deny", "rule" if wrapped or asked else "subcommandResults",
                                  (denied[0][2],))
        for part, hit in zip(parts, hits, strict=True):
            if hit is not None:
                return _rule_hit(settings, parts, part, hit)
        touchy = _bash_sensitive(settings, parts, cwd) if settings.mode == "acceptEdits" else None
        if touchy is not None:  # generated corpus: `touch .vscode/x`, `echo x >> .bashrc` ask
            return ClaudeDecision("ask", "subcommandResults", (Check(command.strip(), "ask", None,
                                  f"it writes to {touchy}, a file acceptEdits does not edit unasked, "
                                  "even under a bare Bash allow: Claude Code asks",
                                  _sensitive_fidelity(touchy)),))
        rule = bare_allow[1]
        return _moded(settings, ClaudeDecision("allow", "rule", (Check(command.strip(), "allow", rule,
                                               f"the rule {rule.text!r} allows every command"),)), "Bash")
    checks: list[Check] = []
    here = cwd
    for part in parts:
        check, here = _part(settings, part, rules, bash, bare_allow, here)
        checks.append(check)
    if not checks:
        checks.append(Check(command.strip(), "allow", None, "an empty command"))
    if any(p.argv[:1] == ("cd",) for p in parts) and len(parts) > 1:
        # a compound with cd asks unless every other subcommand is read-only: a rule-allowed
        # `touch` after `cd src` asks (recorded, bash-cd-compound-rule)
        for i, (part, check) in enumerate(zip(parts, checks, strict=True)):
            if part.argv[:1] != ("cd",) and check.behavior == "allow" and check.rule is not None:
                checks[i] = check._replace(behavior="ask", why=f"{check.why}, but the line changes "
                                           "directory first (cd): Claude Code asks")
    behavior = _worst(checks)
    if settings.mode == "auto" and behavior == "allow" and any(
            c.why.startswith("auto") for c in checks):
        return ClaudeDecision("allow", "mode", tuple(checks))
    first = checks[0].rule
    safe = unsafe_free(parts[0].argv) if parts else None  # `CI=1 npm test` is named by `npm test`
    named = (len(parts) == 1 and first is not None and checks[0].behavior == behavior
             and any(_whole(first, c) for c in (
                 deny_candidates(parts[0]) if behavior != "allow"
                 else (parts[0].text, *([" ".join(safe)] if safe else []),
                       " ".join(strip_wrappers(parts[0].argv, assignments=False))))))
    # a deny of the one command inside a subshell, a { } group or behind exec is the binary's
    # `rule` (recorded, bash-subshells; generated corpus: `(cat < .env)` under a Read deny)
    wrapped = (len(parts) == 1 and behavior == "deny" and first is not None
               and (parts[0].opaque in ("a subshell", "a { ...; } group") or parts[0].argv[:1] == ("exec",)))
    # a path deny of a subcommand an ask rule matches, outside a pipeline, is the binary's `rule`
    # (recorded, bash-ask-vs-path-deny: `echo hi && tee g < notes.txt`; `tee g < notes.txt | wc`
    # and a denied path of a subcommand no ask rule matches stay subcommandResults)
    asked = behavior == "deny" and any(
        c.behavior == "deny" and c.rule is not None and c.rule.tool in ("Read", "Edit") and not p.piped
        and (m := _match(bash, p)) is not None and m[0] == "ask" for p, c in zip(parts, checks, strict=True))
    decision = ClaudeDecision(behavior, "rule" if named or wrapped or asked else "subcommandResults",
                              tuple(checks))
    return _moded(settings, decision, "Bash")


def _bash_sensitive(settings: ClaudeSettings, parts: list[Part], cwd: Path) -> str | None:
    """The sensitive file (`sensitive.py`) a redirection or a file command of the line writes."""
    for part in parts:
        own = builtin_argv(part.argv, EDIT_WRAPPERS) or ()
        named = list(part.writes)
        if own and own[0] in ACCEPT_EDITS_COMMANDS:
            named += [a for a in own[1:] if not a.startswith("-")]
        for name in named:
            touchy = _sensitive(settings, _resolve(name, cwd, settings.home))
            if touchy is not None:
                return touchy
    return None


def _whole(rule: ClaudeRule, command: str) -> bool:
    """A rule that names the whole command: exactly, or as the prefix itself (the binary's `rule`)."""
    kind, text = bash_pattern(rule.content or "")
    if kind == "exact":
        return text == command
    if kind == "prefix":
        return " ".join(text.split()) == " ".join(command.split())
    return False


def _substituted(command: str) -> list[str]:
    """The commands inside `$(...)` and backquotes of `command`, as written."""
    from forge_tools.runtimes.claude.shell import _parser

    data = command.encode("utf-8")
    found: list[str] = []
    stack = [_parser().parse(data).root_node]
    while stack:
        node = stack.pop()
        if node.type in ("command_substitution", "process_substitution"):
            for child in node.named_children:
                found.extend(p.text for p in lower(data[child.start_byte:child.end_byte].decode()))
        stack.extend(node.children)
    return found


def _worst(checks: list[Check]) -> Behavior:
    return max((c.behavior for c in checks), key=lambda b: _ORDER[b])


def _resolve(arg: str, cwd: Path, home: Path) -> Path:
    raw = str(home) + arg[1:] if arg == "~" or arg.startswith("~/") else arg
    return Path(os.path.normpath(os.path.join(cwd, raw)))


#: read-only commands whose arguments are not paths (`echo /etc` reads nothing)
NO_PATHS = frozenset({"echo", "printf", "true", "false", "sleep", "expr", "seq", "type", "pwd", "whoami",
                      "id", "uname", "date", "basename", "dirname", "which", "whereis", "cal", "uptime",
                      "groups", "nproc", "locale", "free", "alias", "numfmt", "tsort"})


def _outside(settings: ClaudeSettings, argv: tuple[str, ...], cwd: Path, reading: bool = False) -> str | None:
    """The first argument naming a path outside the working directories (`..`, `/x`, `~/x`); for a
    `reading` command a path a Read allow rule covers is not outside (recorded, read-allow-outside,
    read-allow-home: `cat` and `ls` there run unasked)."""
    if not argv or argv[0] in NO_PATHS:
        return None
    allows = [r for r in settings.loaded_rules if reading and r.behavior == "allow" and r.tool == "Read"
              and r.content is not None]
    for arg in argv[1:]:
        if arg.startswith("-") or not (arg.startswith(("/", "~", "..")) or "/.." in arg or arg == "."):
            continue
        path = _resolve(arg, cwd, settings.home)
        if not _inside(path, settings.working_dirs) and not any(
                path_rule_matches(settings, r, path, cwd) for r in allows):
            return arg
    return None


def _part(settings: ClaudeSettings, part: Part, rules: list[ClaudeRule], bash: list[ClaudeRule],
          bare_allow: tuple[Behavior, ClaudeRule] | None, cwd: Path) -> tuple[Check, Path]:
    """One subcommand's answer, and the working directory after it (`cd`)."""
    hit = _match(bash, part)
    denied = _denied_path(settings, part, rules, cwd) if hit is None or hit[0] != "deny" else None
    if denied is not None:
        # a Read or Edit deny of a path it reads or writes wins over an ask rule matching it
        # (recorded, bash-ask-vs-path-deny: `tee g < notes.txt` under ask `Bash(tee *)`, deny
        # `Read(./notes.txt)` is denied)
        return denied, cwd
    if hit is not None and hit[0] != "allow":
        return Check(part.text, hit[0], hit[1], f"the rule {hit[1].text!r} matches {part.text!r}"), cwd
    if part.opaque is not None:
        return Check(part.text, "ask", None, f"{part.opaque}: Claude Code asks"), cwd
    stripped = part.stripped
    if stripped[:1] == ("cd",):
        target = _resolve(stripped[1], cwd, settings.home) if len(stripped) > 1 else settings.home
        if not _inside(target, settings.working_dirs):
            return Check(part.text, "ask", None, f"cd leaves the working directories ({target}): "
                         "Claude Code asks"), target
        return Check(part.text, "allow", None, "cd inside the working directories"), target
    if hit is None and bare_allow is not None:
        hit = bare_allow
    accept = settings.mode in ("acceptEdits", "auto")
    if part.redirect is not None:
        written = part.redirect.lstrip("0123456789&>| ").strip("'\"")
        target = _resolve(written, cwd, settings.home)
        touchy = _sensitive(settings, target) if accept else None
        if touchy is not None:
            return Check(part.text, "ask", None, f"it writes to {touchy} ({part.redirect}), a file "
                         f"{settings.mode} does not edit unasked: Claude Code asks",
                         _sensitive_fidelity(touchy)), cwd
        covered = any(r.behavior == "allow" and r.tool == "Edit" and r.content is not None
                      and path_rule_matches(settings, r, target, cwd) for r in rules)
        if accept and _inside(target, settings.working_dirs):
            if settings.mode == "auto" and hit is None:
                return Check(part.text, "allow", None, "auto writes files inside the working "
                             "directories"), cwd
        elif covered and _inside(target, settings.working_dirs):
            pass  # an Edit allow covers the file it writes (generated corpus: `echo x > protected/g`)
        else:
            return Check(part.text, "ask", None, f"it writes to a file ({part.redirect}): Claude Code "
                         "asks even when a rule allows it"), cwd
    if hit is not None and hit is not bare_allow and stripped[:1] and (
            stripped[0] in READ_COMMANDS or stripped[0] in PATH_WRITE_COMMANDS or stripped[0] == "ls"):
        # an allow rule approves a file command, not a path outside the working directories (a
        # Read allow covering it aside): `cat ~/x` asks under `Bash(cat *)`, `sudo cat /etc/x`
        # runs under `Bash(sudo *)` (generated corpora)
        outside = _outside(settings, stripped, cwd, reading=True)
        if outside is not None:
            return Check(part.text, "ask", None, f"the rule {hit[1].text!r} matches {part.text!r}, but "
                         f"{outside!r} is outside the working directories: Claude Code asks"), cwd
    if hit is not None:
        return Check(part.text, "allow", hit[1], f"the rule {hit[1].text!r} matches {part.text!r}"), cwd
    own = builtin_argv(part.argv) or ()  # what Claude's own allowances see (`shell.builtin_argv`)
    fidelity = read_only(" ".join(own) if own != part.argv else part.text.lstrip("\\"), own)
    if fidelity is not None:
        outside = _outside(settings, own, cwd, reading=True)
        if outside is not None:
            return Check(part.text, "ask", None, f"a read-only command, but {outside!r} is outside the "
                         "working directories: Claude Code asks"), cwd
        return Check(part.text, "allow", None, "a read-only command: Claude Code runs it without asking",
                     fidelity), cwd
    own = builtin_argv(part.argv, EDIT_WRAPPERS) or ()
    if (accept and own[:1] == ("sed",) and _sed_edit(own)
            and _outside(settings, own, cwd) is None):
        files = [a for a in own[1:] if not a.startswith("-")][1:]
        touchy = next((t for a in files
                       for t in [_sensitive(settings, _resolve(a, cwd, settings.home))] if t), None)
        if touchy is None:
            return Check(part.text, "allow", None, f"{settings.mode} runs a plain `sed s/a/b/` edit of files "
                         "inside the working directories", "reproduced"), cwd
    own = builtin_argv(part.argv, EDIT_WRAPPERS) or ()  # acceptEdits sees through more wrappers
    if own[:1] == ("touch",) and part.argv != own:
        own = ()  # but not for touch: `nohup touch x`, `NODE_ENV=t touch x` ask (generated corpora)
    if (accept and own and own[0] in ACCEPT_EDITS_COMMANDS
            and _outside(settings, own, cwd) is None):
        touchy = next((t for a in own[1:] if not a.startswith("-")
                       for t in [_sensitive(settings, _resolve(a, cwd, settings.home))] if t), None)
        if touchy is not None:
            return Check(part.text, "ask", None, f"it writes to {touchy}, a file {settings.mode} does "
                         "not edit unasked: Claude Code asks", _sensitive_fidelity(touchy)), cwd
        return Check(part.text, "allow", None, f"{settings.mode} runs file commands inside the working "
                     "directories", "reproduced" if own[0] in RECORDED_ACCEPT_EDITS else "modelled"), cwd
    return Check(part.text, "ask", None, "no rule matches it and it is not read-only: Claude Code asks"), cwd


#: file commands whose path arguments Claude checks against Edit deny rules (recorded,
#: bash-paths-vs-denies: `cp` targets, `mv` sources and targets, `rm`, `touch`, `mkdir`, `tee`; `cp`
#: sources are reads; `chmod` and `ln` are not checked; `rm x` is not refused by a Read deny of x)
PATH_WRITE_COMMANDS = frozenset({"rm", "mv", "cp", "touch", "mkdir", "tee", "rmdir"})


def _denied_path(settings: ClaudeSettings, part: Part, rules: list[ClaudeRule], cwd: Path
                 ) -> Check | None:
    """A path a subcommand reads or writes that a deny rule covers: an argument of a reading command,
    a `cp` source or an input redirection's file (Read denies), an argument of a writing command, a
    `cp` target or an output redirection's file (Edit denies), a file `sed -i` edits (both). Claude
    denies the subcommand."""
    argv = part.stripped  # not through sudo / doas: `sudo rm -rf protected` asks (generated corpus)
    named: list[tuple[str, tuple[str, ...]]] = [(f, ("Read",)) for f in part.reads]
    named += [(f, ("Edit",)) for f in part.writes]
    if argv and (argv[0] in READ_COMMANDS or argv[0] in PATH_WRITE_COMMANDS):
        args = [a for a in argv[1:] if not a.startswith("-")]
        if argv[0] in ("grep", "rg", "sed") and args:
            args = args[1:]
        if argv[0] == "cp" and args and unsafe_free(part.argv) is not None:
            # behind a safe assignment every path of cp is checked against Edit denies too
            # (generated corpus: `NODE_ENV=test cp notes.txt x` is denied by an Edit deny of
            # notes.txt, `cp notes.txt x` asks); not shrunk further
            named += [(a, ("Read", "Edit")) for a in args]
        elif argv[0] == "cp" and args:
            named += [(a, ("Read",)) for a in args[:-1]] + [(args[-1], ("Edit",))]
        elif argv[0] in PATH_WRITE_COMMANDS:
            named += [(a, ("Edit",)) for a in args]
        else:
            editing = argv[0] == "sed" and _sed_in_place(argv)
            named += [(a, ("Read", "Edit") if editing else ("Read",)) for a in args]
    if not named:
        return None
    denies = [r for r in rules
              if r.behavior == "deny" and r.tool in ("Read", "Edit") and r.content is not None]
    for arg, kinds in named:
        path = Path(os.path.normpath(os.path.join(cwd, os.path.expanduser(arg))))
        real = _real(path, cwd)
        rule = next((r for r in denies if r.tool in kinds and (path_rule_matches(settings, r, path, cwd)
                     or path_rule_matches(settings, r, real, cwd))), None)
        if rule is not None:
            return Check(part.text, "deny", rule, f"its path {arg!r} is covered by the {rule.tool} deny "
                         f"rule {rule.text!r}")
    return None


_SED_FLAGS = frozenset({"-E", "--regexp-extended", "-r", "--posix", "-i", "--in-place"})
_SED_SUBSTITUTION = re.compile(r"s/((?:[^/\\]|\\.)*)/((?:[^/\\]|\\.)*)/([gpimIM]*[1-9]?[gpimIM]*)")


def _sed_edit(argv: tuple[str, ...]) -> bool:
    """`sed [-E|-r|--posix|-i|--in-place] s/a/b/[flags] FILE...`: the edit acceptEdits runs unasked
    (recorded, acceptEdits-sed and sed shrinks: `-i.bak`, `-e`, `-n`, `1d`, a `w` flag and two
    scripts ask). A script with both `e` and `y` in it asks too: the binary's reason is not known,
    the rule is what the recordings show (`s/hello/bye/`, `s/x/ye/`, `s/xe/y/` ask; `s/x/y/`,
    `s/e/f/`, `s/x/yz/` do not)."""
    flags = [a for a in argv[1:] if a.startswith("-")]
    for flag in flags:
        if flag not in _SED_FLAGS and not (not flag.startswith("--") and len(flag) > 2
                                           and all(f"-{c}" in _SED_FLAGS for c in flag[1:])):
            return False
    words = [a for a in argv[1:] if not a.startswith("-")]
    if len(words) < 2 or not _SED_SUBSTITUTION.fullmatch(words[0]):
        return False
    return not ("e" in words[0] and "y" in words[0])


def _sed_in_place(argv: tuple[str, ...]) -> bool:
    return any(a == "--in-place" or a.startswith("--in-place=")
               or (a.startswith("-") and not a.startswith("--") and "i" in a[1:]) for a in argv[1:])


# ----------------------------------------------------------------------------------------- paths


def _path_of(name: str, args: dict[str, Any], cwd: Path) -> Path:
    raw = args.get("file_path") or args.get("notebook_path") or args.get("path") or str(cwd)
    path = os.path.expanduser(str(raw))
    return Path(os.path.normpath(os.path.join(cwd, path)))


def path_rule_matches(settings: ClaudeSettings, rule: ClaudeRule, path: Path, cwd: Path) -> bool:
    anchor, pattern = path_rule(rule.content or "")
    root = {"root": Path("/"), "home": settings.home, "settings": rule.base, "cwd": cwd}[anchor]
    try:
        relative = path.relative_to(root)
    except ValueError:
        return False
    text = relative.as_posix()
    if text == ".":
        return pattern in ("", "**", "*")
    if gitignore_matches(pattern, text):
        return True
    if pattern.endswith("/**") and text == pattern[:-3].lstrip("/"):
        return True  # the directory itself (`ls` of it under a Read allow: read-allow-outside)
    # a deny (or ask) of everything below a directory name, `secrets/**` or `./secrets/**`, denies
    # every directory of that name, at any depth, and the directory itself (recorded,
    # secrets-any-depth, secrets-anchored); an allow stays anchored (`Edit(src/**)` does not allow
    # `x/src/a.ts`), and so does `Read(src/*.ts)`
    folder = pattern[:-3] if anchor == "cwd" and pattern.endswith("/**") else ""
    return (rule.behavior != "allow" and bool(folder) and "/" not in folder and "*" not in folder
            and gitignore_matches(folder, text))


def _real(path: Path, cwd: Path) -> Path:
    """The file `path` names after symlinks, spelled below `cwd` when it is there (so a working
    directory reached through a symlink, such as macOS's /tmp, keeps matching its rules)."""
    real = Path(os.path.realpath(path))
    base = Path(os.path.realpath(cwd))
    try:
        return cwd / real.relative_to(base)
    except ValueError:
        return real


def _sensitive(settings: ClaudeSettings, path: Path) -> str | None:
    """The directory or file name that keeps `path` out of acceptEdits (`sensitive.py`)."""
    from forge_tools.runtimes.claude.sensitive import sensitive

    base = next((d for d in settings.working_dirs if path == d or d in path.parents), path.parent)
    return sensitive(path, base)


def _sensitive_fidelity(name: str) -> str:
    from forge_tools.runtimes.claude.sensitive import RECORDED

    return "reproduced" if name in RECORDED else "modelled"


def _inside(path: Path, dirs: list[Path]) -> bool:
    return any(path == d or d in path.parents for d in dirs)


def _path_call(settings: ClaudeSettings, name: str, args: dict[str, Any], rules: list[ClaudeRule],
               cwd: Path) -> ClaudeDecision:
    lexical = _path_of(name, args, cwd)
    path = _real(lexical, cwd)  # Claude decides the file a symlink names
    editing = name in EDIT_TOOLS
    if editing and lexical.is_symlink():
        return ClaudeDecision("deny", "other", (Check(str(lexical), "deny", None,
                              "Claude Code refuses to write through a symbolic link (write to its target)"),))
    kinds = ("Edit", "Read") if editing else ("Read", "Edit")
    candidates = [r for r in rules if r.content is not None and r.tool in kinds]
    if editing:
        # a Read deny covers editing the file too; a Read allow or ask does not decide an edit
        candidates = [r for r in candidates if r.tool == "Edit" or r.behavior == "deny"]
    else:
        # an Edit rule allows reading what it allows editing; an Edit deny does not stop a read
        candidates = [r for r in candidates if r.tool == "Read" or r.behavior == "allow"]
    def covers(r: ClaudeRule) -> bool:
        if r.behavior == "allow":  # an allow must cover the file itself, not only the link's name
            return path_rule_matches(settings, r, path, cwd)
        return path_rule_matches(settings, r, path, cwd) or path_rule_matches(settings, r, lexical, cwd)

    hit = _by_rules(candidates, covers)
    subject = str(lexical)
    if hit is not None:
        behavior, rule = hit
        why = (f"the rule {rule.text!r} covers {subject}" if behavior != "deny" else
               f"the rule {rule.text!r} covers {subject} (a denied file or directory)")
        if behavior == "allow" and editing and settings.mode == "plan":
            return _plan_edit(settings, name, subject, path, f"{why}, but plan mode asks before every edit")
        # a read the rules allow inside the working directories is the binary's `mode` answer, and
        # so is an edit there under acceptEdits
        inside_dirs = _inside(path, settings.working_dirs)
        by_mode = not editing or (settings.mode == "acceptEdits" and _sensitive(settings, path) is None)
        kind = "mode" if behavior == "allow" and inside_dirs and by_mode else "rule"
        return _moded(settings, ClaudeDecision(behavior, kind, (Check(subject, behavior, rule, why),)))
    inside = _inside(path, settings.working_dirs)
    if not editing:
        if inside or settings.mode == "plan":  # plan mode reads anywhere (generated corpus)
            return ClaudeDecision("allow", "mode", (Check(subject, "allow", None,
                                  "a read inside the working directories: Claude Code allows it"),))
        return _moded(settings, _default(name, subject, "a read outside the working directories: "
                                         "Claude Code asks"))
    if inside and settings.mode in ("acceptEdits", "auto"):
        touchy = _sensitive(settings, path)
        if touchy is not None:
            return _moded(settings, _default(name, subject, f"{settings.mode} asks before editing {touchy} "
                                             "(a file Claude Code keeps out of automatic edits)",
                                             _sensitive_fidelity(touchy)), name)
        return ClaudeDecision("allow", "mode", (Check(subject, "allow", None,
                              f"{settings.mode} allows edits inside the working directories"),))
    if settings.mode == "plan":
        return _plan_edit(settings, name, subject, path, "no rule covers this file: plan mode asks "
                          "before an edit")
    return _moded(settings, _default(name, subject, "no rule covers this file: Claude Code asks "
                                     "before an edit"))


def _plan_edit(settings: ClaudeSettings, name: str, subject: str, path: Path, why: str) -> ClaudeDecision:
    """Plan mode's edit: it asks, but a sensitive file (`sensitive.py`) goes to the classifier, which
    does not run offline: deny (generated corpus)."""
    touchy = _sensitive(settings, path) if _inside(path, settings.working_dirs) else None
    if touchy is not None:
        return ClaudeDecision("deny", "classifier", (Check(subject, "deny", None, f"plan mode leaves an edit "
                              f"of {touchy} to Claude's classifier, which does not run here: deny",
                              _sensitive_fidelity(touchy)),))
    return _default(name, subject, why)
