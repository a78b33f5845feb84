"""forge-tools' gate over the answering agent's own rules (issue 28 item 2): one mechanism for every
agent that does not speak opencode's vocabulary (Claude Code, Codex CLI, Gemini CLI).

Each such runtime has a translator, `<runtime>/gate.py`'s `translate(settings, root)`, that puts the
agent's rules in the gate's terms, each gate rule keeping the agent rule's file:line origin:

- a shell rule (Claude `Bash(rm:*)`, a Codex `prefix_rule`, a Gemini `commandPrefix`) is a `bash`
  rule; the gate's stricter shell reading then applies, so a deny of `rm` also denies `/bin/rm x`,
  `sudo rm x` and `bash -c 'rm x'` (the gate lowers those to `rm x`, the agents do not all);
- prompt / ask rules are `ask`; deny / forbidden rules are `deny`;
- what has no faithful form in the gate's terms (a regular expression over the arguments, a path the
  gate cannot name, a token with shell quoting in it) is, for a deny or an ask, an `ask` of everything
  the rule could cover (`covering`), and for an allow left out: never an allow the agent did not write.

`Translation.rules` is the gate's order: the agent's defaults (`base`, what it asks where none of its
rules speaks), then its rules, allows first, asks, denies (the gate's last match wins, so a deny
beats any allow, as in Claude Code and Codex); where the agent has its own precedence (Gemini's
priorities) that order comes first, so an allow-list's "deny the rest" stays below its allows.
A tool the gate has no permission for keeps the agent's own name as its permission (`Agent`,
`mcp_x_*`), so a rule naming it can still be found (`forge-tools hook`).

`gate_turn` is the turn the gate decides over: the turn's rules, then the translation's, then again
the turn's written denies and asks (so neither the agent's defaults nor its allows undo them). `run`,
`explain --call`'s gate line, `check --expect` and the hook use it; opencode and forge-tools' own
configs are the gate's vocabulary already (no translation).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import replace
from importlib import import_module
from pathlib import Path
from typing import TYPE_CHECKING, Any

from forge_tools.named_tuple import NamedTuple
from forge_tools.rule import Action, Rule

if TYPE_CHECKING:
    from forge_tools.config.loader import LoadedConfig
    from forge_tools.origin import Origin
    from forge_tools.visibility.pipeline import PipelineResult

#: runtime -> the module whose `translate(settings, root)` puts its rules in the gate's terms
TRANSLATORS: dict[str, str] = {
    "claude": "forge_tools.runtimes.claude.gate",
    "codex": "forge_tools.runtimes.codex.gate",
    "gemini": "forge_tools.runtimes.gemini.gate",
}
_ORDER = {"allow": 0, "ask": 1, "deny": 2}
#: origins of rules a person wrote (not a default of opencode's or of a builtin agent)
WRITTEN = frozenset({"file", "env", "cli"})
#: at most this many gate patterns from one agent rule (alternatives multiply); more is `covering`
MAX_PATTERNS = 64
#: a shell token the gate's patterns say as it is (no quoting, no wildcard, no blank)
_PLAIN = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_@%+=:,./-")


class Translation(NamedTuple):
    """One agent's rules in the gate's terms (see the module)."""

    runtime: str
    base: tuple[Rule, ...] = ()  # what the agent does where none of its rules speaks
    written: tuple[Rule, ...] = ()  # its rules in the gate's order, each with the agent rule's origin
    untranslated: tuple[str, ...] = ()  # in words: rules read as a covering ask, or left out

    @property
    def rules(self) -> tuple[Rule, ...]:
        """The gate's order: the base, then the agent's rules (last match wins)."""
        return (*self.base, *self.written)

    def to_json(self) -> dict[str, Any]:
        return {"runtime": self.runtime, "rules": [r.to_json() for r in self.rules],
                "untranslated": list(self.untranslated)}


class Rules:
    """A translation being built: `add` a faithful rule, `cover` one that is not (see the module)."""

    def __init__(self) -> None:
        self.base: list[Rule] = []
        self.written: list[tuple[float, Rule]] = []
        self.untranslated: list[str] = []

    def add(self, permission: str, patterns: Iterable[str], action: Action, origin: Origin,
            rank: float = 0) -> None:
        """Faithful gate rules; `rank` is the agent's own precedence where it has one (Gemini's priority:
        a higher rank is later, so it wins); within a rank, allows, asks, then denies."""
        self.written.extend((rank, Rule(permission, p, action, origin)) for p in patterns)

    def cover(self, permission: str, action: Action, origin: Origin, what: str, pattern: str = "*",
              rank: float = 0) -> None:
        """A rule with no faithful gate form: an ask of all it could cover (`pattern`), or, for an allow,
        nothing (the gate never allows what it cannot read)."""
        if action == "allow":
            self.untranslated.append(f"{what} at {origin}: left out (the gate cannot read it; it allows "
                                     "nothing it cannot read)")
            return
        self.written.append((rank, Rule(permission, pattern, "ask", origin)))
        self.untranslated.append(f"{what} at {origin}: read as an ask of {permission} {pattern!r} "
                                 f"(no faithful form in the gate's terms)")

    def done(self, runtime: str) -> Translation:
        ordered = sorted(self.written, key=lambda pair: (pair[0], _ORDER[pair[1].action]))
        return Translation(runtime, tuple(self.base), tuple(r for _, r in ordered), tuple(self.untranslated))


def plain_token(token: str) -> bool:
    return bool(token) and all(ch in _PLAIN for ch in token)


def prefix_patterns(tokens: list[tuple[str, ...]]) -> tuple[list[str] | None, str]:
    """The gate's bash patterns of a command prefix whose tokens each have alternatives (`git`,
    (`push`, `fetch`)): `git push *`, `git fetch *` (the ` *` tail also matches the bare prefix). When
    a token is not plain or the alternatives multiply past MAX_PATTERNS: (None, the covering pattern:
    the plain head of the prefix then ` *`, or `*`)."""
    patterns = [""]
    for position, alternatives in enumerate(tokens):
        if not all(plain_token(t) for t in alternatives) or len(patterns) * len(alternatives) > MAX_PATTERNS:
            return None, _covering_head(tokens[:position])
        patterns = [f"{p} {t}".lstrip() for p in patterns for t in alternatives]
    return [f"{p} *" for p in patterns if p], ""


def _covering_head(head: list[tuple[str, ...]]) -> str:
    if head and len(head[0]) == 1:
        words = []
        for alternatives in head:
            if len(alternatives) != 1:
                break
            words.append(alternatives[0])
        return " ".join(words) + " *"
    return "*"


def translate(runtime: str, cwd: Path, root: Path, env: Mapping[str, str] | None = None,
              settings: Any = None) -> Translation | None:
    """`runtime`'s rules (read from `cwd` as that agent reads them, unless `settings` is given) in the
    gate's terms; None for a runtime whose rules are the gate's own (opencode, forge)."""
    module = TRANSLATORS.get(runtime)
    if module is None:
        return None
    translator = import_module(module)
    if settings is None:
        settings = translator.read(Path(cwd), os.environ if env is None else env)
    translation: Translation = translator.translate(settings, Path(root))
    return translation


def gate_turn(result: PipelineResult, runtime: str, cwd: Path, root: Path,
              env: Mapping[str, str] | None = None, settings: Any = None
              ) -> tuple[PipelineResult, Translation | None]:
    """The turn the gate decides over for `runtime`'s project: the turn's rules, then the agent's
    translated ones (`translate`); the turn itself for opencode and forge."""
    translation = translate(runtime, cwd, root, env, settings)
    if translation is None:
        return result, None
    # the turn's own written denies and asks (an opencode.json beside the agent's files) stay in
    # force after the agent's base and allows: the gate is never looser than either
    kept = tuple(r for r in result.ruleset if r.action != "allow" and r.origin.kind in WRITTEN)
    return replace(result, ruleset=(*result.ruleset, *translation.rules, *kept)), translation


def project_gate(loaded: LoadedConfig, result: PipelineResult, runtime: str | None = None,
                 env: Mapping[str, str] | None = None, settings: Any = None
                 ) -> tuple[PipelineResult, Translation | None]:
    """The gate's turn for a loaded project and its answering runtime (`runtime`, else the one
    `runtimes.runtime_for` picks): what `run` enforces and `explain` / `check --expect` show."""
    if runtime is None:
        from forge_tools.runtimes import runtime_for

        runtime = runtime_for(loaded).runtime.name
    return gate_turn(result, runtime, Path(loaded.cwd), Path(loaded.project_root), env, settings)
