"""One call in every agent's words: names two vocabularies share are read in the words they are given."""

from __future__ import annotations

from forge_tools.runtimes.vocabulary import own_call, shared_call


def test_apply_patch_in_opencodes_words_stays_opencodes() -> None:
    call = shared_call("apply_patch", {"patchText": "*** Begin Patch\n*** End Patch"})
    assert (call.tool, call.args) == ("apply_patch", {"patchText": "*** Begin Patch\n*** End Patch"})


def test_apply_patch_in_codexs_words_is_read_back() -> None:
    call = shared_call("apply_patch", {"input": "*** Begin Patch\n*** End Patch"})
    assert (call.tool, call.args) == ("apply_patch", {"patchText": "*** Begin Patch\n*** End Patch"})
    own = own_call("codex", call)
    assert own is not None and own.args == {"input": "*** Begin Patch\n*** End Patch"}


def test_a_name_only_one_agent_has_is_read_in_its_words() -> None:
    call = shared_call("exec_command", {"cmd": "git status"})
    assert (call.tool, call.args) == ("bash", {"command": "git status"})
    call = shared_call("Bash", {"command": "ls"})
    assert (call.tool, call.args) == ("bash", {"command": "ls"})


def test_the_column_names_table_is_each_columns_names() -> None:
    """`COLUMN_NAMES` lets a call no column names skip importing the agents' modules (issue 31): it
    must list exactly the names each column uses, or a call in an agent's words would be missed."""
    from forge_tools.runtimes.vocabulary import COLUMN_NAMES, COLUMNS, column

    for runtime in COLUMNS:
        own = column(runtime)
        names = frozenset(name for name, _ in own.values()) if own is not None else frozenset()
        assert COLUMN_NAMES.get(runtime, frozenset()) == names, runtime
