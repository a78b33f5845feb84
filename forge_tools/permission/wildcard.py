"""Wildcard matching for permission names and call patterns (SPEC 4.1), and pattern subsumption.

`*` is any run of characters (slashes included), `?` is one character, everything else is literal:
regex metacharacters in a pattern never act as regex. A pattern ending in `" *"` also matches the
text without that tail, so `ls *` allows `ls` but not `lsof`. Matching is whole-string and
case-sensitive; backslashes count as forward slashes on both sides.

Layer three evaluates every tool against every rule, so compiled patterns are cached (bounded LRU)
and the common shapes (`*`, no wildcard, `prefix*`) skip the regex engine entirely.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from functools import cache, lru_cache

WILDCARD_CHARS = frozenset("*?")

Matcher = Callable[[str], bool]


def normalize(text: str) -> str:
    """Backslashes are path separators on Windows; treat them as `/` everywhere."""
    return text.replace("\\", "/") if "\\" in text else text


def has_wildcard(pattern: str) -> bool:
    return "*" in pattern or "?" in pattern


def _split_optional_tail(pattern: str) -> tuple[str, bool]:
    """`"ls *"` -> (`"ls"`, True): the body, and whether the `" *"` tail is optional."""
    if pattern.endswith(" *"):
        return pattern[:-2], True
    return pattern, False


def _regex_source(body: str) -> str:
    parts: list[str] = []
    for ch in body:
        if ch == "*":
            if not parts or parts[-1] != ".*":  # `**` is the same language as `*`
                parts.append(".*")
        elif ch == "?":
            parts.append(".")
        else:
            parts.append(re.escape(ch))
    return "".join(parts)


@lru_cache(maxsize=8192)
def compile_pattern(pattern: str) -> Matcher:
    """A predicate deciding whether a (normalized) text matches `pattern`."""
    pattern = normalize(pattern)
    body, optional_tail = _split_optional_tail(pattern)
    if pattern == "*" or (pattern and set(pattern) == {"*"}):
        return _always
    if not has_wildcard(pattern):
        return pattern.__eq__
    if not optional_tail:
        stem = pattern.rstrip("*")
        if len(stem) < len(pattern) and not has_wildcard(stem):
            return lambda text: text.startswith(stem)
    if not optional_tail:
        return _segment_matcher(pattern)
    if not has_wildcard(body):  # `git push *`: the body itself, or the body, a space and anything
        spaced = body + " "
        return lambda text: text == body or text.startswith(spaced)
    whole = _segment_matcher(pattern)
    bare = _segment_matcher(body)
    return lambda text: bare(text) or whole(text)


def _segment_matcher(pattern: str) -> Matcher:
    """Match without a backtracking regex: a pattern from a cloned project (`*a*a*a*...*b`) must not
    make one call take exponential time. The pieces between `*`s have a fixed length (`?` is one
    character), the first is anchored at the start, the last at the end, and each middle piece is taken
    at its leftmost place after the previous one, which is always the best choice for `*` globs."""
    if "?" not in pattern:
        return _literal_pieces_matcher(pattern.split("*"))
    pieces = [re.compile(_regex_source(piece), re.DOTALL) for piece in pattern.split("*")]
    if len(pieces) == 1:
        only = pieces[0].fullmatch
        return lambda text: only(text) is not None
    first, middle, last = pieces[0], pieces[1:-1], pieces[-1]
    head, tail = len(pattern.split("*")[0]), len(pattern.split("*")[-1])

    def match(text: str) -> bool:
        end = len(text) - tail
        if end < head or first.match(text) is None or last.fullmatch(text, end) is None:
            return False
        pos = head
        for piece in middle:
            found = piece.search(text, pos, end)
            if found is None:
                return False
            pos = found.end()
        return True

    return match


def _literal_pieces_matcher(pieces: list[str]) -> Matcher:
    """`_segment_matcher` for a pattern without `?`: the pieces are plain text, so `str` methods do
    what the regex engine did, and nothing is compiled (a large config compiles thousands)."""
    if len(pieces) == 1:
        only = pieces[0]
        return lambda text: text == only
    first, middle, last = pieces[0], pieces[1:-1], pieces[-1]
    head, tail = len(first), len(last)

    def match(text: str) -> bool:
        end = len(text) - tail
        if end < head or not text.startswith(first) or not text.endswith(last):
            return False
        pos = head
        for piece in middle:
            found = text.find(piece, pos, end)
            if found < 0:
                return False
            pos = found + len(piece)
        return True

    return match


def _always(text: str) -> bool:
    return True


def wildcard_match(text: str, pattern: str) -> bool:
    """Whether `text` matches the wildcard `pattern` exactly as SPEC 4.1 defines it."""
    return compile_pattern(pattern)(normalize(text))


# --- subsumption ----------------------------------------------------------------------------------
#
# A pattern is a tiny NFA: state i means "tokens[:i] consumed". `*` loops on any character and may be
# skipped, `?` consumes any one character, a literal consumes itself. The optional `" *"` tail makes
# the state before the tail accepting too. Characters that appear in neither pattern all behave the
# same, so one fresh character stands for all of them and the alphabet stays finite.

_ANY = object()


class _Nfa:
    __slots__ = ("accepting", "tokens")

    def __init__(self, pattern: str) -> None:
        pattern = normalize(pattern)
        body, optional_tail = _split_optional_tail(pattern)
        self.tokens: str = pattern
        self.accepting = {len(pattern)}
        if optional_tail:
            self.accepting.add(len(body))

    def closure(self, states: frozenset[int] | set[int]) -> frozenset[int]:
        out = set(states)
        stack = list(states)
        while stack:
            i = stack.pop()
            if i < len(self.tokens) and self.tokens[i] == "*" and i + 1 not in out:
                out.add(i + 1)
                stack.append(i + 1)
        return frozenset(out)

    def step(self, states: frozenset[int], ch: str) -> frozenset[int]:
        nxt: set[int] = set()
        for i in states:
            if i >= len(self.tokens):
                continue
            tok = self.tokens[i]
            if tok == "*":
                nxt.add(i)
            elif tok == "?" or tok == ch:
                nxt.add(i + 1)
        return self.closure(nxt)

    def accepts(self, states: frozenset[int]) -> bool:
        return not self.accepting.isdisjoint(states)


def _alphabet(*patterns: str) -> list[str]:
    literals = sorted({c for p in patterns for c in normalize(p)} - WILDCARD_CHARS)
    fresh = next(chr(c) for c in range(0xE000, 0xF900) if chr(c) not in literals)
    return [*literals, fresh]


def subsumption_witness(general: str, specific: str) -> str | None:
    """A shortest text that `specific` matches and `general` does not, or None when there is none."""
    g, s = _Nfa(general), _Nfa(specific)
    alphabet = _alphabet(general, specific)
    start = (s.closure({0}), g.closure({0}))
    seen = {start}
    frontier: list[tuple[frozenset[int], frozenset[int], str]] = [(start[0], start[1], "")]
    while frontier:
        next_frontier: list[tuple[frozenset[int], frozenset[int], str]] = []
        for s_states, g_states, text in frontier:
            if s.accepts(s_states) and not g.accepts(g_states):
                return text
            for ch in alphabet:
                s_next = s.step(s_states, ch)
                if not s_next:
                    continue
                key = (s_next, g.step(g_states, ch))
                if key not in seen:
                    seen.add(key)
                    next_frontier.append((key[0], key[1], text + ch))
        frontier = next_frontier
    return None


def pattern_subsumes(general: str, specific: str) -> bool:
    """Whether every text matching `specific` also matches `general` (exact, for `check`).

    Used to find rules that can never decide because a later rule covers everything they match. The
    common shapes are answered directly (`check` asks this for every rule against every later one that
    may cover it, and for every overridden allow of every hidden tool): a literal `specific` matches
    one text; `general` must agree with `specific`'s literal head and tail (`may_subsume`); `prefix*`
    covers exactly the patterns whose head starts with the prefix. Only the rest build the automata
    (`subsumption_witness`).
    """
    if general == specific:
        return True
    if not has_wildcard(specific):
        return wildcard_match(specific, general)
    if not may_subsume(general, specific):
        return False
    stem = _plain_prefix_star(general)
    if stem is not None:
        return literal_head(specific).startswith(stem)
    return _subsumes(general, specific)


@lru_cache(maxsize=4096)
def _subsumes(general: str, specific: str) -> bool:
    return subsumption_witness(general, specific) is None


def _plain_prefix_star(pattern: str) -> str | None:
    """`P` when the (normalized) pattern is `P*` with a literal `P` (no `" *"` tail): it matches
    exactly the texts that start with `P`."""
    pattern = normalize(pattern)
    stem = pattern.rstrip("*")
    if stem == pattern or has_wildcard(stem) or pattern.endswith(" *"):
        return None
    return stem


def may_subsume(general: str, specific: str) -> bool:
    """Cheap necessary conditions for `pattern_subsumes(general, specific)`: the literal ends agree, and
    `general` matches two texts `specific` matches (its wildcards filled with a character `general`
    does not name, and its `*` left empty). Exact when `specific` has no wildcard."""
    if general == specific or general == "*":
        return True
    if not (literal_head(specific).startswith(literal_head(general))
            and literal_tail(specific).endswith(literal_tail(general))):
        return False
    if not has_wildcard(specific):
        return wildcard_match(specific, general)
    fresh = next(chr(c) for c in range(0xE000, 0xF900) if chr(c) not in general)
    filled = specific.replace("*", fresh).replace("?", fresh)
    emptied = specific.replace("*", "").replace("?", fresh)
    return wildcard_match(filled, general) and wildcard_match(emptied, general)


# --- many patterns against one text ---------------------------------------------------------------


# Unbounded on purpose: these are asked only of the config's own patterns (indexing, `check`), so the
# caches hold at most one entry per pattern written; a bound (it was 16,384) made a config with more
# patterns than that recompute every one on each look-up.
@cache
def literal_head(pattern: str) -> str:
    """The literal text every match of `pattern` starts with: what comes before its first wildcard
    (an optional `" *"` tail excluded), after normalization.

    If `general` covers `specific`, the literal head of `specific` starts with that of `general` (and
    likewise for tails; both checked by a property test), so only such pairs need the exact test.
    """
    body, _ = _split_optional_tail(normalize(pattern))
    cut = next((i for i, c in enumerate(body) if c in WILDCARD_CHARS), len(body))
    return body[:cut]


@cache
def literal_tail(pattern: str) -> str:
    """The literal text every match of `pattern` ends with (nothing after an optional `" *"` tail)."""
    text = normalize(pattern)
    if text.endswith(" *"):
        return ""
    cut = max((i for i, c in enumerate(text) if c in WILDCARD_CHARS), default=-1)
    return text[cut + 1:]


#: what a pattern does to every text that starts with a given prefix (`prefix_verdict`)
MATCHES_ALL, MATCHES_NONE, DEPENDS = "all", "none", "depends"


def prefix_verdict(pattern: str, prefix: str) -> str:
    """Whether `pattern` matches every text that starts with `prefix` (normalized), none of them, or
    some (DEPENDS: it hangs on the rest of the text). Exact for the patterns a config mostly holds (a
    literal, `head*`, `head *`); any other is DEPENDS unless its literal head and the prefix part."""
    pattern = normalize(pattern)
    if pattern and set(pattern) == {"*"}:
        return MATCHES_ALL
    if not has_wildcard(pattern):  # the one text equal to it
        return DEPENDS if pattern.startswith(prefix) else MATCHES_NONE
    body, optional_tail = _split_optional_tail(pattern)
    stem = (body + " ") if optional_tail else pattern.rstrip("*")
    if not has_wildcard(stem) and (optional_tail or len(stem) < len(pattern)):
        # every text starting with `stem` matches (and, with an optional tail, `body` itself)
        if prefix.startswith(stem):
            return MATCHES_ALL
        if stem.startswith(prefix) or (optional_tail and body.startswith(prefix)):
            return DEPENDS
        return MATCHES_NONE
    head = literal_head(pattern)  # every match starts with it
    return DEPENDS if head.startswith(prefix) or prefix.startswith(head) else MATCHES_NONE


class WildcardIndex:
    """Many wildcard patterns, indexed by their literal head, answering "which of them match this
    text" without trying every pattern: only patterns whose head is a prefix of the text are tried,
    one dictionary look-up per distinct head length. Positions are the order patterns were given in."""

    __slots__ = ("_by_head", "_lengths", "_lengths_by_start", "_matchers", "_patterns", "_short",
                 "_sorted_heads", "size")

    def __init__(self, patterns: Iterable[str]) -> None:
        self._by_head: dict[str, list[int]] = {}
        self._patterns: list[str] = []
        for position, pattern in enumerate(patterns):
            self._by_head.setdefault(literal_head(pattern), []).append(position)
            self._patterns.append(pattern)
        self.size = len(self._patterns)
        # compiled on first test and kept: a look-up tries only its head's bucket, so most of a large
        # config's patterns are never compiled (compiling all 200,000 cost more than every look-up)
        self._matchers: list[Matcher | None] = [None] * self.size
        self._lengths = sorted({len(head) for head in self._by_head})
        # the head lengths worth slicing a text at, by the text's first two characters: a look-up of
        # `/bin/rm x` or `command rm x` tries only heads that start as the text does (heads of fewer
        # than two characters are tried for every text)
        self._short = [n for n in self._lengths if n < 2]
        by_start: dict[str, set[int]] = {}
        for head in self._by_head:
            if len(head) >= 2:
                by_start.setdefault(head[:2], set()).add(len(head))
        self._lengths_by_start = {start: sorted(lengths) for start, lengths in by_start.items()}
        self._sorted_heads: list[str] | None = None  # for `last_for_prefix`, sorted on first use

    def _test(self, position: int, text: str) -> bool:
        matches = self._matchers[position]
        if matches is None:
            matches = self._matchers[position] = compile_pattern(self._patterns[position])
        return matches(text)

    def _candidate_lengths(self, text: str) -> list[int]:
        """The head lengths (ascending) at which `text` may start with some head."""
        longer = self._lengths_by_start.get(text[:2])
        return [*self._short, *longer] if longer else self._short

    def matching(self, text: str) -> list[int]:
        """Positions of the patterns that match `text`, ascending."""
        text = normalize(text)
        found: list[int] = []
        for length in self._candidate_lengths(text):
            if length > len(text):
                break
            for position in self._by_head.get(text[:length], ()):
                if self._test(position, text):
                    found.append(position)
        found.sort()
        return found

    def last(self, text: str) -> int:
        """The position of the last pattern that matches `text`, or -1: each candidate bucket is read
        from its last pattern back and stops at the first match, so patterns that match everything
        under their head (`plugin_*`) cost one test, however many there are."""
        text = normalize(text)
        best = -1
        for length in self._candidate_lengths(text):
            if length > len(text):
                break
            for position in reversed(self._by_head.get(text[:length], ())):
                if position <= best:
                    break
                if self._test(position, text):
                    best = position
                    break
        return best

    def last_for_prefix(self, prefix: str) -> int | None:
        """For every text that starts with `prefix` at once: the position of the last pattern that
        matches each of them (-1: none matches any), or None when which one does hangs on the rest of
        the text (a later pattern matches some of them: `prefix_verdict`). Only the patterns whose head
        is a prefix of `prefix`, or starts with it, are read."""
        from bisect import bisect_right

        prefix = normalize(prefix)
        best, unsure = -1, -1
        for length in self._lengths:
            if length > len(prefix):
                break
            for position in self._by_head.get(prefix[:length], ()):
                verdict = prefix_verdict(self._patterns[position], prefix)
                if verdict is MATCHES_ALL:
                    best = max(best, position)
                elif verdict is DEPENDS:
                    unsure = max(unsure, position)
        heads = self._sorted_heads
        if heads is None:
            heads = self._sorted_heads = sorted(self._by_head)
        for i in range(bisect_right(heads, prefix), len(heads)):  # heads longer than the prefix
            if not heads[i].startswith(prefix):
                break
            unsure = max(unsure, self._by_head[heads[i]][-1])  # their matches start past the prefix
        return None if unsure > best else best


def any_matching_text(pattern: str, sorted_texts: Sequence[str]) -> bool:
    """Whether `pattern` matches any of `sorted_texts` (sorted, normalized): only the texts starting
    with the pattern's literal head are tried (found by bisection)."""
    from bisect import bisect_left

    head = literal_head(pattern)
    matches = compile_pattern(pattern)
    for i in range(bisect_left(sorted_texts, head), len(sorted_texts)):
        text = sorted_texts[i]
        if not text.startswith(head):
            return False
        if matches(text):
            return True
    return False


@lru_cache(maxsize=4096)
def patterns_overlap(first: str, second: str) -> bool:
    """Whether some text matches both patterns (exact, for `check`): a later rule with `second` can
    then decide a call that a rule with `first` was meant to decide."""
    a, b = _Nfa(first), _Nfa(second)
    alphabet = _alphabet(first, second)
    start = (a.closure({0}), b.closure({0}))
    seen = {start}
    frontier = [start]
    while frontier:
        next_frontier: list[tuple[frozenset[int], frozenset[int]]] = []
        for a_states, b_states in frontier:
            if a.accepts(a_states) and b.accepts(b_states):
                return True
            for ch in alphabet:
                key = (a.step(a_states, ch), b.step(b_states, ch))
                if key[0] and key[1] and key not in seen:
                    seen.add(key)
                    next_frontier.append(key)
        frontier = next_frontier
    return False
