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
from typing import TYPE_CHECKING

from forge_tools.lazy_re import lazy
from forge_tools.named_tuple import NamedTuple

if TYPE_CHECKING:
    from collections.abc import Sequence

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


#: a word `shape_words` may write as a slot: no quoting, expansion or operator character
_PLAIN = lazy(r"[A-Za-z0-9_./:@%+=,-]+")
#: a program's name whose commands `shape_words` may slot (after an assignment or a
#: redirection tree-sitter-bash reads `x:y`, `1` or `-`, and the words after them, otherwise than at the
#: start of a line)
_NAME = lazy(r"[A-Za-z_][A-Za-z0-9_.-]*")
_SLOT = lazy(r"QQ(\d+)QQ")
#: words bash (and tree-sitter-bash) may read as syntax where a command starts: never a slotted program
_RESERVED = frozenset({"if", "then", "else", "elif", "fi", "case", "esac", "for", "select", "while",
                       "until", "do", "done", "in", "function", "time", "coproc", "declare", "typeset",
                       "export", "readonly", "local", "unset", "unsetenv"})


def shape_words(command: str) -> tuple[str, ...] | None:
    """The words of `command` (a program and its arguments, one space apart) that may be written as
    slots (slot 0: the program, "" when it stays as written), or None when they may not. Each is a
    plain word and tree-sitter-bash reads the command, and the command as `echo`'s arguments, as it
    reads the slotted line (the same tree: one command of exactly these words, none of them a number,
    which is no word), so its lowering is the slotted line's filled in, and every spelling's is read
    alike too; the program is slotted only when the lowering reads nothing into its name (not one of
    `PATH_COMMANDS`) and bash reads no syntax into it."""
    words = command.split(" ")
    if (len(words) < 2 or "QQ" in command or not _NAME().fullmatch(words[0])
            or not all(_PLAIN().fullmatch(w) for w in words[1:])):
        return None
    prog = words[0]
    if prog in PATH_COMMANDS and any(w[0] == "-" or (w[0] == "+" and prog == "chmod") for w in words[1:]):
        return None  # its path checks read the word's first character, which its slot does not have
    shape = (prog if prog not in PATH_COMMANDS and prog not in _RESERVED else "", *words[1:])
    tree = _slotted_tree(" ".join(slot_values(shape, tuple(words))))
    if tree is None or str(_parser().parse(f"{command}\necho {command}".encode()).root_node) != tree:
        return None
    return shape


@lru_cache(maxsize=1024)
def _slotted_tree(line: str) -> str | None:
    """The tree (as an S-expression) of a slotted command line and of it as `echo`'s arguments, when
    its lowering is one command whose text is the line and whose words are its words; else None."""
    filled = slotted_lowering(line)
    words = line.split(" ")
    if filled is None or slotted_lowering(f"echo {line}") is None:
        return None
    lowered = fill(filled, words)
    if len(lowered) != 1 or lowered[0].text != line or lowered[0].words != tuple(words):
        return None
    return str(_parser().parse(f"{line}\necho {line}".encode()).root_node)


def slot_values(shape: tuple[str, ...], words: tuple[str, ...]) -> tuple[str, ...]:
    """What a spelling of a command of this shape (`shape_words`) is slotted with: each word written
    as its slot (`QQ1QQ`), but the program where the shape leaves it as written and a word holding a
    `/` (a path's parts are read one by one). A spelling template filled with these (and the literal
    pieces cut from the words) is the slotted line `slotted_lowering` lowers, once for every command
    of the same shape."""
    return tuple(f"QQ{i}QQ" if slot and "/" not in slot else word
                 for i, (slot, word) in enumerate(zip(shape, words, strict=True)))


def fill(filled: tuple[tuple[str, int], ...], words: Sequence[str]) -> list[OpencodeCommand]:
    """The words put back in a slotted lowering (`slotted_lowering`): the lowering of the line it was
    made of, with each slot its word."""
    found = []
    for joined, words_count in filled:
        parts = joined.format(*words).split("\0")
        found.append(OpencodeCommand(parts[0], tuple(parts[1:words_count + 1]),
                                     tuple(parts[words_count + 1:])))
    return found


@lru_cache(maxsize=8192)
def slotted_lowering(line: str) -> tuple[tuple[str, int], ...] | None:
    """The lowering of a slotted line, each command as one `str.format` string (its text, words and
    path-checked arguments, joined by NUL: a shaped line holds none) with each slot as a field, and its
    number of words; or None when a slot other than the program's is read as (part of) a command's
    name: what the lowering does hangs on the name, and the program's word was slotted only where its
    name reads as nothing (`shape_words`)."""
    commands = lower(line)
    if any(c.words and _SLOT().search(c.words[0].replace("QQ0QQ", "")) for c in commands):
        return None
    return tuple((_field("\0".join((c.text, *c.words, *c.path_args))), len(c.words)) for c in commands)


def _field(text: str) -> str:
    """`text` with each slot as a `str.format` field (`QQ1QQ` -> `{1}`)."""
    return _SLOT().sub(r"{\1}", text.replace("{", "{{").replace("}", "}}"))


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
