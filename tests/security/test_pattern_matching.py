"""Red-team cases for rule patterns: regex metacharacters are literal, and no pattern from a cloned
project can make matching take exponential time (SPEC 4.1)."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from forge_tools.permission.wildcard import wildcard_match


def _reference(text: str, pattern: str) -> bool:
    """SPEC 4.1 spelled as a regex, for comparison on small inputs only."""
    text, pattern = text.replace("\\", "/"), pattern.replace("\\", "/")
    body, tail = (pattern[:-2], "(?: .*)?") if pattern.endswith(" *") else (pattern, "")
    source = "".join(".*" if c == "*" else "." if c == "?" else re.escape(c) for c in body) + tail
    return re.fullmatch(source, text, re.DOTALL) is not None


@pytest.mark.parametrize(
    ("pattern", "text", "expected"),
    [("rm (.*)", "rm x", False), ("rm (.*)", "rm (.*)", True), ("[a-z]*", "ls", False),
     ("[a-z]*", "[a-z] x", True), ("a+b", "aab", False), ("x|y", "x", False), ("^ls$", "ls", False),
     ("ls.", "lsx", False), ("rm ${x}", "rm ${x}", True), ("(?s).*", "ls", False)],
)
def test_regex_metacharacters_are_literal(pattern: str, text: str, expected: bool) -> None:
    assert wildcard_match(text, pattern) is expected


def test_many_stars_do_not_backtrack() -> None:
    # With a backtracking regex this call takes minutes (each `*` multiplies the work).
    assert wildcard_match("echo " + "a" * 60, "*a" * 30 + "*b") is False
    assert wildcard_match("a" * 60 + "b", "*a" * 30 + "*b") is True
    assert wildcard_match("x" * 5000, "*a?" * 40 + "*c") is False


alphabet = st.sampled_from(["a", "b", " ", "*", "?", "/", "\\", "."])


@settings(max_examples=400, deadline=None)
@given(pattern=st.text(alphabet, max_size=8), text=st.text(st.sampled_from(["a", "b", " ", "/", "\\", "."]),
                                                             max_size=10))
def test_matching_agrees_with_the_spec_regex(pattern: str, text: str) -> None:
    assert wildcard_match(text, pattern) is _reference(text, pattern)
