"""Codex's exec policy: the prefix rules of every loaded rules file, and what they say about one
command (its argv), as `codex execpolicy check` answers: every matching rule is collected, whatever
its file or order, and the strictest decision wins (forbidden > prompt > allow); no match, no
decision (Codex then falls back to its approval policy: `decide.fallback`).

An absolute or relative program path (`/usr/bin/git`) matches only rules written with that path,
unless host executables are resolved (always inside Codex): then a rule for its basename matches too,
limited by a `host_executable(name=..., paths=[...])` to those paths when the policy has one.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from forge_tools.named_tuple import NamedTuple
from forge_tools.runtimes.codex.rules import SEVERITY, Decision, PrefixRule, RulesFile, read_rules


# Match and Evaluation are named tuples, not frozen dataclasses: a dataclass compiles its methods at
# import (about 3 M instructions each, against 0.7 M; `forge-tools hook --runtime codex` imports
# this module for every decision, issue 32 item 6). Neither is compared with a plain tuple.
class Match(NamedTuple):
    """A prefix_rule that matches a command, by the prefix it matched."""

    rule: PrefixRule
    prefix: tuple[str, ...]
    resolved_program: str | None = None


class Evaluation(NamedTuple):
    """What the policy says about one argv: the matches (in the policy's order) and the decision."""

    argv: tuple[str, ...]
    matches: tuple[Match, ...]

    @property
    def decision(self) -> Decision | None:
        if not self.matches:
            return None
        worst = max(self.matches, key=lambda m: SEVERITY[m.rule.decision])
        return worst.rule.decision

    @property
    def deciding(self) -> Match | None:
        """The first match with the strictest decision."""
        decision = self.decision
        return next((m for m in self.matches if m.rule.decision == decision), None)


@dataclass
class Policy:
    """Every rules file Codex reads, in its order."""

    files: list[RulesFile] = field(default_factory=list)

    @classmethod
    def read(cls, paths: list[Path]) -> Policy:
        return cls([read_rules(p) for p in paths])

    @property
    def error(self) -> RulesFile | None:
        """The first file Codex refuses (or forge-tools cannot read): then no rule applies."""
        return next((f for f in self.files if not f.loads), None)

    @property
    def rules(self) -> list[PrefixRule]:
        return [r for f in self.files for r in f.rules] if self.error is None else []

    def evaluate(self, argv: list[str] | tuple[str, ...], resolve_host_executables: bool = True,
                 cwd: Path | None = None) -> Evaluation:
        argv = tuple(argv)
        if not argv:
            return Evaluation(argv, ())
        program = argv[0]
        # a first token's alternatives are one rule each in Codex (`[["npm", "npm"], "i"]` matches twice)
        found = [Match(r, tuple(r.matched_prefix(argv))) for r in self.rules if r.matches(argv)
                 for _ in range(r.pattern[0].count(program))]
        if resolve_host_executables and "/" in program:
            resolved = os.path.normpath(os.path.join(str(cwd or Path.cwd()), program))
            name = os.path.basename(resolved)
            hosts = [h for f in self.files for h in f.hosts if h.name == name]
            allowed = not hosts or any(os.path.normpath(os.path.expanduser(p)) == resolved
                                       for h in hosts for p in h.paths)
            if allowed:
                exact = {id(m.rule) for m in found}
                found += [Match(r, (name, *r.matched_prefix(argv)[1:]), resolved) for r in self.rules
                          if id(r) not in exact and r.matches(argv, program=name)
                          for _ in range(r.pattern[0].count(name))]
        return Evaluation(argv, tuple(found))
