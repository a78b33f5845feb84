"""Split a bash command line into the simple commands that the `bash` permission checks (SPEC 4.4).

A real parser (tree-sitter-bash) finds every simple command wherever it sits: chains (`&&`, `||`, `;`,
newlines), pipelines, subshells, `$(...)` and backtick substitutions, process substitution, the bodies of
`if`/`for`/`while`/`case`, functions, and substitutions hidden inside redirects, assignments or heredocs.
Every command found becomes one permission pattern; all of them must pass, so adding a pattern can only
make a call stricter, never looser. The decisions below all follow from that:

- **Pattern text**: the command's words, each with its quoting resolved when the word is static
  (`"rm" -rf '/'` -> `rm -rf /`, `r\\m` -> `rm`), joined by single spaces. Words with expansions keep
  their source text (`$HOME/x`). Redirects are not part of the pattern (`ls > out` -> `ls`).
- **Prefix assignments** (`FOO=1 rm x`): the pattern is the command without them (`rm x`), so a rule
  about `rm` applies; when assignments were present, the text *with* them is checked as well
  (`FOO=1 rm x`), so `LD_PRELOAD=... ls` is not allowed merely because `ls *` is.
- **Nested shells**: `bash -c 'rm x'` (also sh, zsh, dash, ksh) and `eval 'rm x'` are checked as
  themselves *and* as the commands of the inner string, when that string is static.
- **Wrappers**: `sudo`, `env`, `nohup`, `nice`, `time`, `timeout`, `command`, `exec`, `builtin`, `xargs`,
  `doas`, `watch`, `flock`, `setsid` and a few more are checked as themselves and as the command they
  run (`sudo rm x` -> also `rm x`); so is each `find ... -exec CMD ;` command.
- **Command names that are paths** (`/bin/rm x`, `./rm x`, `bin/rm x`) are also checked by their last
  component (`rm x`), on every route: at the top level, after a wrapper (`sudo env /usr/bin/rm x`), in
  `find -exec`, after `xargs`, inside `bash -c` and `eval`. A relative path counts too: `./rm` may be a
  different program, but checking it as `rm` only makes the call stricter.
- **`export`/`local`/`declare`/`readonly`/`unset`** are commands too.
- **Parse errors fail closed**: the whole line (whitespace collapsed) is one more pattern besides every
  piece that could be found, so a `deny` can never be bypassed by confusing the parser.
- **Line continuations** (`r\\<newline>m x` is `rm x` to bash): the line is also split with every
  backslash-newline removed.
- `alias NAME=VALUE`, `trap 'CMD' SIG`, `su -c CMD` (also runuser, script), `flock FILE -c CMD` and
  `env -S 'CMD'` are also checked as the command line they carry; `coproc [NAME] CMD` as CMD.
- A line with no command at all (only assignments or comments) is checked as its whole text.

**Opaque commands.** Some commands cannot be known before they run: a dynamic command name (`$CMD x`,
`$(echo rm) x`, `r${x}m`), a shell reading a script or its stdin (`bash x.sh`, `curl .. | sh`), `source`,
`eval "$X"`, `bash -c "$X"`, `xargs -I{} {}`, and any line the parser could not read. Their patterns keep
the source text (only a wildcard rule such as `*` matches it) and are also listed in
`CommandLine.opaque`, so that a gate can ask instead of allowing when a narrower deny or ask rule could
apply to the real command (the gate does; see `permission.calls.decide_pattern`).

What no rule about command names can catch: programs that do the same thing by other means (`find
-delete`, `python -c`, `perl -e`, `git -c core.pager=...`, `make`, a script's contents) and wrappers this
module does not know. A deny on `rm *` stops commands named rm, not deleting files; to contain effects,
deny `*` and allow what is needed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tree_sitter import Node, Parser

SHELLS = frozenset({"bash", "sh", "zsh", "dash", "ksh", "fish", "mksh", "ash", "busybox sh"})
WRAPPERS = frozenset({
    "sudo", "doas", "env", "nohup", "nice", "time", "timeout", "command", "exec", "builtin", "xargs",
    "stdbuf", "ionice", "chronic", "watch", "flock", "setsid", "unbuffer", "caffeinate", "busybox",
    "chrt", "taskset", "strace", "ltrace", "unshare", "nsenter", "chroot", "firejail", "proot",
    "catchsegv", "coproc", "parallel",
})
# Commands whose `-c STRING` (or `--command STRING`) is a command line run by a shell.
COMMAND_STRING_C = frozenset({"su", "runuser", "script"})
# Commands that run a file's contents in this shell: what they run cannot be seen here.
SOURCES = frozenset({"source", "."})
# Wrappers with positional arguments before the command (`timeout 5 CMD`, `chrt 10 CMD`).
_POSITIONAL: dict[str, int] = {"timeout": 1, "chrt": 1, "taskset": 1, "chroot": 1, "flock": 1}
# Options of common wrappers that take a separate value (`sudo -u root rm x`).
_VALUE_OPTIONS: dict[str, frozenset[str]] = {
    "sudo": frozenset({"-u", "-g", "-C", "-D", "-h", "-p", "-U", "-r", "-t"}),
    "doas": frozenset({"-u", "-C"}),
    "nice": frozenset({"-n"}),
    "xargs": frozenset({"-n", "-I", "-L", "-P", "-d", "-E", "-s", "-a"}),
    "timeout": frozenset({"-s", "-k", "--signal", "--kill-after"}),
    "ionice": frozenset({"-c", "-n", "-p"}),
    "stdbuf": frozenset({"-i", "-o", "-e"}),
    "watch": frozenset({"-n", "-d", "--interval"}),
    "flock": frozenset({"-w", "-E", "--timeout"}),
    "env": frozenset({"-u", "-C", "--unset", "--chdir"}),
    "exec": frozenset({"-a"}),
    "strace": frozenset({"-e", "-o", "-p", "-s", "-u", "-E", "-I", "-a", "-b", "-O", "-S", "-X", "-P"}),
    "ltrace": frozenset({"-e", "-o", "-p", "-s", "-u", "-a", "-n"}),
    "nsenter": frozenset({"-t", "-S", "-G", "--target", "--setuid", "--setgid"}),
    "taskset": frozenset(),
    "firejail": frozenset(),
}
_DECLARATIONS = frozenset({"declaration_command", "unset_command"})
_REDIRECTS = frozenset({"file_redirect", "heredoc_redirect", "herestring_redirect"})
_MAX_DEPTH = 8  # nested `bash -c` / `eval` levels followed before giving up (fail closed: outer kept)

_WS = re.compile(r"\s+")


@dataclass(frozen=True)
class CommandLine:
    """The result of splitting one command line."""

    commands: tuple[str, ...]  # every pattern to check, in source order, without duplicates
    has_error: bool  # the parser reported a syntax error (the whole line is among `commands`)
    argv: tuple[tuple[str | None, ...], ...] = ()  # each simple command's words; None = not static
    opaque: tuple[str, ...] = ()  # patterns (also in `commands`) whose real command is only known at run
    redirects: tuple[str, ...] = ()  # static file targets of redirects (`> out`, `< in`), for path checks


class _Found(list[str]):
    """Patterns found so far, plus each simple command's static words (for path checks)."""

    def __init__(self) -> None:
        super().__init__()
        self.argv: list[tuple[str | None, ...]] = []
        self.opaque: list[str] = []
        self.redirects: list[str] = []

    def add_opaque(self, pattern: str) -> None:
        pattern = normalise(pattern)
        if pattern:
            self.append(pattern)
            self.opaque.append(pattern)


@lru_cache(maxsize=1)
def _parser() -> Parser:
    import tree_sitter_bash
    from tree_sitter import Language, Parser

    return Parser(Language(tree_sitter_bash.language()))


def normalise(text: str) -> str:
    """Collapse runs of whitespace to one space and trim: the shape of every pattern."""
    return _WS.sub(" ", text).strip()


def split_command_line(line: str) -> CommandLine:
    """Every simple command of `line` as a normalised permission pattern (see the module docstring)."""
    out = _Found()
    has_error = _split_into(line, out, 0)
    if not out and normalise(line):
        out.append(normalise(line))
    return CommandLine(tuple(dict.fromkeys(out)), has_error, tuple(dict.fromkeys(out.argv)),
                       tuple(dict.fromkeys(out.opaque)), tuple(dict.fromkeys(out.redirects)))


def command_patterns(line: str) -> list[str]:
    """The patterns the `bash` permission checks for `line`."""
    return list(split_command_line(line).commands)


def _split_into(line: str, out: _Found, depth: int) -> bool:
    data = line.encode("utf-8", "surrogateescape")
    tree = _parser().parse(data)
    root = tree.root_node
    has_error = bool(root.has_error)
    if has_error:
        out.add_opaque(line)
    _walk(root, data, out, depth)
    if "\\\n" in line:
        if depth < _MAX_DEPTH:
            has_error = _split_into(line.replace("\\\n", ""), out, depth + 1) or has_error
        else:
            out.add_opaque(line)  # too deep to follow: only a rule that matches any command decides
    return has_error


def _text(node: Node, data: bytes) -> str:
    return data[node.start_byte:node.end_byte].decode("utf-8", "replace")


def _word(node: Node, data: bytes) -> str:
    value = _static_value(node, data)
    return value if value is not None else _text(node, data)


def _walk(node: Node, data: bytes, out: _Found, depth: int) -> None:
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type == "command":
            _command(current, data, out, depth)
        elif current.type == "file_redirect":
            _redirect(current, data, out)
        elif current.type in _DECLARATIONS:
            words = [_word(c, data) for c in current.children if c.type not in _REDIRECTS]
            pattern = normalise(" ".join(w for w in words if w))
            if pattern:
                out.append(pattern)
            if any(w.startswith("-") and ("i" in w or "n" in w) for w in words[1:]):
                out.add_opaque(pattern)  # `declare -i x=V` evaluates V; `declare -n r=V` names V
        kind = current.type
        if kind == "expansion" or (kind == "heredoc_body" and _expanding_heredoc(current, data)):
            # tree-sitter-bash leaves some substitutions as plain text (`${x:-`cmd`}`, a backquote or a
            # tab-indented `$(cmd)` in a heredoc body); bash runs them, so they are found by hand here.
            for inner in _substitutions(_unparsed_text(current, data)):
                _split_static(inner, [inner], out, depth)
        if current.type in _EVALUATING and _evaluates_code(current, data):
            site = _text(current, data)
            out.add_opaque(site[:site.find("))") + 2] if current.type == "c_style_for_statement" else site)
        stack.extend(reversed(current.children))


def _redirect(node: Node, data: bytes, out: _Found) -> None:
    """Note a redirect's file (`> out`, `>> ~/x`, `< in`); `2>&1` and `>&-` name no file."""
    destination = node.child_by_field_name("destination")
    if destination is None:
        return
    target = _static_value(destination, data)
    operators = {c.type for c in node.children if c is not destination and c.type != "file_descriptor"}
    if target is None or (operators & {">&", "<&"} and (target.isdigit() or target == "-")):
        return
    out.redirects.append(target)


def _command(node: Node, data: bytes, out: _Found, depth: int) -> None:
    # tree-sitter-bash sometimes joins two lines into one command (`a | b | c<newline>rm x && d`
    # reads as `c rm x`); words of one simple command never have an unescaped newline between them,
    # so such a node is cut there and each piece is checked as its own command.
    segments: list[list[Node]] = [[]]
    previous: Node | None = None
    for child in node.children:
        if previous is not None and previous.type != "heredoc_redirect":
            gap = data[previous.end_byte:child.start_byte].replace(b"\\\n", b"")
            if b"\n" in gap:
                segments.append([])
        segments[-1].append(child)
        previous = child
    for segment in segments:
        _simple_command(segment, data, out, depth)


def _simple_command(children: list[Node], data: bytes, out: _Found, depth: int) -> None:
    assignments: list[str] = []
    words: list[str] = []
    static: list[str | None] = []
    for child in children:
        if child.type in _REDIRECTS:
            continue
        if child.type == "variable_assignment" and not words:
            assignments.append(_text(child, data))
            continue
        value = _static_value(child, data)
        static.append(value)
        words.append(_word(child, data) if value is None else value)
    if words:
        _add_command(words, static, out, depth, assignments)


def _add_command(
    words: list[str], static: list[str | None], out: _Found, depth: int, assignments: list[str] | None = None,
) -> None:
    """The one place a command becomes patterns, wherever it was found: on the line itself, after a
    wrapper (`sudo`, `env`, `xargs`, ...) or in a `find -exec`. (`bash -c` and `eval` strings are split
    anew and so come here too.) So every route gets the same checks: the words, the words with their
    prefix assignments, and a command named by a path also as its last component (`/bin/rm x`,
    `./rm x`, `bin/rm x` are also checked as `rm x`: a rule about `rm` applies to every rm)."""
    out.append(normalise(" ".join(words)))
    out.argv.append(tuple(static))
    if assignments:
        out.append(normalise(" ".join([*assignments, *words])))
    name = static[0]
    site = _runs_stored_code(name, static)
    if site is not None:
        out.add_opaque(site if site else " ".join(words))
    if name is not None and "/" in name.rstrip("/"):
        words = [name.rstrip("/").rsplit("/", 1)[-1], *words[1:]]
        static = [words[0], *static[1:]]
        out.append(normalise(" ".join(words)))
    _follow_inner(words, static, out, depth)


def _split_static(text: str | None, words: list[str], out: _Found, depth: int) -> None:
    """Check a command line carried as an argument; one that is not static is opaque."""
    if text is None or depth >= _MAX_DEPTH:
        out.add_opaque(" ".join(words))  # unknown, or nested too deep to follow: fail closed
    else:
        _split_into(text, out, depth + 1)


def _follow_inner(words: list[str], static: list[str | None], out: _Found, depth: int) -> None:
    """Also check what a nested shell, `eval`, a wrapper or a command-string option would run."""
    name = static[0]
    if name is None or _expands(name):
        out.add_opaque(" ".join(words))  # `$CMD x`, `/bin/r[m] x`: the command is only known when it runs
        return
    if depth >= _MAX_DEPTH:
        out.add_opaque(" ".join(words))  # wrappers nested too deep to follow: fail closed
        return
    base = name.rsplit("/", 1)[-1]
    if base in SHELLS:
        _follow_shell(words, static, out, depth)
        return
    if base in SOURCES:
        out.add_opaque(" ".join(words))
        return
    if base == "eval":
        if len(static) > 1:
            inner = None if any(w is None for w in static[1:]) else " ".join(w for w in static[1:] if w)
            _split_static(inner, words, out, depth)
        return
    if base == "find":
        _follow_find_exec(words, static, out, depth)
        return
    if base in COMMAND_STRING_C:
        for i, word in enumerate(static[1:], start=1):
            short_c = word is not None and word[:1] == "-" and word[1:2] != "-" and word.endswith("c")
            if (short_c or word == "--command") and i + 1 < len(static):
                _split_static(static[i + 1], words, out, depth)
            elif word is not None and word.startswith("--command="):
                _split_static(word.split("=", 1)[1], words, out, depth)
        return
    if base in ("mapfile", "readarray"):
        for i, word in enumerate(static[1:-1], start=1):
            if word == "-C":
                _split_static(static[i + 1], words, out, depth)  # the callback is run as a command
        return
    if base == "hash":  # `hash -p /bin/rm foo` makes `foo` run /bin/rm: check the path as a command
        for i, word in enumerate(static[1:-1], start=1):
            if word is not None and word.startswith("-") and word.endswith("p"):
                path = static[i + 1]
                if path is None:
                    out.add_opaque(" ".join(words))
                else:
                    _add_command([path], [path], out, depth + 1)
        return
    if base == "alias":
        for word in static[1:]:
            if word is not None and "=" in word:
                _split_static(word.split("=", 1)[1], words, out, depth)
        return
    if base == "trap":
        args = [w for w in static[1:] if w is None or not w.startswith("-")]
        if len(args) >= 2 and args[0] != "":
            _split_static(args[0], words, out, depth)
        return
    if base == "env":
        for i, word in enumerate(static[1:-1], start=1):
            if word in ("-S", "--split-string"):
                rest = static[i + 1:]
                inner = None if any(w is None for w in rest) else " ".join(w for w in rest if w is not None)
                _split_static(inner, words, out, depth)
                return
    if base == "flock":  # `flock FILE -c CMD` runs CMD in a shell
        for i, word in enumerate(static[1:-1], start=1):
            if word in ("-c", "--command"):
                _split_static(static[i + 1], words, out, depth)
    if base in WRAPPERS:
        starts = _wrapped_command_starts(base, static)
        for start in starts:
            if start < len(words):
                _add_command(words[start:], static[start:], out, depth + 1)
        if base == "xargs" and starts and starts[0] < len(static):
            replace = _xargs_replace_string(static)
            if replace and _templated(static[starts[0]:], replace):
                out.add_opaque(" ".join(words[starts[0]:]))  # the command itself comes from stdin


def _expanding_heredoc(body: Node, data: bytes) -> bool:
    """An unquoted heredoc delimiter (`<<EOF`, not `<<'EOF'` or `<<\\EOF`): its body is expanded."""
    parent = body.parent
    start = next((c for c in parent.children if c.type == "heredoc_start"), None) if parent else None
    return start is None or not any(q in _text(start, data) for q in "'\"\\")


def _unparsed_text(node: Node, data: bytes) -> str:
    """The parts of an expansion or heredoc body that the parser left as plain text (its `word` or
    `heredoc_content` pieces, and the gaps of a body with no children). What the parser did read is
    walked anyway; scanning it again would re-split every nested level (exponential work)."""
    if node.type == "expansion":
        return " ".join(_text(c, data) for c in node.children if c.type == "word")
    text = bytearray(data[node.start_byte:node.end_byte])
    for child in node.children:
        if child.type != "heredoc_content":
            start, end = child.start_byte - node.start_byte, child.end_byte - node.start_byte
            text[start:end] = b" " * (end - start)
    return text.decode("utf-8", "replace")


def _substitutions(text: str) -> list[str]:
    """The command lines inside `$(...)`, backquotes, `<(...)` and `>(...)` of `text`, found without the
    parser. Unbalanced ones run to the end of the text (which then fails to parse: opaque)."""
    found: list[str] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == "\\":
            i += 2
        elif ch == "`":
            j = i + 1
            while j < n and text[j] != "`":
                j += 2 if text[j] == "\\" else 1
            found.append(text[i + 1:j].replace("\\`", "`"))
            i = j + 1
        elif text.startswith(("$(", "<(", ">("), i):
            level, j = 1, i + 2
            while j < n and level:
                if text[j] == "\\":
                    j += 1
                elif text[j] == "(":
                    level += 1
                elif text[j] == ")":
                    level -= 1
                j += 1
            if text.startswith("$((", i) and level == 0 and text[j - 2] == ")":
                i += 3  # `$((...))` is arithmetic (its own `$(` are still found); `$((cmd) )` is not
                continue
            found.append(text[i + 2:j - 1] if level == 0 else text[i + 2:])
            i = j
        else:
            i += 1
    return [f for f in found if f.strip()]


# -- values that bash runs as code when they are expanded ----------------------------------------------
# Arithmetic evaluates the *values* of the variables it names, and an array subscript in such a value
# runs command substitutions: `x='a[$(rm y)]'; echo $((x))` runs rm, though no word of the line is
# `rm`. The same holds for `${x@P}`, `${!x}`, subscripts, `declare -i`/`-n`, `printf -v`/`read`/
# `test -v` with a subscripted name, `let`, `[[ a -eq b ]]`, and for variables a shell runs (PS4 under
# xtrace, BASH_ENV, exported `BASH_FUNC_name%%` functions). Such a site is opaque (its source text is one
# more pattern): the values may be built at run time, so the literal text cannot be checked instead.
_EVALUATING = frozenset({"arithmetic_expansion", "compound_statement", "c_style_for_statement", "expansion",
                         "variable_assignment", "test_command"})
_PLAIN_ARITHMETIC = re.compile(r"[\s\d+\-*/%()<>=!&|^~?:,;]*")
_CODE_VARIABLES = frozenset({"PS0", "PS1", "PS2", "PS3", "PS4", "PROMPT_COMMAND", "BASH_ENV", "ENV",
                             "SHELLOPTS", "BASHOPTS"})
_ARITHMETIC_TESTS = frozenset({"-eq", "-ne", "-lt", "-le", "-gt", "-ge"})
_NAME_TAKERS = frozenset({"printf", "read", "mapfile", "readarray", "unset", "test", "[", "getopts", "wait"})
_ALWAYS_NUMBERS = re.compile(r"\$[#?$!]|\$\{#\w+\}")  # `$#`, `$?`, `${#x}`: bash makes these numbers
_SUBSCRIPT = re.compile(r"\[([^\]]*)\]")


def _plain_arithmetic(text: str) -> bool:
    """Only numbers and operators: nothing whose value bash would evaluate in turn."""
    text = _ALWAYS_NUMBERS.sub("0", text)
    return bool(_PLAIN_ARITHMETIC.fullmatch(re.sub(r"0[xX][0-9a-fA-F]+", "0", text)))


def _code_variable(name: str) -> bool:
    return name in _CODE_VARIABLES or name.startswith("BASH_FUNC_")


def _evaluates_code(node: Node, data: bytes) -> bool:
    """Whether expanding `node` may run code held in a variable's value (see the comment above)."""
    text = _text(node, data)
    kind = node.type
    if kind == "arithmetic_expansion":
        return not _plain_arithmetic(text[3:-2] if text.startswith("$((") else text[2:-1])
    if kind == "compound_statement":
        return text.startswith("((") and not _plain_arithmetic(text[2:-2])
    if kind == "c_style_for_statement":
        head = text[text.find("((") + 2:text.find("))")]
        return not _plain_arithmetic(head)
    if kind == "expansion":
        inner = text[2:-1]
        if inner.startswith("!") and not re.fullmatch(r"!\w+(\[[@*]\]|[@*])", inner):
            return True
        if inner.endswith("@P"):
            return True
        name = re.match(r"[#!]?\w+", inner)
        rest = inner[name.end():] if name else inner
        subscript = _SUBSCRIPT.match(rest)
        if subscript:
            if subscript.group(1) not in ("@", "*") and not _plain_arithmetic(subscript.group(1)):
                return True
            rest = rest[subscript.end():]
        return rest.startswith(":") and rest[1:2] not in ("-", "=", "?", "+") and not _plain_arithmetic(rest)
    if kind == "variable_assignment":
        target = node.child_by_field_name("name")
        if target is None:
            return False
        if _code_variable(_text(target, data)):
            return True
        index = target.child_by_field_name("index") if target.type == "subscript" else None
        return index is not None and not _plain_arithmetic(_text(index, data))
    if kind == "test_command":
        return _test_evaluates(node, data)
    return False


def _test_evaluates(node: Node, data: bytes) -> bool:
    """`[[ a -eq b ]]` evaluates a and b as arithmetic; `[[ -v a[i] ]]` evaluates i."""
    stack = list(node.children)
    while stack:
        current = stack.pop()
        operators = [c for c in current.children if c.type == "test_operator"]
        operator = _text(operators[0], data) if operators else ""
        operands = [_text(c, data) for c in current.children if c not in operators]
        if current.type == "binary_expression" and operator in _ARITHMETIC_TESTS and any(
                not _plain_arithmetic(o) for o in operands):
            return True
        if current.type == "unary_expression" and operator == "-v" and any("[" in o for o in operands):
            return True
        stack.extend(current.children)
    return False


def _runs_stored_code(name: str | None, static: list[str | None]) -> str | None:
    """For commands that evaluate a value as code, the word that does it ("" for the whole command):
    `let`, a builtin given a subscripted variable name (`printf -v 'a[$(..)]'`, `read`, `test -v`),
    `env` given a code variable (`BASH_FUNC_f%%=...`). The word alone is the pattern, so an allow for
    the command (`printf *`) does not cover it. None when the command evaluates nothing."""
    if name is None:
        return None
    base = name.rsplit("/", 1)[-1]
    if base == "let":
        return ""
    args = static[1:]
    if base in _NAME_TAKERS:
        target = args.index("-v") + 1 if base == "printf" and "-v" in args else len(args)
        if target < len(args) and args[target] is None:
            return ""
        for word in args:
            match = _SUBSCRIPT.search(word) if word is not None else None
            if word is not None and match and match.group(1) not in ("@", "*") \
                    and not _plain_arithmetic(match.group(1)):
                return word
    if base == "env":
        return next((w for w in args if w is not None and "=" in w and _code_variable(w.split("=", 1)[0])),
                    None)
    return None


# A glob (`*`, `?`, `[...]`, extglob `@(...)`) or a brace expansion (`{a,b}`, `{a..b}`) in a command
# name: bash picks the program when it runs (`/bin/r[m] x` runs rm). A quoted one is literal, but the
# quoting is gone by the time a name reaches `_follow_inner`; treating it as opaque is only stricter.
_EXPANDING_NAME = re.compile(r"[*?]|\[.*\]|[@+!]\(|\{[^{}]*(,|\.\.)[^{}]*\}")


def _expands(name: str) -> bool:
    """Whether bash may turn the command name `name` into another word (or several) when it runs."""
    return bool(_EXPANDING_NAME.search(name))


def _follow_shell(words: list[str], static: list[str | None], out: _Found, depth: int) -> None:
    """`bash -c STRING` checks STRING; a shell that reads a script file or stdin is opaque."""
    has_c = False
    i = 1
    while i < len(static):
        word = static[i]
        if word is None:
            break
        if word == "--":
            i += 1
            break
        if word in ("-o", "+o", "-O", "+O"):
            i += 2
            continue
        if word.startswith("--"):
            i += 1
            continue
        if len(word) > 1 and word[0] in "-+":
            has_c = has_c or (word[0] == "-" and "c" in word[1:])
            i += 1
            continue
        break
    if has_c and i < len(static):
        _split_static(static[i], words, out, depth)
    elif not has_c:
        out.add_opaque(" ".join(words))


def _xargs_replace_string(static: list[str | None]) -> str | None:
    for i, word in enumerate(static[1:], start=1):
        if word is None:
            return None
        if word == "-I" and i + 1 < len(static):
            return static[i + 1]
        if word.startswith("-I") and len(word) > 2:
            return word[2:]
        if word in ("-i", "--replace"):
            return "{}"
        if word.startswith("--replace="):
            return word.split("=", 1)[1]
        if word.startswith("-i") and len(word) > 2:
            return word[2:]
        if not word.startswith("-"):
            return None
    return None


_FIND_EXEC = frozenset({"-exec", "-execdir", "-ok", "-okdir"})


def _follow_find_exec(words: list[str], static: list[str | None], out: _Found, depth: int) -> None:
    """`find . -exec rm {} ;` also checks `rm {}` (each -exec/-execdir/-ok/-okdir command)."""
    i = 1
    while i < len(static):
        if static[i] in _FIND_EXEC:
            end = i + 1
            while end < len(static) and static[end] not in (";", "+"):
                end += 1
            if end > i + 1:
                _add_command(words[i + 1:end], static[i + 1:end], out, depth + 1)
                if _templated(static[i + 1:end], "{}"):
                    out.add_opaque(" ".join(words[i + 1:end]))  # file names run as commands
            i = end
        i += 1


def _templated(command: list[str | None], token: str) -> bool:
    """Whether filling `token` in (xargs -I, find -exec) can change which command runs: it is in the
    command's name, or anywhere in a shell's or eval's arguments (`sh -c '{}'`)."""
    head = command[0] if command else None
    if head is None or token in head:
        return True
    base = head.rsplit("/", 1)[-1]
    return (base in SHELLS or base == "eval") and any(w is None or token in w for w in command[1:])


def _is_short_option_with_c(word: str) -> bool:
    return word.startswith("-") and not word.startswith("--") and "c" in word[1:]


def _wrapped_command_starts(base: str, static: list[str | None]) -> list[int]:
    """Where the command a wrapper runs may start: after the wrapper's own options, its `env`
    assignments and positional arguments. A long option without `=` may take the next word as its
    value (`sudo --user root rm x`), so the word after that is a start too: checking more is safe."""
    words = static[1:]
    values = _VALUE_OPTIONS.get(base, frozenset())
    starts: list[int] = []
    i = 0
    while i < len(words):
        word = words[i]
        if word is None:
            break
        if word == "--":
            i += 1
            break
        if base == "coproc" and word in ("{", "("):
            i += 1
            break
        if base == "coproc" and i + 1 < len(words) and words[i + 1] in ("{", "("):
            i += 2  # `coproc NAME { ...`
            break
        if word.startswith("-") and len(word) > 1:
            i += 1
            if word in values or (not word.startswith("--") and f"-{word[-1]}" in values):
                i += 1  # `-u root`, and a cluster ending in a value option (`sudo -iu root`)
            elif word.startswith("--") and "=" not in word and i < len(words):
                starts.append(i + 1 + 1)  # `--user root CMD`: CMD may start after the value
            continue
        if base == "env" and "=" in word and not word.startswith("="):
            i += 1
            continue
        break
    i += _POSITIONAL.get(base, 0)
    return [1 + i, *(s for s in starts if s > 1 + i)]


_ESCAPES_IN_DOUBLE = {'"', "\\", "$", "`", "\n"}


def _static_value(node: Node, data: bytes) -> str | None:
    """The literal value of a word when it has no expansion, else None."""
    kind = node.type
    if kind == "command_name":
        return _static_value(node.children[0], data) if node.child_count == 1 else None
    if kind in ("word", "number"):
        return _unescape_bare(_text(node, data))
    if kind == "raw_string":
        raw = _text(node, data)
        return raw[1:-1] if len(raw) >= 2 else None
    if kind == "ansi_c_string":
        return _decode_ansi_c(_text(node, data)[2:-1])
    if kind == "string":
        if any(child.type not in ('"', "string_content") for child in node.children):
            return None
        raw = _text(node, data)  # the whole text between the quotes: newlines are not in any child
        return _unescape_double(raw[1:-1]) if len(raw) >= 2 else None
    if kind == "concatenation":
        values = [_static_value(c, data) for c in node.children]
        if any(v is None for v in values):
            return None
        return "".join(v for v in values if v is not None)
    return None


_ANSI_SIMPLE = {"n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b",
                "f": "\f", "v": "\v", "\\": "\\", "'": "'", '"': '"', "?": "?"}
_ANSI_NUMERIC = re.compile(r"\\(x[0-9a-fA-F]{1,2}|[0-7]{1,3}|u[0-9a-fA-F]{1,4}|U[0-9a-fA-F]{1,8}|.)", re.S)


def _decode_ansi_c(body: str) -> str | None:
    """The value of `$'...'`, so `$'\\x72m'` is checked as `rm`; None for forms not handled."""

    def one(match: re.Match[str]) -> str:
        esc = match.group(1)
        if esc[0] in "xuU" and len(esc) > 1:
            return chr(int(esc[1:], 16))
        if esc[0] in "01234567":
            return chr(int(esc, 8))
        if esc in _ANSI_SIMPLE:
            return _ANSI_SIMPLE[esc]
        raise ValueError(esc)

    try:
        return _ANSI_NUMERIC.sub(one, body)
    except (ValueError, OverflowError):
        return None


def _unescape_bare(text: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "\\" and i + 1 < len(text):
            if text[i + 1] != "\n":
                out.append(text[i + 1])
            i += 2
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def _unescape_double(text: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "\\" and i + 1 < len(text) and text[i + 1] in _ESCAPES_IN_DOUBLE:
            if text[i + 1] != "\n":
                out.append(text[i + 1])
            i += 2
            continue
        out.append(ch)
        i += 1
    return "".join(out)


# How many leading words name "the command" for an `always` answer (`git commit *`, not `git *`).
_ARITY: dict[str, int] = {
    "git": 2, "npm": 2, "pnpm": 2, "yarn": 2, "bun": 2, "cargo": 2, "go": 2, "docker": 2, "kubectl": 2,
    "pip": 2, "pip3": 2, "uv": 2, "poetry": 2, "make": 2, "gh": 2, "brew": 2, "apt": 2, "apt-get": 2,
    "dotnet": 2, "deno": 2, "systemctl": 2, "terraform": 2, "helm": 2, "conda": 2, "mvn": 2, "gradle": 2,
}


def always_pattern(command: str) -> str:
    """The pattern an `always` answer allows for one command: its leading words plus ` *`."""
    words = command.split(" ")
    if not words or not words[0]:
        return command
    arity = _ARITY.get(words[0], 1)
    head = [w for w in words[:arity] if not w.startswith("-")] or words[:1]
    return " ".join(head) + " *"


def describe(line: str) -> dict[str, Any]:
    """A JSON-friendly view of a split, for `explain --call` style output."""
    result = split_command_line(line)
    return {"commands": list(result.commands), "parse_error": result.has_error}
