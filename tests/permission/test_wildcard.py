"""Wildcard matching (SPEC 4.1) and pattern subsumption, table-driven and property-based."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from forge_tools.permission.wildcard import (
    normalize,
    pattern_subsumes,
    subsumption_witness,
    wildcard_match,
)

CASES = [
    # (text, pattern, expected)
    ("ls", "ls *", True),
    ("ls -la", "ls *", True),
    ("lsof", "ls *", False),
    ("ls ", "ls *", True),
    ("git status", "git *", True),
    ("git", "git *", True),
    ("gitk", "git *", False),
    ("anything/at/all", "*", True),
    ("", "*", True),
    ("", "", True),
    ("a", "", False),
    ("src/a/b.py", "src/*", True),  # `*` crosses slashes
    ("src/a/b.py", "src/**", True),
    ("src/a/b.py", "src/*.py", True),
    ("src/a/b.ts", "src/*.py", False),
    ("a.b", "a.b", True),  # `.` is literal
    ("axb", "a.b", False),
    ("a+b", "a+b", True),
    ("aab", "a+b", False),
    ("x[1]", "x[1]", True),
    ("x1", "x[1]", False),
    ("(a|b)", "(a|b)", True),
    ("a", "(a|b)", False),
    ("^$", "^$", True),
    ("", "^$", False),
    ("a{2}", "a{2}", True),
    ("aa", "a{2}", False),
    ("cat", "c?t", True),
    ("ct", "c?t", False),
    ("caat", "c?t", False),
    ("c/t", "c?t", True),
    ("C:\\Users\\me\\x.txt", "C:/Users/*", True),  # backslashes are slashes, both sides
    ("C:/Users/me", "C:\\Users\\*", True),
    ("README.md", "readme.md", False),  # case-sensitive
    ("foo.env", "*.env", True),
    ("foo.env.local", "*.env", False),
    ("foo.env.local", "*.env.*", True),
    ("line1\nline2", "line1*", True),  # `*` crosses newlines
    ("line1\nline2", "*line2", True),
    ("rm -rf /", "rm *", True),
    ("rmdir x", "rm *", False),
    ("a b", "a  *", False),  # body is "a " then optional " *"
    ("a ", "a  *", True),
    ("a  x", "a  *", True),
    (" ", " *", True),
    ("", " *", True),
    ("x", " *", False),
    ("ls -la", "ls*", True),
    ("ls", "ls**", True),
    ("xls", "ls*", False),
]


@pytest.mark.parametrize(("text", "pattern", "expected"), CASES)
def test_wildcard_table(text: str, pattern: str, expected: bool) -> None:
    assert wildcard_match(text, pattern) is expected


literal_text = st.text(
    alphabet=st.characters(blacklist_characters="*?\\", blacklist_categories=("Cs",)), max_size=30
)


@given(pattern=literal_text, other=st.one_of(st.text(max_size=30), literal_text.map(lambda t: t + "x")))
def test_literal_pattern_matches_exactly_itself(pattern: str, other: str) -> None:
    assert wildcard_match(pattern, pattern)
    assert wildcard_match(pattern.replace("/", "\\"), pattern)  # backslashes count as slashes
    if other.replace("\\", "/") != pattern:
        assert not wildcard_match(other, pattern)


@given(pattern=literal_text, cut=st.integers(0, 30), insert=st.text(max_size=3), drop=st.integers(0, 2))
def test_literal_pattern_rejects_near_misses(pattern: str, cut: int, insert: str, drop: int) -> None:
    cut = min(cut, len(pattern))
    other = pattern[:cut] + insert + pattern[cut + drop:]
    assert wildcard_match(other, pattern) is (other.replace("\\", "/") == pattern)


@given(pattern=literal_text, text=st.text(max_size=10))
def test_star_suffix_is_a_prefix_test(pattern: str, text: str) -> None:
    if pattern.endswith(" "):
        return
    assert wildcard_match(pattern + text.replace("\\", "/"), pattern + "*")


SMALL = "ab /"
small_patterns = st.text(alphabet="ab /*?", max_size=5)


def _strings(max_len: int) -> list[str]:
    return ["".join(p) for n in range(max_len + 1) for p in itertools.product(SMALL + "z", repeat=n)]


ALL_SMALL = _strings(5)


@settings(max_examples=300, deadline=None)
@given(general=small_patterns, specific=small_patterns)
def test_subsumption_agrees_with_brute_force(general: str, specific: str) -> None:
    witness = subsumption_witness(general, specific)
    if witness is not None:
        assert wildcard_match(witness, specific)
        assert not wildcard_match(witness, general)
        assert not pattern_subsumes(general, specific)
    else:
        assert pattern_subsumes(general, specific)
        for text in ALL_SMALL:
            if wildcard_match(text, specific):
                assert wildcard_match(text, general), (text, general, specific)


SUBSUMES = [
    ("*", "anything", True),
    ("*", "ls *", True),
    ("ls *", "ls -*", True),
    ("ls *", "ls", True),
    ("ls *", "ls*", False),  # lsof
    ("ls*", "ls *", True),
    ("a* *", "a*", True),  # the tail adds nothing to a*
    ("*.env", "*.env.*", False),
    ("src/*", "src/a/*.py", True),
    ("?", "a", True),
    ("a", "?", False),
    ("a.b", "a?b", False),  # `.` is literal
    ("**", "*", True),
    ("*a*", "*a*a*", True),
    ("*a*a*", "*a*", False),
    ("plugin_*", "plugin_a?*", True),  # the `prefix*` shape, answered without the automata
    ("ab*", "a?*", False),
    ("ab*", "ab *", True),
    ("ab *", "ab*", False),
    ("a/*", "a\\b*", True),  # backslashes are slashes on both sides
    ("p1/*", "*", False),
]


@given(st.text(alphabet="ab */?\\", max_size=6), st.text(alphabet="ab */?\\", max_size=6))
@settings(max_examples=1500, deadline=None)
def test_shortcuts_agree_with_the_automata(general: str, specific: str) -> None:
    """`pattern_subsumes` answers common shapes directly; the product automaton is the reference."""
    assert pattern_subsumes(general, specific) is (subsumption_witness(general, specific) is None)


@pytest.mark.parametrize(("general", "specific", "expected"), SUBSUMES)
def test_subsumption_table(general: str, specific: str, expected: bool) -> None:
    assert pattern_subsumes(general, specific) is expected


_index_patterns = st.lists(st.text(alphabet="ab *?/\\", max_size=5), max_size=12)
_index_texts = st.text(alphabet="ab /\\", max_size=6)


@given(_index_patterns, _index_texts)
@settings(max_examples=600, deadline=None)
def test_wildcard_index_finds_exactly_the_matching_patterns(patterns: list[str], text: str) -> None:
    from forge_tools.permission.wildcard import WildcardIndex, any_matching_text

    expected = [i for i, p in enumerate(patterns) if wildcard_match(text, p)]
    assert WildcardIndex(patterns).matching(text) == expected
    assert WildcardIndex(patterns).last(text) == (expected[-1] if expected else -1)
    texts = sorted({normalize(t) for t in (text, text + "a", "b" + text, "ab", "")})
    for p in patterns:
        assert any_matching_text(p, texts) == any(wildcard_match(t, p) for t in texts)
