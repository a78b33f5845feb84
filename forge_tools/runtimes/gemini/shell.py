"""Gemini CLI 0.61's shell lowering: how `run_shell_command`'s command is cut into the parts the policy
engine checks again (`parse_details`: every command, redirection, substitution and subshell node of
tree-sitter-bash, in source order), whether it redirects (`has_redirection`), the `sh -c` / `bash -c`
wrapper it strips (`strip_wrapper`), and the word list its heuristics read (`words`, shell-quote's
parse: operators kept as words, `$VAR` expanded to nothing, quotes removed).
"""

from __future__ import annotations

import re
from functools import lru_cache
from itertools import pairwise
from typing import TYPE_CHECKING

from forge_tools.named_tuple import NamedTuple

if TYPE_CHECKING:
    from tree_sitter import Node, Parser, Tree

#: the parts that are not commands: checked for redirection, never as a command of their own
REDIRECTION_NAMES = frozenset({"redirection (<)", "redirection (>)", "heredoc (<<)", "herestring (<<<)",
                               "command substitution", "backtick substitution", "process substitution",
                               "subshell"})
_NODE_NAMES = {"heredoc_redirect": "heredoc (<<)", "herestring_redirect": "herestring (<<<)",
               "command_substitution": "command substitution",
               "backtick_substitution": "backtick substitution",
               "process_substitution": "process substitution", "subshell": "subshell"}
_REDIRECT_TYPES = frozenset({"redirected_statement", "file_redirect", "heredoc_redirect",
                             "herestring_redirect"})


class Detail(NamedTuple):
    """One part of a command line: its name (`git`, `redirection (>)`), its text, where it starts."""

    name: str
    text: str
    start: int


class Parsed(NamedTuple):
    details: tuple[Detail, ...]
    has_error: bool


@lru_cache(maxsize=1)
def _parser() -> Parser:
    import tree_sitter_bash
    from tree_sitter import Language, Parser

    return Parser(Language(tree_sitter_bash.language()))


def _tree(command: str) -> Tree | None:
    if not command.strip():
        return None
    return _parser().parse(command.encode("utf-8"))


def _unquote_name(raw: str) -> str:
    if len(raw) >= 2 and raw[0] == raw[-1] and raw[0] in "\"'":
        return raw[1:-1]
    return raw.strip()


def _text(node: Node) -> str:
    return (node.text or b"").decode("utf-8", "replace")


def _name(node: Node) -> str | None:
    kind = node.type
    if kind == "command":
        name = node.child_by_field_name("name")
        return _unquote_name(_text(name)) if name is not None else None
    if kind in ("declaration_command", "unset_command", "test_command"):
        first = node.child(0)
        return _unquote_name(_text(first)) if first is not None else None
    if kind == "file_redirect":
        for child in node.children:
            if "<" in _text(child):
                return "redirection (<)"
            if ">" in _text(child):
                return "redirection (>)"
        return "redirection (>)"
    return _NODE_NAMES.get(kind)


def _prompt_transform(root: Node) -> bool:
    """`${x@P}`: a prompt expansion, which Gemini treats as a parse error."""
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "expansion":
            kids = node.children
            for op, nxt in pairwise(kids):
                if _text(op) == "@" and _text(nxt).lower() == "p":
                    return True
        stack.extend(reversed(node.named_children))
    return False


def parse_details(command: str) -> Parsed | None:
    """Every part of `command` Gemini checks (None: nothing to parse)."""
    tree = _tree(command)
    if tree is None:
        return None
    source = command.encode("utf-8")
    details: list[Detail] = []
    stack = [tree.root_node]
    while stack:
        node = stack.pop()
        name = _name(node)
        if name:
            text = source[node.start_byte:node.end_byte].decode("utf-8", "replace").strip()
            details.append(Detail(name, text, len(source[:node.start_byte].decode("utf-8", "replace"))))
        stack.extend(reversed(node.children))
    has_error = tree.root_node.has_error or not details or _prompt_transform(tree.root_node)
    return Parsed(tuple(sorted(details, key=lambda d: d.start)), has_error)


def has_redirection(command: str) -> bool:
    """Whether the line redirects anything (`>`, `<`, `2>&1`, a heredoc, a herestring)."""
    if not re.search(r"[<>]", command):
        return False
    tree = _tree(command)
    if tree is None:
        return True
    stack = [tree.root_node]
    while stack:
        node = stack.pop()
        if node.type in _REDIRECT_TYPES:
            return True
        stack.extend(reversed(node.children))
    return False


_WRAPPER = re.compile(r"^\s*(?:(?:(?:\S+/)?(?:sh|bash|zsh))\s+-c|cmd\.exe\s+/c|powershell(?:\.exe)?\s+"
                      r"(?:-NoProfile\s+)?-Command|pwsh(?:\.exe)?\s+(?:-NoProfile\s+)?-Command)\s+",
                      re.IGNORECASE)


def strip_wrapper(command: str) -> str:
    """The command inside `bash -c '...'` (`sh`, `zsh`, `/bin/bash`, `cmd.exe /c`, `pwsh -Command`);
    other lines trimmed."""
    match = _WRAPPER.match(command)
    if not match:
        return command.strip()
    inner = command[match.end():].strip()
    if len(inner) >= 2 and inner[0] == inner[-1] and inner[0] in "\"'":
        if match.group(0).strip().endswith("-c") and inner[0] == '"':
            words = shell_quote_parse(inner)
            if len(words) == 1 and isinstance(words[0], str):
                return words[0]
        return inner[1:-1]
    return inner


class Op(NamedTuple):
    """A shell-quote operator (`&&`, `|`, `>`), or a glob (`*.py`) kept as its pattern."""

    op: str
    pattern: str | None = None


_CONTROL = re.compile(r"\|\||&&|;;|\|&|<\(|<<<|>>|>&|<&|[&;()|<>]")
_BLANK = " \t\n"


def shell_quote_parse(line: str) -> list[str | Op]:
    """The words of `line` as the `shell-quote` package's `parse` gives them (no environment: `$X`
    is empty): quotes removed, operators as `Op`, unquoted globs as `Op("glob", pattern)`, a `#`
    comment dropped. Modelled on its documented behaviour for the lines Gemini sees."""
    out: list[str | Op] = []
    i, n = 0, len(line)
    while i < n:
        ch = line[i]
        if ch in _BLANK:
            i += 1
            continue
        control = _CONTROL.match(line, i)
        if control:
            out.append(Op(control.group(0)))
            i = control.end()
            continue
        if ch == "#":
            break
        word, quoted, glob = [], False, False
        while i < n and line[i] not in _BLANK and not (_CONTROL.match(line, i)):
            c = line[i]
            if c == "'":
                end = line.find("'", i + 1)
                end = n if end < 0 else end
                word.append(line[i + 1:end])
                quoted, i = True, end + 1
            elif c == '"':
                i += 1
                while i < n and line[i] != '"':
                    if line[i] == "\\" and i + 1 < n and line[i + 1] in '"\\$`':
                        word.append(line[i + 1])
                        i += 2
                    elif line[i] == "$":
                        i = _skip_var(line, i)
                    else:
                        word.append(line[i])
                        i += 1
                quoted, i = True, i + 1
            elif c == "\\" and i + 1 < n:
                word.append(line[i + 1])
                i += 2
            elif c == "$":
                i = _skip_var(line, i)
            else:
                glob = glob or c in "*?["
                word.append(c)
                i += 1
        text = "".join(word)
        if glob and not quoted:
            out.append(Op("glob", text))
        elif text or quoted:
            out.append(text)
    return out


def _skip_var(line: str, i: int) -> int:
    """Past `$NAME`, `${...}` or a lone `$` (`$` + anything else is kept by shell-quote as `$`)."""
    if i + 1 < len(line) and line[i + 1] == "{":
        end = line.find("}", i)
        return len(line) if end < 0 else end + 1
    m = re.compile(r"[A-Za-z0-9_*@#?$!-]+").match(line, i + 1)
    return m.end() if m else i + 1


def words(line: str) -> list[str]:
    """shell-quote's parse as Gemini's heuristics read it: an operator as its text, a glob as its
    pattern."""
    return [w if isinstance(w, str) else (w.pattern if w.pattern is not None else w.op)
            for w in shell_quote_parse(line)]


def split_commands(line: str) -> list[str]:
    """The commands of a line (no redirections or substitutions): Gemini's `splitCommands`."""
    parsed = parse_details(line)
    if parsed is None or parsed.has_error:
        return []
    return [d.text for d in parsed.details if d.name not in REDIRECTION_NAMES and d.text]
