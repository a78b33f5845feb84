"""The names a rule can name: the builtin tool ids (SPEC 2) and which permission a tool's calls are
checked under (SPEC 3.3: the edit family shares one). Shared by config, permission, tools and check."""

from __future__ import annotations

from collections.abc import Iterable

#: the builtin tools in registration order (SPEC 2, source 1); each is `tools/builtins/<id>.py`
BUILTIN_ORDER: tuple[str, ...] = (
    "invalid", "question", "bash", "read", "glob", "grep", "list", "edit", "write", "apply_patch",
    "task", "webfetch", "todowrite", "websearch", "skill",
)
# Registered only when their gate holds: `lsp` with flag `lsp`; `plan_exit` with flag `plan` and client `cli`.
GATED_ORDER: tuple[str, ...] = ("lsp", "plan_exit")
ALL_BUILTINS: tuple[str, ...] = BUILTIN_ORDER + GATED_ORDER

EDIT_FAMILY = frozenset({"edit", "write", "apply_patch", "multiedit", "patch"})


def permission_name(tool_id: str) -> str:
    """`edit` for every file-changing tool, so one `edit` rule governs them all; else the id."""
    return "edit" if tool_id in EDIT_FAMILY else tool_id


#: permission names that are not tool ids (SPEC 4), plus the tools gated by flags at registration
PERMISSION_ONLY_NAMES = frozenset({
    *EDIT_FAMILY, "external_directory", "doom_loop", "plan_enter", "plan_exit", "question", "task", "lsp",
})


def builtin_ids() -> list[str]:
    """Every builtin id, flag-gated ones included (a rule for `lsp` is not a typo)."""
    return list(ALL_BUILTINS)


def known_permission_names() -> set[str]:
    """Names a rule or an approval can meaningfully name before project tools are known."""
    return {*PERMISSION_ONLY_NAMES, *builtin_ids()}


def known_names(tool_ids: Iterable[str] = ()) -> set[str]:
    """The one set of names a rule, an approval or a request boolean can meaningfully name: the
    permission-only names, every builtin id (flag-gated ones included), and the turn's tool ids with
    their permission names. `run --approve`, `--tools` and `check` all test names against this."""
    ids = list(tool_ids)
    return {*known_permission_names(), *ids, *(permission_name(i) for i in ids)}
