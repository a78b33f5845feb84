"""SPEC 5.1 truncation: the worked examples, head and tail, bytes versus lines, and properties."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from forge_tools.errors import ConfigError
from forge_tools.origin import Node, Origin
from forge_tools.tools.outputs import OutputStore
from forge_tools.tools.truncation import (
    Truncated,
    TruncationPolicy,
    hint_text,
    preview_lines,
    truncate_output,
)


def _bytes(lines: list[str]) -> int:
    return len("\n".join(lines).encode("utf-8"))


@pytest.fixture
def store(tmp_path: Path) -> OutputStore:
    return OutputStore(tmp_path / "out")


def test_spec_example_5000_lines_with_trailing_newline(store: OutputStore) -> None:
    text = "".join(f"{i}\n" for i in range(5000))
    result = truncate_output(text, TruncationPolicy(), store=store, tool_id="bash")
    assert result.truncated
    assert (result.removed, result.unit) == (3001, "lines")
    preview = result.content.split("\n\n")[0]
    assert preview.split("\n") == [str(i) for i in range(2000)]


def test_within_limits_is_unchanged_and_writes_nothing(store: OutputStore) -> None:
    text = "a\n" * 1999
    result = truncate_output(text, TruncationPolicy(), store=store)
    assert result == Truncated(text, False)
    assert result.metadata() == {"truncated": False}
    assert store.list() == []


def test_exactly_at_both_limits_is_unchanged() -> None:
    policy = TruncationPolicy(max_lines=3, max_bytes=5)
    kept, removed, _ = preview_lines(["a", "b", "c"], policy)
    assert (kept, removed) == (["a", "b", "c"], 0)


def test_byte_limit_stops_before_the_line_that_would_pass_it() -> None:
    policy = TruncationPolicy(max_lines=100, max_bytes=10)
    lines = ["aaaa", "bbbb", "cccc"]  # 4 + 5 = 9 fits; + 5 = 14 does not
    kept, removed, unit = preview_lines(lines, policy)
    assert kept == ["aaaa", "bbbb"]
    assert unit == "bytes"
    assert removed == _bytes(lines) - _bytes(kept)


def test_first_kept_line_costs_no_newline() -> None:
    policy = TruncationPolicy(max_lines=100, max_bytes=4)
    kept, removed, unit = preview_lines(["abcd", "e"], policy)
    assert kept == ["abcd"]
    assert (removed, unit) == (2, "bytes")


def test_a_first_line_over_the_byte_limit_keeps_nothing() -> None:
    kept, removed, unit = preview_lines(["x" * 20, "y"], TruncationPolicy(max_bytes=10))
    assert kept == []
    assert (removed, unit) == (22, "bytes")


def test_tail_keeps_the_end() -> None:
    policy = TruncationPolicy(max_lines=3, max_bytes=1000, direction="tail")
    kept, removed, unit = preview_lines([str(i) for i in range(10)], policy)
    assert kept == ["7", "8", "9"]
    assert (removed, unit) == (7, "lines")


def test_tail_marker_comes_before_the_preview(store: OutputStore) -> None:
    text = "\n".join(str(i) for i in range(100))
    result = truncate_output(text, TruncationPolicy(max_lines=5, direction="tail"), store=store)
    assert result.content.endswith("\n".join(str(i) for i in range(95, 100)))
    assert result.content.index("lines truncated...") < result.content.rindex("\n95\n")
    assert result.direction == "tail"


def test_multibyte_utf8_counts_bytes_not_characters() -> None:
    policy = TruncationPolicy(max_lines=100, max_bytes=7)
    lines = ["ééé", "é"]  # 6 bytes, then 1 + 2 = 3 more: 9 > 7
    kept, removed, unit = preview_lines(lines, policy)
    assert kept == ["ééé"]
    assert (removed, unit) == (3, "bytes")


def test_full_output_is_saved_and_named_in_content_and_metadata(store: OutputStore) -> None:
    text = "\n".join(f"line {i} ✓" for i in range(50))
    result = truncate_output(text, TruncationPolicy(max_lines=10), store=store, tool_id="grep")
    assert result.output_path is not None
    assert Path(result.output_path).read_text(encoding="utf-8") == text
    assert result.output_path in result.content
    meta = result.metadata()
    assert meta["truncated"] is True
    assert meta["outputPath"] == result.output_path
    assert (meta["removed"], meta["unit"], meta["direction"]) == (40, "lines", "head")
    assert meta["hint"] == "search"
    assert "40 lines" in result.content


@pytest.mark.parametrize("kind", ["subagent", "search"])
def test_hint_kinds_differ_and_name_the_file(kind: str, store: OutputStore) -> None:
    result = truncate_output("x\n" * 10, TruncationPolicy(max_lines=2), hint=kind, store=store)
    assert result.hint == kind
    assert hint_text(kind, result.output_path) in result.content
    other = "search" if kind == "subagent" else "subagent"
    assert hint_text(kind, "/p") != hint_text(other, "/p")
    assert "/p" in hint_text(kind, "/p")


def test_fallback_location_is_stated(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("")
    store = OutputStore(blocker / "tool-output", fallback_root=tmp_path / "tmp")
    (tmp_path / "tmp").mkdir()
    result = truncate_output("y\n" * 30, TruncationPolicy(max_lines=3), store=store)
    assert result.output_path is not None
    assert Path(result.output_path).read_text() == "y\n" * 30
    assert not result.output_path.startswith(str(blocker))
    assert result.note is not None
    assert str(blocker / "tool-output") in result.note
    assert str(Path(result.output_path).parent) in result.note
    assert result.output_path.startswith(str(tmp_path / "tmp"))
    assert result.note in result.content
    assert result.metadata()["outputNote"] == result.note


def test_policy_from_config_node_and_mapping() -> None:
    origin = Origin("file", path="forge.json", line=1, column=1)
    tree = Node.from_plain({"tool_output": {"max_lines": 10, "max_bytes": 99}}, origin)

    class Loaded:
        def __init__(self, tree: Node) -> None:
            self.tree = tree

    assert TruncationPolicy.from_config(Loaded(tree)) == TruncationPolicy(10, 99)
    assert TruncationPolicy.from_config({"tool_output": {"max_lines": 5}}) == TruncationPolicy(5, 51200)
    assert TruncationPolicy.from_config(None) == TruncationPolicy()
    bad = Node.from_plain({"tool_output": {"max_bytes": 0}}, origin)
    with pytest.raises(ConfigError) as info:
        TruncationPolicy.from_config(Loaded(bad))
    assert "tool_output.max_bytes" in info.value.one_line()
    assert "forge.json" in info.value.one_line()


line_text = st.text(st.characters(blacklist_characters="\n", blacklist_categories=("Cs",)), max_size=12)


@settings(max_examples=200, deadline=None)
@given(
    lines=st.lists(line_text, min_size=1, max_size=40),
    max_lines=st.integers(1, 30),
    max_bytes=st.integers(1, 120),
    direction=st.sampled_from(["head", "tail"]),
)
def test_preview_properties(lines: list[str], max_lines: int, max_bytes: int, direction: str) -> None:
    policy = TruncationPolicy(max_lines, max_bytes, direction)  # type: ignore[arg-type]
    kept, removed, unit = preview_lines(lines, policy)
    within = len(lines) <= max_lines and _bytes(lines) <= max_bytes
    if within:
        assert (kept, removed) == (lines, 0)
        return
    assert len(kept) <= max_lines
    assert _bytes(kept) <= max_bytes or not kept
    # kept is a contiguous run at the chosen end
    if kept:
        assert kept == (lines[: len(kept)] if direction == "head" else lines[-len(kept):])
    if unit == "lines":
        assert removed == len(lines) - len(kept)
        assert len(kept) == max_lines
    else:
        assert removed == _bytes(lines) - _bytes(kept)
        assert removed > 0


@settings(max_examples=100, deadline=None)
@given(text=st.text(max_size=300), max_lines=st.integers(1, 20))
def test_truncate_output_saves_the_exact_text(tmp_path_factory: pytest.TempPathFactory, text: str,
                                               max_lines: int) -> None:
    store = OutputStore(tmp_path_factory.mktemp("store"))
    result = truncate_output(text, TruncationPolicy(max_lines=max_lines, max_bytes=200), store=store)
    if not result.truncated:
        assert result.content == text
        return
    assert result.output_path is not None
    assert Path(result.output_path).read_bytes() == text.encode("utf-8")


def test_non_utf8_bytes_are_replaced_in_the_preview_and_kept_in_the_file(store: OutputStore) -> None:
    raw = b"".join(b"row %d \xff\xfe\n" % i for i in range(20))
    text = raw.decode("utf-8", "surrogateescape")  # how a caller hands over a command's bytes
    result = truncate_output(text, TruncationPolicy(max_lines=5), store=store, tool_id="bash")
    assert result.output_path is not None
    assert Path(result.output_path).read_bytes() == raw
    result.content.encode("utf-8")  # printable: no lone surrogates left
    assert "row 0 \ufffd\ufffd" in result.content
    small = truncate_output("ok \udcff", TruncationPolicy(), store=store)
    assert not small.truncated and small.content == "ok \ufffd"
