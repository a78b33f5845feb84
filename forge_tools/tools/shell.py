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
- **Options before a word** (`git -C . push origin main`): which option takes an argument is the
  program's own business, so the words after the options are also read as the program's next words
  (`git push origin main`), every way the options could be read (`option_readings`). These readings are
  not patterns (they would deny what an allow-list lets run); the gate asks a command the rules allow
  when one of its readings meets a narrower deny or ask written after that allow
  (`permission.calls.decide_pattern`).

**Understand, or ask (issue 9).** The splitter models a subset of bash completely; everything outside it
is *opaque*: its source text is one more pattern, listed in `CommandLine.opaque`, and the gate never
allows an opaque pattern when a deny or ask narrower than the catch-all could apply (it is asked; under
`"*": "deny"` it is denied; see `permission.calls.decide_pattern`). The subset (docs/bash-subset.md):

- words and their quoting (`'..'`, `".."`, `\\x`, `$'..'` with ASCII escapes), the operators `&&` `||` `;`
  `|` `&` and newlines, subshells and `{ }` groups, `if`/`while`/`until`/`for NAME in`/`case`, functions,
  `!`, plain redirects with a static target;
- `$NAME`, `${NAME}` and `${NAME op word}` with a literal word (`:-` `-` `:+` `+` `:?` `=` `#` `%` `/`
  `^` `,`, `:N:M` with numbers), `${#NAME}`, `${!NAME[@]}`; `$(..)`, backquotes (re-read as bash reads
  them, so `` `echo \\`rm x\\`` `` is `rm x`), `<(..)`, `>(..)`, each split and checked;
- here-documents whose delimiter is a plain word (whole-quoted or not) and whose end bash finds on the
  same line as the parser; arithmetic of numbers and operators only;
- `bash -c`/`sh -c`/`eval` with a static string, `alias`, `trap`, `hash -p`, and the wrappers of
  `shell_wrappers.GRAMMARS` read with their full option grammar.

Opaque, whatever the rest of the line: a dynamic or globbed command name (`$CMD x`, `/bin/r[m] x`); a
shell reading a file or stdin, `source`; `$"..."`; `$'..'` holding NUL, bytes above 0x7f, `\\u` beyond
ASCII or `\\cX`; any other `${..}` form (`${x@P}`, `${!x}`, `${x-'..'}` quotes, `${@:x}`, substitutions
inside); a substitution the parser left as text (`[[ =~ `..` ]]`, patterns, heredoc bodies); a
here-doc with a quote-removed delimiter (`E''OF`, `$'EOF'`); non-plain arithmetic; names of variables
that bash runs or that change what runs (`PS0-4`, `PROMPT_COMMAND`, `BASH_ENV`, `BASH_ALIASES`,
`BASH_CMDS`, `BASH_FUNC_*`, `SHELLOPTS`, `PATH`, `CDPATH`, `IFS`, `HOME`, `RANDOM`-style integer
specials ...) anywhere on the line, except reading them (`$HOME`); builtins that run strings
(`fc`, `history`, `enable`, `mapfile/readarray -C`, `compgen -C/-F/-W`, `complete -C/-F`, `bind -x`);
a wrapper option the grammar does not know; interpreters given inline code or stdin (`python -c`,
`perl -e`, `node -e`, `awk` with `system`/pipes/`print >`, `sed` with `e`/`w`, `git -c`, `find` with
`-exec`/`-delete`, `xargs` whose command comes from its input); any parse error.

Redirect targets are returned separately (`writes`, `dynamic_targets`) so the bash tool can check each
written file as an `edit` and a target known only at run time as opaque (tools/builtins/bash.py).

What no rule about command names can catch: programs that do the same thing by other means and are
not listed above (`make`, a script's contents, `mv`, `cp /dev/null`). A deny on `rm *` stops commands
named rm, not deleting files; the OS sandbox is the boundary for effects (README: What a deny
guarantees).
"""

from __future__ import annotations

import re
from functools import cache, lru_cache
from typing import TYPE_CHECKING, Any

from forge_tools.lazy_re import lazy
from forge_tools.named_tuple import NamedTuple
from forge_tools.tools.shell_wrappers import GRAMMARS, OPAQUE_WRAPPERS
from forge_tools.tools.shell_wrappers import parse as parse_wrapper

if TYPE_CHECKING:
    from tree_sitter import Node, Parser

SHELLS = frozenset({"bash", "sh", "zsh", "dash", "ksh", "fish", "mksh", "ash", "busybox sh", "rbash", "rzsh",
                    "tcsh", "csh", "yash", "posh", "ksh93", "lksh", "oksh", "pdksh"})
# Editors run commands they are given in many forms (`vim '+!cmd'`, `vim -es <<< '!cmd'`, `:!` from a
# script, an `ex` script on stdin), under many names: a call to one is always opaque (issue 18).
EDITORS = frozenset({"vi", "vim", "nvim", "ex", "view", "vimdiff", "rvim", "rview", "gvim", "gview", "evim",
                     "eview", "gvimdiff", "nvi", "elvis", "vile", "ed", "red", "emacs", "emacsclient", "nano",
                     "rnano", "pico", "joe", "mg", "jed", "kak", "hx", "micro"})
_EDITOR_NAME = lazy(r"(?:n?vim?|g?view|ex|vimdiff)(?:\.[\w-]+)?")  # vim.basic, vim.tiny, vi.nox ...
# Commands that run a file's contents in this shell: what they run cannot be seen here.
SOURCES = frozenset({"source", "."})
_DECLARATIONS = frozenset({"declaration_command", "unset_command"})
_REDIRECTS = frozenset({"file_redirect", "heredoc_redirect", "herestring_redirect"})
_MAX_DEPTH = 8  # nested `bash -c` / `eval` levels followed before giving up (fail closed: outer kept)
MAX_LINE = 1_048_576  # characters: a longer command line is one opaque pattern, not analysed (issue 31)
MAX_STARTS = 64  # later words checked as command starts after a wrapper whose options are not known

_WS = lazy(r"\s+")


class CommandLine(NamedTuple):
    """The result of splitting one command line."""

    commands: tuple[str, ...]  # every pattern to check, in source order, without duplicates
    has_error: bool  # the parser reported a syntax error (the whole line is among `commands`)
    argv: tuple[tuple[str | None, ...], ...] = ()  # each simple command's words; None = not static
    opaque: tuple[str, ...] = ()  # patterns (also in `commands`) whose real command is only known at run
    redirects: tuple[str, ...] = ()  # static file targets of redirects (`> out`, `< in`), for path checks
    writes: tuple[str, ...] = ()  # the static targets of redirects that write (`> out`, `>> x`, `<> y`)
    dynamic_targets: tuple[str, ...] = ()  # redirect targets known only at run time (`> $F`), as written
    texts: tuple[tuple[str, ...], ...] = ()  # each simple command's words as in `argv`, source text for None
    readings: tuple[tuple[str, tuple[str, ...]], ...] = ()  # (pattern, its words read past their options)


class _Found(list[str]):
    """Patterns found so far, plus each simple command's static words (for path checks)."""

    def __init__(self) -> None:
        super().__init__()
        self.argv: list[tuple[str | None, ...]] = []
        self.opaque: list[str] = []
        self.redirects: list[str] = []
        self.writes: list[str] = []
        self.dynamic_targets: list[str] = []
        self.texts: list[tuple[str, ...]] = []
        self.readings: dict[str, tuple[str, ...]] = {}
        self.enumerating = False  # inside an unknown wrapper that checks every later start

    def add_opaque(self, pattern: str) -> None:
        pattern = normalise(pattern)
        if pattern:
            self.append(pattern)
            self.opaque.append(pattern)


@lru_cache(maxsize=1)
def _parser() -> Parser:
    from tree_sitter import Parser

    from forge_tools.grammars import language

    return Parser(language("tree_sitter_bash"))


def normalise(text: str) -> str:
    """Collapse runs of whitespace to one space and trim: the shape of every pattern."""
    return _WS().sub(" ", text).strip()


def split_command_line(line: str) -> CommandLine:
    """Every simple command of `line` as a normalised permission pattern (see the module docstring)."""
    out = _Found()
    if len(line) > MAX_LINE:
        # Past the documented size the line is not analysed (deciding it must not take minutes): it is
        # one opaque pattern, asked, and denied under `"*": "deny"` (docs/bash-subset.md).
        whole = normalise(line)
        return CommandLine((whole,), False, (), (whole,))
    has_error = _split_into(line, out, 0)
    if not out and normalise(line):
        out.append(normalise(line))
    return CommandLine(tuple(dict.fromkeys(out)), has_error, tuple(dict.fromkeys(out.argv)),
                       tuple(dict.fromkeys(out.opaque)), tuple(dict.fromkeys(out.redirects)),
                       tuple(dict.fromkeys(out.writes)), tuple(dict.fromkeys(out.dynamic_targets)),
                       tuple(dict.fromkeys(out.texts)), tuple(out.readings.items()))


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
    _line_opacity(line, out)
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
            if any(w.startswith("-") and ("i" in w or "n" in w) for w in words[1:]) \
                    or _declaration_evaluates(current, data):
                out.add_opaque(pattern)  # `declare -i x=V` evaluates V; `declare -n r=V` names V
        site = _outside_subset(current, data)
        if site is not None:
            out.add_opaque(site)
        if current.type == "command_substitution" and _text(current, data).startswith("`"):
            # Inside backquotes bash removes the backslash of `\``, `\$` and `\\` before running the
            # text, so `` `echo \`rm x\`` `` runs rm: the text is split again as bash reads it.
            inner = re.sub(r"\\([`$\\])", r"\1", _text(current, data)[1:-1])
            if inner != _text(current, data)[1:-1]:
                _split_static(inner, [inner], out, depth)
        kind = current.type
        if kind == "heredoc_body" and _expanding_heredoc(current, data) \
                and _heredoc_arithmetic(current, data):
            out.add_opaque(_text(current, data))  # `$((x))`, `$[x]` in a body: x's value is evaluated
        if kind == "expansion" or (kind == "heredoc_body" and _expanding_heredoc(current, data)):
            # tree-sitter-bash leaves some substitutions as plain text (`${x:-`cmd`}`, a backquote or a
            # tab-indented `$(cmd)` in a heredoc body); bash runs them, so they are found by hand here.
            for inner in _substitutions(_unparsed_text(current, data)):
                _split_static(inner, [inner], out, depth)
        if current.type in _EVALUATING and _evaluates_code(current, data):
            site = _text(current, data)
            out.add_opaque(site[:site.find("))") + 2] if current.type == "c_style_for_statement" else site)
        stack.extend(reversed(current.children))


_HEREDOC_ARITHMETIC = lazy(r"\$\(\((.*?)\)\)|\$\[(.*?)\]", re.S)


def _heredoc_arithmetic(node: Node, data: bytes) -> bool:
    """An expanding here-document body holding arithmetic that names a variable (`$((x))`, `$[x]`)."""
    text = _text(node, data)
    return "$[" in text or any(not _plain_arithmetic(m.group(1) if m.group(1) is not None else m.group(2))
                               for m in _HEREDOC_ARITHMETIC().finditer(text))


def _declaration_evaluates(node: Node, data: bytes) -> bool:
    """`declare`/`typeset`/`local`/`export`/`readonly` evaluate what they are given: a subscript in a
    name (`declare 'a[$(cmd)]=1'`), a compound array value (`declare -a 'a=([$(cmd)]=1)'`), or a word
    known only at run time (`declare "$n=1"`: the name itself is built when it runs)."""
    for child in node.children[1:]:
        if child.type in _REDIRECTS:
            continue
        value = _static_value(child, data)
        if value is None:
            if child.type == "variable_assignment":
                continue  # `local x=$y`: walked as an assignment (its name and subscript are checked there)
            return True
        if value.startswith("-") or value.startswith("+"):
            continue
        name, eq, rest = value.partition("=")
        if "[" in name or (eq and rest.startswith("(")):
            return True
    return False


def _redirect(node: Node, data: bytes, out: _Found) -> None:
    """Note a redirect's file (`> out`, `>> ~/x`, `< in`); `2>&1` and `>&-` name no file."""
    destination = node.child_by_field_name("destination")
    if destination is None:
        return
    target = _static_value(destination, data)
    operators = {c.type for c in node.children if c is not destination and c.type != "file_descriptor"}
    if target is None or _GLOB().search(target):
        out.dynamic_targets.append(_text(destination, data))  # `> $F`, `> $(..)`, `> vic*`: known at run time
        return
    if operators & {">&", "<&"} and (target.isdigit() or target == "-"):
        return
    out.redirects.append(target)
    if operators - {"<", "<&"}:
        out.writes.append(target)


_GLOB = lazy(r"[*?\[]|[@+!]\(")  # bash expands a pattern in a redirect target to the one file


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
    for index, segment in enumerate(segments):
        _simple_command(segment, data, out, depth, cut=index > 0)


#: an unquoted word bash reads as an assignment when it starts a command (`NAME=`, `NAME+=`, `a[i]=`)
_ASSIGNMENT_WORD = lazy(r"[A-Za-z_][A-Za-z0-9_]*(?:\[[^\]]*\])?\+?=")


def _simple_command(children: list[Node], data: bytes, out: _Found, depth: int, cut: bool = False) -> None:
    """One simple command's patterns. `cut`: the command starts where `_command` cut a joined node, so
    the parser read its words as arguments: a leading unquoted `NAME=value` there is an assignment to
    bash (`ls<newline>FOO=1 rm x` runs `rm x`), as the parser would have said of a command of its own."""
    assignments: list[str] = []
    words: list[str] = []
    static: list[str | None] = []
    for child in children:
        if child.type in _REDIRECTS:
            continue
        if not words and (child.type == "variable_assignment" or (
                cut and child.type == "word" and _ASSIGNMENT_WORD().match(_text(child, data)))):
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
    _add_pattern(words, static, out)
    out.argv.append(tuple(static))
    out.texts.append(tuple(words))
    if assignments:
        out.append(normalise(" ".join([*assignments, *words])))
    name = static[0]
    site = _runs_stored_code(name, static)
    if site is not None:
        out.add_opaque(site if site else " ".join(words))
    if name is not None and "/" in name.rstrip("/"):
        words = [name.rstrip("/").rsplit("/", 1)[-1], *words[1:]]
        static = [words[0], *static[1:]]
        _add_pattern(words, static, out)
    _follow_inner(words, static, out, depth)


def _add_pattern(words: list[str], static: list[str | None], out: _Found) -> None:
    """One command's words as a pattern, with its readings past its options (`option_readings`)."""
    pattern = normalise(" ".join(words))
    out.append(pattern)
    readings = option_readings(static)
    if readings:
        known = out.readings.get(pattern, ())
        out.readings[pattern] = tuple(dict.fromkeys([*known, *readings]))


MAX_READINGS = 32  # readings of one command past its options; more are not needed to find a named word


def option_readings(static: list[str | None]) -> tuple[str, ...]:
    """The command's words read past the options before its words (`git -C . push x` -> `git push x`).

    Whether an option takes the next word as its value is known only to the program, so both are
    tried: after an option without `=`, the next plain word is either the option's value or the
    program's next word. Options are read off at the start and again after each word so read (`git
    remote -v add x` -> `git remote add x`), `--` ends them. Only static words are read; a reading that
    drops nothing is not one. At most `MAX_READINGS` (breadth first: the first words' readings come
    first)."""
    if len(static) < 2 or any(w is None for w in static):
        return ()
    words = [w for w in static if w is not None]
    if not any(w.startswith("-") for w in words[1:]):
        return ()  # no option anywhere: every reading is the command itself
    from collections import deque

    whole = " ".join(words)
    found: list[str] = []
    # (the words kept so far as a linked list, last first: (word, rest) ... None; the next word's index):
    # extending a reading shares its words instead of copying them (linear in the command's length)
    todo: deque[tuple[tuple[str, Any] | None, int]] = deque([((words[0], None), 1)])
    while todo and len(found) < MAX_READINGS:
        kept, i = todo.popleft()
        if i >= len(words):
            continue
        starts = _word_starts(words, i)
        for start in starts:
            if start >= len(words):
                continue
            reading = (words[start], kept)
            if start > i:  # options were dropped before this word
                text = " ".join([*_kept_words(reading), *words[start + 1:]])
                if text != whole and text not in found:
                    found.append(text)
            todo.append((reading, start + 1))
    return tuple(found[:MAX_READINGS])


def _kept_words(kept: tuple[str, Any] | None) -> list[str]:
    """The words of an `option_readings` linked list, first first."""
    out: list[str] = []
    while kept is not None:
        out.append(kept[0])
        kept = kept[1]
    out.reverse()
    return out


def _word_starts(words: list[str], i: int) -> list[int]:
    """Where the next word after the options from `words[i]` on may be: the first word that is not an
    option, and each word that follows an option without `=` (the option may take no value)."""
    starts: list[int] = []
    while i < len(words):
        word = words[i]
        if word == "--":
            starts.append(i + 1)
            break
        if not word.startswith("-") or word == "-":
            starts.append(i)
            break
        if "=" not in word and i + 1 < len(words) and not words[i + 1].startswith("-"):
            starts.append(i + 1)  # the option takes no value: words[i + 1] is the next word
            i += 2  # ... or it takes words[i + 1] as its value
            continue
        i += 1
    return starts


def _split_static(text: str | None, words: list[str], out: _Found, depth: int) -> None:
    """Check a command line carried as an argument; one that is not static is opaque."""
    if text is None or depth >= _MAX_DEPTH:
        out.add_opaque(" ".join(words))  # unknown, or nested too deep to follow: fail closed
    else:
        _split_into(text, out, depth + 1)


def _follow_inner(words: list[str], static: list[str | None], out: _Found, depth: int) -> None:
    """Also check what a nested shell, `eval`, a wrapper or a command-string option would run; a
    command outside the understood subset (see the module docstring) is opaque."""
    name = static[0]
    whole = " ".join(words)
    if name is None or _expands(name):
        out.add_opaque(whole)  # `$CMD x`, `/bin/r[m] x`: the command is only known when it runs
        return
    if depth >= _MAX_DEPTH:
        out.add_opaque(whole)  # wrappers nested too deep to follow: fail closed
        return
    base = name.rsplit("/", 1)[-1]
    if base in SHELLS:
        _follow_shell(words, static, out, depth)
    elif base in SOURCES or base in STRING_RUNNERS or base in EDITORS or _EDITOR_NAME().fullmatch(base):
        out.add_opaque(whole)
    elif base in OPAQUE_WRAPPERS:
        _every_start(words, static, out, depth)
    elif base == "eval":
        args = static[1:]
        if args[:1] == ["--"]:
            args = args[1:]
        if args:
            inner = None if any(w is None for w in args) else " ".join(w for w in args if w)
            _split_static(inner, words, out, depth)
    elif base == "find":
        _follow_find_exec(words, static, out, depth)
    elif base in ("mapfile", "readarray", "compgen", "complete", "bind"):
        if _runs_option(base, static):
            out.add_opaque(whole)  # `mapfile -C CB`, `compgen -W '$(..)'`, `complete -C CMD`, `bind -x`
            for i, word in enumerate(static[1:], start=1):  # and what it names is checked as well
                if word is not None and word.startswith("-") and word[-1:] in "CFx" and i + 1 < len(static):
                    _split_static(static[i + 1], words, out, depth)
                elif word is not None and word.startswith("-C") and len(word) > 2:
                    _split_static(word[2:], words, out, depth)
    elif base == "hash":  # `hash -p /bin/rm foo` makes `foo` run /bin/rm: check the path as a command
        _follow_hash(words, static, out, depth)
    elif base == "alias":
        for word in static[1:]:
            if word is None:
                out.add_opaque(whole)
            elif "=" in word:
                _split_static(word.split("=", 1)[1], words, out, depth)
    elif base == "trap":
        args = [w for w in static[1:] if w is None or not w.startswith("-")]
        if len(args) >= 2 and args[0] != "":
            _split_static(args[0], words, out, depth)
    elif base in INTERPRETERS or base.rstrip("0123456789.") in INTERPRETERS:
        if _inline_code(base.rstrip("0123456789.") if base not in INTERPRETERS else base, static):
            out.add_opaque(whole)  # `python -c ..`, `awk '{system(..)}'`, `sed e`, `git -c alias.x=!..`
    elif base in GRAMMARS:
        _follow_wrapper(base, words, static, out, depth)
    elif base == "coproc":
        starts = _coproc_start(static)
        if starts < len(words):
            _add_command(words[starts:], static[starts:], out, depth + 1)


def _follow_wrapper(base: str, words: list[str], static: list[str | None], out: _Found, depth: int) -> None:
    """A wrapper from `shell_wrappers.GRAMMARS`: check the command it runs, or fail closed."""
    whole = " ".join(words)
    parsed = parse_wrapper(base, static)
    if base in ("su", "runuser") and parsed is not None and parsed.start < len(static) \
            and "u" not in parsed.options and "user" not in parsed.options:
        rest = parse_wrapper(base, [static[0], *static[parsed.start + 1:]])  # options after the user
        if rest is None or rest.start < len(static) - parsed.start:
            out.add_opaque(whole)  # arguments passed on to the user's shell
            return
        for key, values in rest.options.items():
            parsed.options.setdefault(key, []).extend(values)
        parsed.start = len(static)
    if parsed is None:
        _every_start(words, static, out, depth)  # an unknown option, or one only known at run time
        return
    options = parsed.options
    start = parsed.start
    strings = [v for key in ("c", "command", "session-command") for v in options.get(key, ())]
    if base == "flock" and start + 1 < len(static) and static[start] in ("-c", "--command"):
        strings.append(static[start + 1] or "")
        start = len(static)
        if words[start - 1:] and static[-1] is None:
            out.add_opaque(whole)
    if base in ("su", "runuser", "script", "flock") and strings:
        for text in strings:
            _split_static(text, words, out, depth)
        if base != "flock" or start >= len(static):
            if any(v.rsplit("/", 1)[-1] not in SHELLS for k in ("s", "shell") for v in options.get(k, ())):
                out.add_opaque(whole)  # `su -s /bin/rm`: the "shell" is any program
            return
    if base in ("su", "runuser") and start >= len(static):
        out.add_opaque(whole)  # no -c: a shell reading its stdin
        return
    if base == "script" or (base in ("sudo", "time") and ({"e", "edit", "o", "output"} & options.keys())):
        out.add_opaque(whole)  # a shell without -c, sudoedit, `time -o FILE` writing a file
        return
    if base == "env" and ("S" in options or "split-string" in options):
        text = " ".join([*options.get("S", ()), *options.get("split-string", ()),
                         *(w or "" for w in static[start:])])
        _split_static(None if any(w is None for w in static[start:]) or re.search(r"[\\$]", text)
                      else text, words, out, depth)  # env -S has its own escapes and ${VAR}
        return
    if base == "command" and ({"v", "V"} & options.keys()):
        return  # `command -v rm` only prints where rm is
    if start >= len(words):
        shell = base == "sudo" and bool({"s", "i", "shell", "login"} & options.keys())
        if GRAMMARS[base].command_required or shell:
            out.add_opaque(whole)  # without a command: a shell, or something this cannot see
        return
    if base == "watch" and "x" not in options and "exec" not in options:
        command = static[start:]  # `watch CMD ARGS` runs `sh -c "CMD ARGS"`
        _split_static(None if any(w is None for w in command) else " ".join(w or "" for w in command),
                      words, out, depth)
        return
    if base == "sudo" and {"s", "i", "shell", "login"} & options.keys():
        command = static[start:]  # `sudo -s CMD ARGS` runs them through the shell's -c
        _split_static(None if any(w is None for w in command) else " ".join(w or "" for w in command),
                      words, out, depth)
    _add_command(words[start:], static[start:], out, depth + 1)
    if base == "xargs":
        replace = next((v or "{}" for k in ("I", "i", "replace") for v in options.get(k, ())), None)
        if replace and _templated(static[start:], replace):
            out.add_opaque(" ".join(words[start:]))  # the command itself comes from stdin


def _every_start(words: list[str], static: list[str | None], out: _Found, depth: int) -> None:
    """A wrapper whose options are not understood: opaque, and each later plain word (up to
    `MAX_STARTS` of them) is also checked as where the command may start (`strace -o log rm x` also
    checks `rm x`), which is only stricter. Inside that region no wrapper enumerates starts again: every
    later start is already one of this one's, so the work grows with the line, not with its square or
    cube (issue 22: `strace` x200 took minutes)."""
    out.add_opaque(" ".join(words))
    if out.enumerating:
        return  # an enclosing unknown wrapper already checks every later start
    out.enumerating = True
    try:
        checked = 0
        for start in range(1, len(static)):
            word = static[start]
            if word is not None and not word.startswith("-") \
                    and (start == 1 or static[start - 1] is not None):
                if checked >= MAX_STARTS:
                    break  # the whole is opaque (asked, denied under "*": "deny"): enough for the rest
                checked += 1
                _add_command(words[start:], static[start:], out, depth + 1)
    finally:
        out.enumerating = False


def _coproc_start(static: list[str | None]) -> int:
    """Where `coproc [NAME] CMD` / `coproc [NAME] { ...` puts its command."""
    if len(static) > 1 and static[1] in ("{", "("):
        return 2
    if len(static) > 2 and static[2] in ("{", "("):
        return 3
    return 1


def _follow_hash(words: list[str], static: list[str | None], out: _Found, depth: int) -> None:
    for i, word in enumerate(static[1:], start=1):
        if word is None:
            out.add_opaque(" ".join(words))
        elif word.startswith("-") and "p" in word:
            attached = word[word.index("p") + 1:]
            path = attached or (static[i + 1] if i + 1 < len(static) else None)
            if path is None:
                out.add_opaque(" ".join(words))
            else:
                _add_command([path], [path], out, depth + 1)


# Builtins that run a string, or history, as commands: what they run is not on the line.
STRING_RUNNERS = frozenset({"fc", "history", "enable", "source", "."})
_RUNS_OPTION = {"mapfile": "C", "readarray": "C", "compgen": "CFW", "complete": "CF", "bind": "x"}


def _runs_option(base: str, static: list[str | None]) -> bool:
    letters = _RUNS_OPTION[base]
    for word in static[1:]:
        if word is None:
            return True
        if word == "--":
            return False
        if word.startswith("-") and any(letter in word[1:] for letter in letters):
            return True
    return False


# Programs that take code on the command line (or read it from stdin): a rule about command names
# cannot see what that code does, so such a call is opaque. The value is the options that carry code.
INTERPRETERS: dict[str, frozenset[str]] = {
    "python": frozenset({"-c"}), "pypy": frozenset({"-c"}), "perl": frozenset({"-e", "-E"}),
    "ruby": frozenset({"-e"}), "node": frozenset({"-e", "-p", "--eval", "--print"}),
    "nodejs": frozenset({"-e", "-p", "--eval", "--print"}), "deno": frozenset({"eval"}),
    "bun": frozenset({"-e", "--eval", "-p", "--print"}), "php": frozenset({"-r"}), "lua": frozenset({"-e"}),
    "luajit": frozenset({"-e"}), "Rscript": frozenset({"-e"}), "osascript": frozenset({"-e"}),
    "tclsh": frozenset(), "expect": frozenset({"-c"}), "jq": frozenset(),
    "awk": frozenset(), "gawk": frozenset(), "mawk": frozenset(), "nawk": frozenset(), "sed": frozenset(),
    "gsed": frozenset(), "git": frozenset({"-c", "--config-env"}), "make": frozenset({"--eval"}),
    "wish": frozenset(),
}
# awk runs commands with system(), pipes (`print | "cmd"`, `"cmd" | getline`) and writes files with
# `print > "f"`; a comparison `$2 > 1` outside print is not an effect.
_AWK_EFFECTS = lazy(r"system|\||getline|\bprintf?\b[^;{}]*>")


def _sed_runs(script: str) -> bool:
    """Whether a sed script may run a command or write a file: the `e` command, the `w`/`W` commands,
    or an `s` command with the `e` or `w` flag. Anything this reader cannot follow counts as yes."""
    i, n = 0, len(script)
    while i < n:
        while i < n and script[i] in " \t\n;{}!0123456789,$~+":
            i += 1
        if i < n and script[i] in "/\\":  # an address /re/ or \cREc
            delimiter = script[i] if script[i] == "/" else script[i + 1:i + 2]
            i += 1 if script[i] == "/" else 2
            while i < n and script[i] != delimiter:
                i += 2 if script[i] == "\\" else 1
            i += 1
            if i < n and script[i] in "IM":
                i += 1
            continue
        if i >= n:
            return False
        command = script[i]
        if command in "ewW":
            return True
        if command in "sy":
            if i + 1 >= n:
                return True
            delimiter = script[i + 1]
            i += 2
            for _ in range(2):
                while i < n and script[i] != delimiter:
                    i += 2 if script[i] == "\\" else 1
                i += 1
            flags = re.match(r"[gpiImM0-9]*", script[i:])
            i += flags.end() if flags else 0
            if command == "s" and i < n and script[i] in "ew":
                return True
            continue
        if command in "aicrRbtTq:lLQvz=dDgGhHnNpPxF#":
            if command in "aicrRbtT:#":  # the rest of the line is text, a label or a file name
                end = script.find("\n", i)
                i = n if end < 0 else end + 1
            else:
                i += 1
            continue
        return True  # a command this reader does not know
    return False


# The options of each interpreter that carry no code (issue 18: "an unknown option of a code-running
# program is opaque"): letters that are flags, letters that take a value, long options. Any other
# option, no script (the code comes from stdin), or a script that is a stream (`/dev/stdin`,
# `/proc/self/fd/0`, `/dev/fd/3`, `-`) makes the call opaque.
class _Options(NamedTuple):
    flags: str = ""
    values: str = ""
    long: frozenset[str] = frozenset({"--version", "--help"})


_INTERPRETER_OPTIONS: dict[str, _Options] = {
    "python": _Options("BbdEIOqsSuvVxhP", "WX"), "pypy": _Options("BbdEIOqsSuvVxhP", "WX"),
    "perl": _Options("wWXTtlanpcsv", ""), "ruby": _Options("wWvdl", ""),
    "node": _Options("vh", ""), "nodejs": _Options("vh", ""), "bun": _Options("vh", ""),
    "php": _Options("lvhn", ""), "lua": _Options("v", ""), "luajit": _Options("v", ""),
    "Rscript": _Options("", ""), "osascript": _Options("", ""), "tclsh": _Options("", ""),
    "wish": _Options("", ""), "expect": _Options("dv", ""),
}
# `python -m MODULE`: modules that run files or fixed tasks, not code given on the line or on stdin
# (`-m code`, `-m timeit`, `-m pdb`, `-m cProfile -c`, ... are opaque).
_PYTHON_MODULES = frozenset({"pytest", "unittest", "pip", "venv", "mypy", "ruff", "black", "isort", "flake8",
                             "pylint", "coverage", "build", "twine", "json.tool", "py_compile", "compileall",
                             "ensurepip", "tox", "nox", "pyright", "poetry", "hatch", "pdm", "mkdocs",
                             "sphinx",
                             "tabnanny", "pyclbr", "pydoc", "site", "sysconfig", "calendar", "uuid"})
_STREAM = lazy(r"-|/dev/(?:stdin|fd/\d+|tty)|/proc/(?:self|thread-self|\d+)/fd/\d+|/dev/.*|/proc/.*")


def _interpreter_code(base: str, words: list[str]) -> bool:
    """Whether interpreter `base` runs code other than a script file named on the line."""
    grammar = _INTERPRETER_OPTIONS[base]
    i = 0
    while i < len(words):
        word = words[i]
        if word in ("--version", "--help", "-h", "-V", "-v", "-VV") and base not in ("perl",):
            return False  # prints and exits
        if word == "--":
            i += 1
            break
        if not word.startswith("-") or word == "-":
            break
        if word.startswith("--"):
            return word not in grammar.long
        if base in ("python", "pypy") and word.startswith("-m"):
            module = word[2:] or (words[i + 1] if i + 1 < len(words) else "")
            return module not in _PYTHON_MODULES
        j = 1
        while j < len(word):
            letter = word[j]
            if letter in grammar.values:
                if j + 1 == len(word):
                    i += 1
                break
            if letter not in grammar.flags:
                return True  # `-c`, `-e`, `-i`, `-x`, `-M...`, `-d`, `-r`: code, stdin or a debugger
            j += 1
        i += 1
    if i >= len(words):
        return True  # no script: the code comes from stdin
    return bool(_STREAM().fullmatch(words[i]))


def _awk_code(words: list[str]) -> bool:
    """awk with options other than `-F`/`-v`, a program file, or a program with effects."""
    i = 0
    while i < len(words):
        word = words[i]
        if word == "--":
            i += 1
            break
        if not word.startswith("-") or word == "-":
            break
        if word in ("-F", "-v"):
            i += 2
            continue
        if word.startswith(("-F", "-v")) and len(word) > 2:
            i += 1
            continue
        return True  # -f FILE, -W exec, -E, -i, -l, --exec, ...: code from elsewhere
    if i >= len(words):
        return True
    return bool(_AWK_EFFECTS().search(words[i]))


def _sed_code(words: list[str]) -> bool:
    """sed whose scripts (every -e/--expression, glued or not, else the first operand) may run or write."""
    scripts: list[str] = []
    i = 0
    operands: list[str] = []
    while i < len(words):
        word = words[i]
        i += 1
        if word == "--":
            operands += words[i:]
            break
        if not word.startswith("-") or word == "-":
            operands.append(word)
            continue
        if word.startswith("--"):
            name, eq, value = word[2:].partition("=")
            if len(name) >= 2 and "expression".startswith(name):
                if eq:
                    scripts.append(value)
                elif i < len(words):
                    scripts.append(words[i])
                    i += 1
                else:
                    return True
            elif name in ("line-length", "l") and not eq:
                i += 1
            elif name not in ("quiet", "silent", "debug", "posix", "regexp-extended", "separate", "sandbox",
                              "unbuffered", "null-data", "zero-terminated", "in-place", "follow-symlinks",
                              "line-length", "help", "version"):
                return True  # --file=SCRIPT and anything unknown
            continue
        j = 1
        while j < len(word):
            letter = word[j]
            if letter in "nErsuz":
                j += 1
                continue
            if letter == "i":
                break  # `-i[SUFFIX]`: the rest is the suffix
            if letter in "el":
                value = word[j + 1:]
                if not value:
                    if i >= len(words):
                        return True
                    value = words[i]
                    i += 1
                if letter == "e":
                    scripts.append(value)
                break
            return True  # -f FILE, unknown letters
    if not scripts:
        if not operands:
            return True
        scripts = operands[:1]
    return any(_sed_runs(w) for w in scripts)


# git's own options (before the subcommand): those that take a value, those that carry code or config.
_GIT_VALUES = frozenset({"-C", "--git-dir", "--work-tree", "--namespace", "--super-prefix", "--list-cmds",
                         "--attr-source"})
_GIT_FLAGS = frozenset({"-p", "-P", "--paginate", "--no-pager", "--bare", "--no-replace-objects",
                        "--literal-pathspecs", "--glob-pathspecs", "--noglob-pathspecs", "--icase-pathspecs",
                        "--no-optional-locks", "--no-advice", "--version", "-v", "--help", "-h",
                        "--html-path",
                        "--man-path", "--info-path", "--no-lazy-fetch"})
# Subcommands that run a command they are given, or write config that later runs one.
_GIT_RUNS = {"rebase": ("-x", "--exec"), "bisect": ("run",), "difftool": ("-x", "--extcmd", "-t", "--tool"),
             "mergetool": ("-t", "--tool"), "filter-branch": ("",), "submodule": ("foreach",),
             "config": ("",), "var": ("",), "archive": ("--exec", "--remote"), "daemon": ("",),
             "instaweb": ("",), "send-email": ("",), "credential": ("",), "fsck": ("",), "p4": ("",),
             "svn": ("",), "cvsserver": ("",), "shell": ("",)}


def _git_code(words: list[str]) -> bool:
    i = 0
    while i < len(words):
        word = words[i]
        name = word.split("=", 1)[0]
        if name in _GIT_VALUES:
            i += 1 if "=" in word else 2
            continue
        if word.startswith("-C") and len(word) > 2:
            i += 1
            continue
        if word in _GIT_FLAGS:
            i += 1
            continue
        if word.startswith("-"):
            return True  # -c, --config-env, --exec-path and anything unknown
        break
    rest = words[i + 1:]
    if any(w.startswith(("--upload-pack", "--receive-pack", "--exec", "--extcmd")) or w in ("-u",)
           for w in rest):
        return True
    if i < len(words) and words[i] in _GIT_RUNS:
        triggers = _GIT_RUNS[words[i]]
        if triggers == ("",):
            if words[i] == "config":
                reading = {"--get", "--get-all", "--get-regexp", "-l", "--list", "--show-origin", "get",
                           "list"}
                return not (set(rest) & reading)
            return True
        return any(w.split("=", 1)[0] in triggers or any(w.startswith(t) and len(t) == 2 for t in triggers
                                                         if t.startswith("-")) for w in rest)
    return False


def _inline_code(base: str, static: list[str | None]) -> bool:
    """Whether `base` is given code to run (see INTERPRETERS); unknown words count as code."""
    args = static[1:]
    if any(w is None for w in args):
        return True
    words = [w for w in args if w is not None]
    if base in ("awk", "gawk", "mawk", "nawk", "busybox awk"):
        return _awk_code(words)
    if base in ("sed", "gsed"):
        return _sed_code(words)
    if base == "git":
        return _git_code(words)
    if base == "jq":
        return False
    if base in _INTERPRETER_OPTIONS:
        return _interpreter_code(base, words)
    options = INTERPRETERS[base]
    return any(w in options or any(w.startswith(o) for o in options) for w in words)


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
_PLAIN_ARITHMETIC = lazy(r"[\s\d+\-*/%()<>=!&|^~?:,;]*")
_CODE_VARIABLES = frozenset({"PS0", "PS1", "PS2", "PS3", "PS4", "PROMPT_COMMAND", "BASH_ENV", "ENV",
                             "SHELLOPTS", "BASHOPTS"})
_ARITHMETIC_TESTS = frozenset({"-eq", "-ne", "-lt", "-le", "-gt", "-ge"})
_NAME_TAKERS = frozenset({"printf", "read", "mapfile", "readarray", "unset", "test", "[", "getopts", "wait"})
_ALWAYS_NUMBERS = lazy(r"\$[#?$!]|\$\{#\w+\}")  # `$#`, `$?`, `${#x}`: bash makes these numbers
_SUBSCRIPT = lazy(r"\[([^\]]*)\]")


def _plain_arithmetic(text: str) -> bool:
    """Only numbers and operators: nothing whose value bash would evaluate in turn."""
    text = _ALWAYS_NUMBERS().sub("0", text)
    return bool(_PLAIN_ARITHMETIC().fullmatch(re.sub(r"0[xX][0-9a-fA-F]+", "0", text)))


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
        subscript = _SUBSCRIPT().match(rest)
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
        if index is not None and not _plain_arithmetic(_text(index, data)):
            return True
        value = node.child_by_field_name("value")
        if value is not None and value.type == "array":  # `a=([x]=1)`: each subscript is evaluated
            return any(not _plain_arithmetic(m.group(1)) for m in _SUBSCRIPT().finditer(_text(value, data)))
        return False
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
            match = _SUBSCRIPT().search(word) if word is not None else None
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
_EXPANDING_NAME = lazy(r"[*?]|\[.*\]|[@+!]\(|\{[^{}]*(,|\.\.)[^{}]*\}")


def _expands(name: str) -> bool:
    """Whether bash may turn the command name `name` into another word (or several) when it runs."""
    return bool(_EXPANDING_NAME().search(name))


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


_FIND_EXEC = frozenset({"-exec", "-execdir", "-ok", "-okdir"})
_FIND_EFFECTS = frozenset({"-delete", "-fprint", "-fprint0", "-fprintf", "-fls"})


def _follow_find_exec(words: list[str], static: list[str | None], out: _Found, depth: int) -> None:
    """`find . -exec rm {} ;` also checks `rm {}` (each -exec/-execdir/-ok/-okdir command); find with
    an action that deletes, runs or writes files is opaque too (a rule on `rm` does not see it)."""
    if any(w is None or w in _FIND_EFFECTS or w in _FIND_EXEC for w in static[1:]):
        out.add_opaque(" ".join(words))
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
_ANSI_NUMERIC = lazy(r"\\(x[0-9a-fA-F]{1,2}|[0-7]{1,3}|u[0-9a-fA-F]{1,4}|U[0-9a-fA-F]{1,8}|.)", re.S)


def _decode_ansi_c(body: str) -> str | None:
    """The value of `$'...'`, so `$'\\x72m'` is checked as `rm`; None (opaque) for forms whose runtime
    value is not certain: NUL (bash ends the word there), bytes above 0x7f, `\\u`/`\\U` beyond ASCII
    (locale-dependent), `\\cX` and unknown escapes."""

    def one(match: re.Match[str]) -> str:
        esc = match.group(1)
        code = int(esc[1:], 16) if esc[0] in "xuU" and len(esc) > 1 else \
            int(esc, 8) if esc[0] in "01234567" else None
        if code is not None:
            if not 0 < code < 0x80:
                raise ValueError(esc)  # bash cuts the word at NUL; bytes and \u depend on the locale
            return chr(code)
        if esc in _ANSI_SIMPLE:
            return _ANSI_SIMPLE[esc]
        raise ValueError(esc)

    try:
        return _ANSI_NUMERIC().sub(one, body)
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


@cache
def _arity() -> dict[str, int]:
    """opencode 1.18.33's command-prefix table (`forge_tools/data/opencode_arity.json`, with a note
    of where it was observed): how many leading words name "the command" for an `always` answer."""
    import json
    from pathlib import Path

    # beside the package, as the other shipped data files are read (importlib.resources costs more
    # than the table itself on every bash decision: zipfile, tempfile, ...; `forge-tools hook`)
    text = (Path(__file__).resolve().parents[1] / "data" / "opencode_arity.json").read_text(encoding="utf-8")
    prefixes: dict[str, int] = json.loads(text)["prefixes"]
    return prefixes


@cache
def _arity_words() -> int:
    """The most words of an entry of the arity table."""
    return max((len(key.split(" ")) for key in _arity()), default=1)


def always_pattern(command: str) -> str:
    """The pattern an `always` answer allows for one command, as opencode 1.18.33 makes it: the
    longest leading run of its words that the arity table lists gives how many words to keep
    (`npm run dev --port 3` -> `npm run dev *`, `git -C . push` -> `git -C *`); a command the table
    does not list keeps its first word. Then ` *`."""
    words = command.split(" ")
    if not words or not words[0]:
        return command
    table = _arity()
    keep = 1
    # only runs as long as the table's longest entry can be listed (a 100k-word line is not joined
    # 100k times)
    for n in range(min(len(words), _arity_words()), 0, -1):
        found = table.get(" ".join(words[:n]))
        if found is not None:
            keep = found
            break
    return " ".join(words[:keep]) + " *"


def describe(line: str) -> dict[str, Any]:
    """A JSON-friendly view of a split, for `explain --call` style output."""
    result = split_command_line(line)
    return {"commands": list(result.commands), "parse_error": result.has_error}


# -- the understood subset --------------------------------------------------------------------------
# Every node the walk visits is either understood (its effect on what runs is modelled exactly) or it
# makes its source text an opaque pattern. See the module docstring for the subset itself.
_SIMPLE_EXPANSION = lazy(
    r"\$\{#?(?:[A-Za-z_][A-Za-z0-9_]*(?:\[(?:[@*]|\d+)\])?|\d+|[@*#?$!-])"  # ${x} ${#x} ${a[1]} ${1} ${@}
    r"(?:(?::?[-+?=]|##?|%%?|//?|\^\^?|,,?)[A-Za-z0-9_.,/:%@+= *?-]*|:\d+(?::\d+)?)?\}"
    r"|\$\{![A-Za-z_][A-Za-z0-9_]*(?:\[[@*]\]|[@*])\}")  # ${!a[@]}: the keys; ${!p*}: names
# Variables whose value bash runs, or that change what a name runs, in any form (assignment, `read`,
# `printf -v`, `for`, `mapfile`, `${x:=..}`, `declare`): a line that names one is opaque.
_CODE_NAMES = lazy(r"\b(?:PS[0-4]|PROMPT_COMMAND|BASH_ENV|BASH_ALIASES|BASH_CMDS|BASH_FUNC_\w*|"
                         r"SHELLOPTS|BASHOPTS|BASH_XTRACEFD|BASH_LOADABLES_PATH|EXECIGNORE|PATH|CDPATH|"
                         r"RANDOM|SRANDOM|SECONDS|LINENO|HISTCMD|OPTIND|IFS|GLOBIGNORE|HOME|OLDPWD|"
                         # Variables that make a *program* run code (issue 18): git's config from the
                         # environment, its ssh/diff/pager/editor commands; perl/python/node/ruby options
                         # and libraries; the dynamic loader; a shell's startup file (ENV with `sh -i`).
                         r"GIT_CONFIG\w*|GIT_SSH\w*|GIT_EXTERNAL_DIFF|GIT_PAGER|GIT_EDITOR|GIT_SEQUENCE_EDITOR|"
                         r"GIT_ASKPASS|SSH_ASKPASS|GIT_PROXY_COMMAND|GIT_EXEC_PATH|GIT_TEMPLATE_DIR|GIT_DIR|"
                         r"GIT_WORK_TREE|GIT_DIFF_OPTS|PAGER|MANPAGER|EDITOR|VISUAL|LESSOPEN|LESSCLOSE|"
                         r"PERL5OPT|PERL5DB|PERL5LIB|PERLLIB|PERL_\w+|PYTHONSTARTUP|PYTHONPATH|PYTHONHOME|"
                         r"PYTHONINSPECT|PYTHONBREAKPOINT|NODE_OPTIONS|NODE_PATH|RUBYOPT|RUBYLIB|LD_\w+|ENV|"
                         r"ZDOTDIR|VIMINIT|EXINIT|MYVIMRC|AWKPATH|TCLLIBPATH|GCONV_PATH|BROWSER)\b")
_READ_ONLY_USE = lazy(r"\$\{?(?:PATH|HOME|RANDOM|SRANDOM|SECONDS|LINENO|OPTIND|IFS|OLDPWD)\b\}?")
_DELIMITER_WORD = r"[A-Za-z0-9_.+\-]+"
_PLAIN_DELIMITER = lazy(
    rf"{_DELIMITER_WORD}|'{_DELIMITER_WORD}'|\"{_DELIMITER_WORD}\"|\\{_DELIMITER_WORD}")


def _unescaped_substitution(text: str) -> bool:
    """A `` ` ``, `$(`, `${` or `$[` not escaped by a backslash: a substitution bash would run."""
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "`" or (ch == "$" and text[i + 1:i + 2] in ("(", "{", "[")):
            return True
        i += 1
    return False


def _outside_subset(node: Node, data: bytes) -> str | None:
    """The text to mark opaque when `node` is outside the understood subset, else None."""
    kind = node.type
    if node.is_error or node.is_missing or kind == "translated_string":
        return _text(node, data) or "(missing)"
    if kind == "expansion":
        text = _text(node, data)
        return None if _SIMPLE_EXPANSION().fullmatch(text) else text
    if kind == "ansi_c_string":
        return _text(node, data) if _decode_ansi_c(_text(node, data)[2:-1]) is None else None
    if node.child_count == 0 and kind in ("word", "regex", "extglob_pattern", "string_content", "comment"):
        text = _text(node, data)
        return text if _unescaped_substitution(text) else None
    if kind == "heredoc_content" and node.parent is not None and _expanding_heredoc(node.parent, data):
        text = _text(node, data)
        return text if _unescaped_substitution(text) else None
    if kind == "heredoc_redirect":
        return None if _heredoc_understood(node, data) else _text(node, data)
    return None


def _heredoc_understood(node: Node, data: bytes) -> bool:
    """The delimiter is a plain word (quoted whole or not) and bash ends the body where the parser did."""
    start = next((c for c in node.children if c.type == "heredoc_start"), None)
    end = next((c for c in node.children if c.type == "heredoc_end"), None)
    if start is None or end is None:
        return False
    raw = _text(start, data)
    if not _PLAIN_DELIMITER().fullmatch(raw) or any(c.type == "word" for c in node.children):
        return False
    delimiter = raw.strip("'\"\\")
    strip_tabs = any(c.type == "<<-" for c in node.children)
    line_start = data.find(b"\n", start.end_byte)
    if line_start < 0:
        return False
    position = line_start + 1
    while position <= len(data):  # bash: the first line that is exactly the delimiter ends the body
        line_end = data.find(b"\n", position)
        line_end = len(data) if line_end < 0 else line_end
        line = data[position:line_end].decode("utf-8", "replace")
        if (line.lstrip("\t") if strip_tabs else line) == delimiter:
            first = position + (len(line) - len(line.lstrip("\t")) if strip_tabs else 0)
            return first == end.start_byte and _text(end, data) == delimiter
        position = line_end + 1
    return False


def _line_opacity(line: str, out: _Found) -> None:
    """Names that make a whole line opaque wherever they appear (see `_CODE_NAMES`)."""
    if line.lower() == line:  # each name starts with an ASCII capital: none here (both patterns unbuilt)
        return
    if _CODE_NAMES().search(_READ_ONLY_USE().sub("", line)):
        out.add_opaque(line)
