"""opencode 1.18.33's bash lowering: which text of a command line it matches against `bash` rules,
and which arguments it checks for `external_directory`. Reproduced from its shell tool, not improved.

opencode parses the line with tree-sitter-bash and visits every `command` node (pre-order, so a
command inside `$(...)` or a subshell counts; text inside a quoted string does not: `bash -c "rm x"`
is one command, `bash`). For each command:

- the **pattern** is the command's source text as written, or its redirected statement's when it has
  redirects (`echo hi > f`), trimmed: `/bin/rm x`, `command rm x`, `FOO=1 rm x`, `'rm' x` and `r\\m x`
  are matched as those texts, so `"rm *"` matches none of them;
- its **words** are the children of kind command_name, word, string, raw_string and concatenation
  (not numbers such as `-1`, not expansions, not assignments), each as written;
- `cd` (and `chdir`, `pushd`, `popd`, PowerShell's location commands) gives no pattern;
- only when the first word is exactly one of `cd chdir popd pushd rm cp mv mkdir touch chmod chown
  cat` (or a PowerShell path cmdlet name) are its arguments path-checked: each argument not starting
  with `-` (nor `+` for chmod), one pair of surrounding quotes removed, `~` expanded, cut at the first
  `?`, `*` or `[` (skipped when it starts with one), skipped when it holds `$` or starts with `(`;
  outside the project it adds its directory (the path itself when it is a directory) to the
  `external_directory` ask. `head /etc/x`, `ls /tmp/x`, `/bin/cat /etc/x` and redirect targets are
  never checked.
"""

from __future__ import annotations

import os
from functools import lru_cache
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from tree_sitter import Node, Parser

#: the children of a `command` node opencode reads as its words
WORD_KINDS = frozenset({"command_name", "word", "string", "raw_string", "concatenation"})
#: commands opencode never matches against bash rules (it only path-checks them)
LOCATION_COMMANDS = frozenset({"cd", "chdir", "popd", "pushd", "push-location", "set-location"})
#: commands whose arguments opencode checks for paths outside the project
PATH_COMMANDS = LOCATION_COMMANDS | frozenset({
    "rm", "cp", "mv", "mkdir", "touch", "chmod", "chown", "cat", "get-content", "set-content",
    "add-content", "copy-item", "move-item", "remove-item", "new-item", "rename-item"})


class OpencodeCommand(NamedTuple):
    """One command as opencode sees it."""

    text: str  # the pattern it matches against bash rules (source text; "" for cd-like commands)
    words: tuple[str, ...]  # its words as written
    path_args: tuple[str, ...]  # the arguments it path-checks (before cutting and resolving)


@lru_cache(maxsize=1)
def _parser() -> Parser:
    from tree_sitter import Parser

    from forge_tools.grammars import language

    return Parser(language("tree_sitter_bash"))


def lower(line: str) -> list[OpencodeCommand]:
    """Every command of `line` in opencode's visiting order."""
    data = line.encode("utf-8")
    tree = _parser().parse(data)
    found: list[OpencodeCommand] = []
    stack = [tree.root_node]
    while stack:
        node = stack.pop()
        if node.type == "command":
            found.append(_command(node, data))
        stack.extend(reversed(node.children))
    return found


def _text(node: Node, data: bytes) -> str:
    return data[node.start_byte:node.end_byte].decode("utf-8", "replace")


def _command(node: Node, data: bytes) -> OpencodeCommand:
    words = tuple(_text(c, data) for c in node.children if c.type in WORD_KINDS)
    name = words[0] if words else ""
    whole = node.parent if node.parent is not None and node.parent.type == "redirected_statement" else node
    text = _text(whole, data).strip() if words and name not in LOCATION_COMMANDS else ""
    checked: tuple[str, ...] = ()
    if name in PATH_COMMANDS:
        checked = tuple(w for w in words[1:]
                        if not w.startswith("-") and not (name == "chmod" and w.startswith("+")))
    return OpencodeCommand(text, words, checked)


def bash_patterns(line: str) -> list[str]:
    """The texts opencode matches against `bash` rules, in order, without repeats."""
    return list(dict.fromkeys(c.text for c in lower(line) if c.text))


def path_of_argument(arg: str, cwd: str, home: str) -> str | None:
    """The absolute path opencode checks for one argument, or None when it skips the argument."""
    if len(arg) >= 2 and arg[0] in "\"'" and arg[0] == arg[-1]:
        arg = arg[1:-1]
    if arg == "~":
        arg = home
    elif arg.startswith(("~/", "~\\")):
        arg = os.path.join(home, arg[2:])
    cut = next((i for i, ch in enumerate(arg) if ch in "?*["), None)
    if cut == 0:
        return None
    if cut is not None:
        arg = arg[:cut]
    if not arg or arg.startswith(("(", "@(")) or "$" in arg or "`" in arg:
        return None
    return os.path.normpath(os.path.join(cwd, arg))
