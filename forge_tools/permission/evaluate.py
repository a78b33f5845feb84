"""Last-match-wins evaluation of a permission name and a call pattern (SPEC 4.1).

The rulesets are read as one concatenation: the last rule whose permission matches P and whose
pattern matches S decides, and `ask` is the answer when nothing matches. Large rulesets are indexed
(exact permission names in a dict, wildcard-named rules in a list) so a lookup touches only rules that
can match P; the result is identical to scanning every rule from the end.
"""

from __future__ import annotations

import _thread
from collections.abc import Iterable, Sequence
from typing import Any

from forge_tools.named_tuple import NamedTuple
from forge_tools.permission.wildcard import (
    DEPENDS,
    MATCHES_ALL,
    WildcardIndex,
    compile_pattern,
    has_wildcard,
    normalize,
    prefix_verdict,
)
from forge_tools.rule import Action, Rule

DEFAULT_ACTION: Action = "ask"

_INDEX_THRESHOLD = 32  # below this many rules a plain reverse scan is cheaper than an index
_CANDIDATE_CACHE_LIMIT = 4096


class Decision(NamedTuple):
    """The outcome of an evaluation and the rule that decided it (None: nothing matched, so ask)."""

    action: Action
    rule: Rule | None = None

    def to_json(self) -> dict[str, Any]:
        return {"action": self.action, "rule": self.rule.to_json() if self.rule else None}


class RuleIndex:
    """An immutable ruleset indexed by permission name; build once, evaluate many times."""

    __slots__ = ("_by_pattern", "_candidates", "_exact", "_wild", "_wild_index", "rules")

    def __init__(self, rules: Iterable[Rule]) -> None:
        self.rules: tuple[Rule, ...] = tuple(rules)
        self._exact: dict[str, list[int]] = {}
        self._wild: list[int] = []
        for i, rule in enumerate(self.rules):
            if has_wildcard(rule.permission):
                self._wild.append(i)
            else:
                self._exact.setdefault(normalize(rule.permission), []).append(i)
        self._wild_index = WildcardIndex(self.rules[i].permission for i in self._wild)
        self._candidates: dict[str, tuple[int, ...]] = {}
        # per permission with many rules: its rules' positions (ascending) and their patterns indexed
        # by literal head, so a look-up tries only the rules whose head the text starts with
        self._by_pattern: dict[str, tuple[tuple[int, ...], WildcardIndex]] = {}

    def __len__(self) -> int:
        return len(self.rules)

    def candidates(self, permission: str) -> tuple[int, ...]:
        """Positions of the rules whose permission matches, last first."""
        found = self._candidates.get(permission)
        if found is not None:
            return found
        name = normalize(permission)
        exact = self._exact.get(name, [])
        wild = [self._wild[j] for j in self._wild_index.matching(name)] if self._wild else []
        merged = tuple(sorted((*exact, *wild), reverse=True)) if wild else tuple(reversed(exact))
        if len(self._candidates) >= _CANDIDATE_CACHE_LIMIT:
            self._candidates.clear()
        self._candidates[permission] = merged
        return merged

    def last_match(self, permission: str, pattern: str) -> Rule | None:
        text = normalize(pattern)
        candidates = self.candidates(permission)
        if len(candidates) < _INDEX_THRESHOLD:
            for i in candidates:
                rule = self.rules[i]
                if compile_pattern(rule.pattern)(text):
                    return rule
            return None
        indexed = self._pattern_index(permission, candidates)
        found = indexed[1].last(text)
        return self.rules[indexed[0][found]] if found >= 0 else None

    def last_for_prefix(self, permission: str, prefix: str) -> Rule | str | None:
        """`last_match` for every text that starts with `prefix` at once: the rule, None when none
        matches any, or DEPENDS when that hangs on the rest of the text
        (`WildcardIndex.last_for_prefix`)."""
        candidates = self.candidates(permission)
        if len(candidates) < _INDEX_THRESHOLD:
            return _first_for_prefix((self.rules[i] for i in candidates), prefix)
        indexed = self._pattern_index(permission, candidates)
        found = indexed[1].last_for_prefix(prefix)
        if found is None:
            return DEPENDS
        return self.rules[indexed[0][found]] if found >= 0 else None

    def _pattern_index(self, permission: str, candidates: tuple[int, ...]
                       ) -> tuple[tuple[int, ...], WildcardIndex]:
        indexed = self._by_pattern.get(permission)
        if indexed is None:
            ascending = candidates[::-1]
            indexed = (ascending, WildcardIndex(self.rules[i].pattern for i in ascending))
            if len(self._by_pattern) >= _CANDIDATE_CACHE_LIMIT:
                self._by_pattern.clear()
            self._by_pattern[permission] = indexed
        return indexed


def _first_for_prefix(rules_last_first: Iterable[Rule], prefix: str) -> Rule | str | None:
    """The first of `rules_last_first` that matches every text starting with `prefix` (None: none
    matches any), or DEPENDS when one before it matches some of them only."""
    prefix = normalize(prefix)
    for rule in rules_last_first:
        verdict = prefix_verdict(rule.pattern, prefix)
        if verdict is MATCHES_ALL:
            return rule
        if verdict is DEPENDS:
            return DEPENDS
    return None


RulesetLike = Sequence[Rule] | RuleIndex

_INDEX_CACHE: dict[int, tuple[tuple[Rule, ...], RuleIndex]] = {}
_INDEX_CACHE_LIMIT = 64
_INDEX_LOCK = _thread.allocate_lock()  # what threading.Lock is, without importing `threading`


def index_of(ruleset: RulesetLike) -> RuleIndex | None:
    """An index for a large immutable ruleset (cached by identity), else None: scan it directly."""
    if isinstance(ruleset, RuleIndex):
        return ruleset
    if not isinstance(ruleset, tuple) or len(ruleset) < _INDEX_THRESHOLD:
        return None
    with _INDEX_LOCK:
        cached = _INDEX_CACHE.get(id(ruleset))
        if cached is not None and cached[0] is ruleset:  # the cache holds the tuple: ids cannot recycle
            return cached[1]
    index = RuleIndex(ruleset)
    with _INDEX_LOCK:
        if len(_INDEX_CACHE) >= _INDEX_CACHE_LIMIT:
            _INDEX_CACHE.pop(next(iter(_INDEX_CACHE)))
        _INDEX_CACHE[id(ruleset)] = (ruleset, index)
    return index


def _scan_last(rules: Sequence[Rule], permission: str, pattern: str) -> Rule | None:
    name, text = normalize(permission), normalize(pattern)
    for rule in reversed(rules):
        if compile_pattern(rule.permission)(name) and compile_pattern(rule.pattern)(text):
            return rule
    return None


def last_matching_rule(permission: str, pattern: str, *rulesets: RulesetLike) -> Rule | None:
    for ruleset in reversed(rulesets):
        index = index_of(ruleset)
        if index is not None:
            rule = index.last_match(permission, pattern)
        else:
            assert not isinstance(ruleset, RuleIndex)
            rule = _scan_last(ruleset, permission, pattern)
        if rule is not None:
            return rule
    return None


def last_rule_for_prefix(permission: str, prefix: str, *rulesets: RulesetLike) -> Rule | str | None:
    """`last_matching_rule` for every text that starts with `prefix` at once (the rulesets read as
    one): the rule, None when none matches any, or DEPENDS when that hangs on the rest of the text."""
    name = normalize(permission)
    for ruleset in reversed(rulesets):
        index = index_of(ruleset)
        if index is not None:
            found = index.last_for_prefix(permission, prefix)
        else:
            assert not isinstance(ruleset, RuleIndex)
            found = _first_for_prefix((r for r in reversed(ruleset) if compile_pattern(r.permission)(name)),
                                      prefix)
        if found is not None:
            return found
    return None


def rules_for(permission: str, rules: Iterable[Rule]) -> list[Rule]:
    """The rules (in order) whose permission name matches `permission`: all that an evaluation of it
    can meet, so evaluating over them gives the same answer as over `rules` (without indexing all of a
    large ruleset to ask about one permission)."""
    name = normalize(permission)
    return [r for r in rules if (compile_pattern(r.permission)(name) if has_wildcard(r.permission)
                                 else normalize(r.permission) == name)]


def narrowed(permission: str, rules: Iterable[Rule]) -> RulesetLike:
    """`rules_for(permission, rules)`, indexed (not cached) when there are many: for many evaluations of
    the one permission."""
    return indexed(rules_for(permission, rules))


def indexed(rules: list[Rule]) -> RulesetLike:
    """`rules` indexed (not cached) when there are many, else as they are: for many evaluations."""
    return RuleIndex(rules) if len(rules) >= _INDEX_THRESHOLD else rules


def evaluate(permission: str, pattern: str, *rulesets: RulesetLike) -> Decision:
    """Decide permission `permission` for call pattern `pattern` over the concatenated rulesets."""
    rule = last_matching_rule(permission, pattern, *rulesets)
    return Decision(rule.action, rule) if rule is not None else Decision(DEFAULT_ACTION, None)
