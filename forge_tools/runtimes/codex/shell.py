"""How Codex's shell tool turns a command line into the argv its exec policy sees (`codex execpolicy
check` takes argv and does not unwrap `bash -lc`; `codex exec` against a loopback model does).

`exec_command {"cmd": LINE}` runs `bash -lc LINE` (`-c` when `login` is false). Codex parses LINE
and, when it is only plain commands (an unquoted program name, then words and quoted strings
without expansion) joined by `&&`, `||`, `;`, `|` and newlines, checks each command's argv on its
own; an argument made of quoted and plain pieces (`p'u'sh`, `pu"sh"`) is the one word they spell.
Anything else (a redirection, `$(...)`, backquotes, `$VAR`, `FOO=bar cmd`, a subshell, `&`, a
glob, a comment, a backslash, a quoted or pieced program name) is not split: the whole
`["bash", "-lc", LINE]` is the one command the policy sees. Recorded under `codex exec`
(tests/compat/codex, `exec-*`); forge-tools parses with tree-sitter-bash, as Codex does.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

from forge_tools.named_tuple import NamedTuple

if TYPE_CHECKING:
    from tree_sitter import Node, Parser

_JOINS = {"&&", "||", ";", "|", "\n"}
_WORDS = {"word", "number", "raw_string", "string", "command_name", "concatenation"}


class Lowered(NamedTuple):
    """The argv the policy checks, and whether the line was split into plain commands."""

    commands: tuple[tuple[str, ...], ...]
    split: bool
    why: str  # why it was not split (empty when it was)


@lru_cache(maxsize=1)
def _parser() -> Parser:
    from tree_sitter import Parser

    from forge_tools.grammars import language

    return Parser(language("tree_sitter_bash"))


def _word(node: Node, data: bytes) -> str | None:
    text = data[node.start_byte:node.end_byte].decode("utf-8", "replace")
    if node.type == "command_name":  # a quoted program name (`'git' push`) is not plain (recorded)
        inner = node.named_children
        return _word(inner[0], data) if len(inner) == 1 and inner[0].type == "word" else None
    if node.type in ("word", "number"):
        return None if any(c in text for c in "*?[]{}~$`\\") else text
    if node.type == "raw_string":
        return text[1:-1]
    if node.type == "string":
        if any(c.type != "string_content" for c in node.named_children):
            return None
        return text[1:-1] if "\\" not in text else None
    if node.type == "concatenation":  # `p'u'sh`, `pu"sh"`: one word of its pieces (recorded)
        pieces = [_word(child, data) for child in node.named_children]
        return None if any(p is None for p in pieces) else "".join(pieces)  # type: ignore[arg-type]
    return None


def _commands(node: Node, data: bytes, out: list[tuple[str, ...]]) -> str | None:
    """Collect plain commands below `node`; the first thing that is not one, named (None: all plain)."""
    if node.type == "command":
        words = []
        for child in node.named_children:
            if child.type not in _WORDS:
                return child.type
            word = _word(child, data)
            if word is None:
                return f"{child.type} {data[child.start_byte:child.end_byte].decode()!r}"
            words.append(word)
        out.append(tuple(words))
        return None
    if node.type in ("program", "list", "pipeline"):
        for child in node.children:
            if child.is_named:
                if child.type == "comment":
                    return "comment"
                bad = _commands(child, data, out)
                if bad is not None:
                    return bad
            elif child.type not in _JOINS:
                return repr(child.type)
        return None
    return node.type


def lower(line: str, shell: str = "bash", login: bool = True) -> Lowered:
    """The argv Codex's exec policy checks for `exec_command {"cmd": line}`."""
    whole = ((shell, "-lc" if login else "-c", line),)
    data = line.encode("utf-8")
    tree = _parser().parse(data)
    if tree.root_node.has_error:
        return Lowered(whole, False, "the line does not parse")
    found: list[tuple[str, ...]] = []
    bad = _commands(tree.root_node, data, found)
    if bad is not None or not found:
        return Lowered(whole, False, f"not only plain commands ({bad or 'empty'})")
    return Lowered(tuple(found), True, "")


_SHELLS = {"bash", "sh", "zsh"}


def _unquoted(node: Node, data: bytes) -> str:
    """A word with its quotes removed (`'rm'` is rm), else as written (a backslash is kept)."""
    import shlex

    word = _word(node.named_children[0], data) if node.type == "command_name" and len(
        node.named_children) == 1 else _word(node, data)
    if word is not None:
        return word
    text = data[node.start_byte:node.end_byte].decode("utf-8", "replace")
    if "\\" in text:  # `\rm -rf x` runs (recorded): a backslash is kept
        return text
    try:
        parts = shlex.split(text)
    except ValueError:
        return text
    return parts[0] if len(parts) == 1 else text


def every_command(argv: tuple[str, ...], depth: int = 0) -> list[tuple[str, ...]]:
    """`argv` and, when it is `bash -lc LINE` (or `-c`, `sh`, `zsh`), every command in LINE, however
    it is written (redirected, in a list, nested in another `bash -c`): each as its words, a word
    that is not plain kept as written. For checks that look at a whole line (Codex's `rm -f` one)."""
    out = [argv]
    shell = len(argv) == 3 and argv[0].rsplit("/", 1)[-1] in _SHELLS and argv[1] in ("-c", "-lc")
    if depth > 3 or not shell:
        return out
    data = argv[2].encode("utf-8")
    stack = [_parser().parse(data).root_node]
    while stack:
        node = stack.pop()
        if node.type == "command":
            words = []
            for child in node.named_children:
                if child.type in _WORDS:
                    words.append(_unquoted(child, data))
            if words:
                out += every_command(tuple(words), depth + 1)
        stack.extend(reversed(node.named_children))
    return out
