"""Claude Code 2.1.332's lowering of a Bash command line: the subcommands it decides one by one.

The line is parsed with tree-sitter-bash (the project's parser, `tools.shell._parser`). Claude splits
it at `&&`, `||`, `;`, `|` and newlines; each subcommand is decided on its own and the answers are
combined (any deny denies, any ask asks, `decide.py`). For each subcommand:

- its **text** is the command as written without its redirections, trimmed; rules are matched
  against it, against it with runs of blanks as one space, and against it with leading
  `VAR=value` assignments and wrapper commands removed (`timeout 5`, `nice -n 5`, `nohup`, `time`,
  `stdbuf -oL`): so `timeout 5 git push` is denied by `Bash(git push:*)`; deny and ask rules also
  see through `sudo` / `doas` and the command `watch` repeats, allow rules through leading safe
  assignments (`CI=1`, `NODE_ENV=...`: `SAFE_ENV`); Claude's own allowances see less
  (`builtin_argv`);
- an **output redirection** to a file (`>`, `>>`, `&>`, not to `/dev/null` nor `2>&1`) makes a
  command that no deny or ask rule decides ask, even when an allow rule matches;
- what Claude cannot see into is asked: command and process substitution (`$(...)`, backquotes,
  `<(...)`), subshells, `{ ...; }` groups, loops, functions and conditionals, `eval`, and a shell
  run with `-c` (`bash -c 'git push'` is neither unwrapped nor allowed).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from forge_tools.named_tuple import NamedTuple

if TYPE_CHECKING:
    from tree_sitter import Node, Parser

#: wrappers Claude strips before matching: name -> how many option words with values it takes
WRAPPERS = frozenset({"timeout", "nice", "nohup", "time", "stdbuf", "command"})
SHELLS = frozenset({"bash", "sh", "zsh", "dash", "ksh", "fish"})
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\+?=")
_BLANKS = re.compile(r"[ \t]+")


class Part(NamedTuple):
    """One subcommand as Claude decides it."""

    text: str  # as written, without redirections, trimmed
    argv: tuple[str, ...]  # its words, quotes removed (empty when not a simple command)
    redirect: str | None  # the first output redirection to a file, as written
    opaque: str | None  # why Claude cannot decide it from its text (it is asked), or None
    candidates: tuple[str, ...]  # the texts allow rules are matched against
    glob: bool = False  # an unquoted `*`, `?` or `[` in its words: the shell expands it
    expands: bool = False  # a `$VAR` or `${...}` in its words: no allow rule approves it
    writes: tuple[str, ...] = ()  # the files its output redirections name (quotes removed)
    reads: tuple[str, ...] = ()  # the files its input redirections (`<`) name
    piped: bool = False  # one command of a pipeline (`a | b`)

    @property
    def stripped(self) -> tuple[str, ...]:
        """The argv with leading assignments and wrappers removed."""
        return strip_wrappers(self.argv)


def _parser() -> Parser:
    from forge_tools.tools.shell import _parser as parser

    return parser()


def lower(line: str) -> list[Part]:
    """The subcommands of `line` in order."""
    data = line.encode("utf-8")
    tree = _parser().parse(data)
    parts: list[Part] = []
    _statements(tree.root_node, data, parts)
    if re.search(r"(?<![&>|])&(?![&>])\s*$", line.strip()) or re.search(r"(?<![&>|])&(?![&>])\s+\S", line):
        parts = [p._replace(opaque=p.opaque or "a command run in the background (&)") for p in parts]
    assigned: dict[str, str] = {}
    for i, part in enumerate(parts):  # `g=git; $g push`: the value is known, Claude decides it so
        if not part.argv and "=" in part.text and part.opaque is None:
            name, _, value = part.text.partition("=")
            if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name) and re.fullmatch(r"[\w./-]*", value):
                assigned[name] = value
        elif assigned and "$" in part.text:
            text = re.sub(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?",
                          lambda m: assigned.get(m.group(1), m.group(0)), part.text)
            parts[i] = part._replace(candidates=(*part.candidates, text),
                                     argv=tuple(text.split()) if text != part.text else part.argv)
    if not parts and line.strip():
        parts.append(Part(line.strip(), (), None, "Claude Code cannot parse this command", (line.strip(),)))
    return parts


def _text(node: Node, data: bytes) -> str:
    return data[node.start_byte:node.end_byte].decode("utf-8", "replace")


def _statements(node: Node, data: bytes, out: list[Part]) -> None:
    for child in node.children:
        if not child.is_named or child.type == "comment":
            continue
        _statement(child, data, out)


def _statement(node: Node, data: bytes, out: list[Part]) -> None:
    kind = node.type
    if kind == "list":
        _statements(node, data, out)
        return
    if kind == "pipeline":
        before = len(out)
        _statements(node, data, out)
        out[before:] = [p._replace(piped=True) for p in out[before:]]
        return
    if kind == "redirected_statement":
        body = node.child_by_field_name("body")
        redirect = None
        heredoc = False
        writes: list[str] = []
        reads: list[str] = []
        for r in node.children_by_field_name("redirect"):
            if r.type == "heredoc_redirect":
                start = next((c for c in r.children if c.type == "heredoc_start"), None)
                quoted = start is not None and _text(start, data)[:1] in ("'", '"')
                heredoc = heredoc or not quoted
            elif _writes_file(r, data):
                redirect = redirect or _text(r, data)
                writes.extend(_destination(r, data))
            elif r.type == "file_redirect" and any(_text(c, data) == "<" for c in r.children
                                                   if not c.is_named):
                reads.extend(_destination(r, data))
        if body is None:
            out.append(_opaque(_text(node, data), "a redirection with no command"))
            return
        before = len(out)
        _statement(body, data, out)
        if body.type == "command" and len(out) == before + 1:
            part = out[-1]
            opaque = part.opaque
            if heredoc and opaque is None:
                opaque = "a here-document that expands $ and backquotes"
            out[-1] = part._replace(redirect=redirect, opaque=opaque, writes=tuple(writes),
                                    reads=tuple(reads))
        elif redirect is not None or reads:
            for i in range(before, len(out)):
                out[i] = out[i]._replace(redirect=out[i].redirect or redirect,
                                         writes=out[i].writes + tuple(writes),
                                         reads=out[i].reads + tuple(reads))
        return
    if kind == "command":
        out.append(_command(node, data))
        return
    if kind == "negated_command":
        _statements(node, data, out)
        return
    if kind == "variable_assignment" or kind == "variable_assignments":
        text = _text(node, data).strip()
        opaque = "a command substitution" if _has_substitution(node) else None
        out.append(Part(text, (), None, opaque, (text,)))
        return
    if kind in ("subshell", "compound_statement", "for_statement"):
        # the commands inside are decided (a deny matching one denies), but never allowed: ask
        # (a for loop of echo asks: recorded, bash-control-flow)
        why = {"subshell": "a subshell", "compound_statement": "a { ...; } group"}.get(kind, "a for loop")
        before = len(out)
        body = node.child_by_field_name("body") if kind == "for_statement" else None
        if body is not None:  # the loop's words only when they run something (`in $(cmd)`)
            for value in node.children_by_field_name("value"):
                if _has_substitution(value):
                    _statement(value, data, out)
        _statements(body if body is not None else node, data, out)
        for i in range(before, len(out)):
            out[i] = out[i]._replace(opaque=out[i].opaque or why)
        if len(out) == before:
            out.append(_opaque(_text(node, data), why))
        return
    if kind in ("if_statement", "while_statement", "do_group", "else_clause", "elif_clause"):
        # the commands of a conditional or a while loop are decided one by one (recorded for
        # `if true; then ls; fi` and `while false; do ls; done`; other forms modelled)
        before = len(out)
        for child in node.children:
            if child.is_named and child.type not in ("comment", "variable_name", "word", "string"):
                _statement(child, data, out)
        if len(out) == before:
            out.append(_opaque(_text(node, data), "a loop or conditional"))
        return
    what = {"subshell": "a subshell", "compound_statement": "a { ...; } group",
            "for_statement": "a loop", "while_statement": "a loop", "c_style_for_statement": "a loop",
            "if_statement": "a conditional", "case_statement": "a case statement",
            "function_definition": "a function definition", "test_command": "a test expression"
            }.get(kind, f"shell syntax Claude Code does not split ({kind})")
    if kind == "ERROR":
        what = "a line that does not parse"
    out.append(_opaque(_text(node, data), what))


def _opaque(text: str, why: str) -> Part:
    text = text.strip()
    return Part(text, (), None, why, (text,))


def _writes_file(redirect: Node, data: bytes) -> bool:
    """An output redirection to a file: `>`, `>>`, `&>`, `>|`; not `2>&1`, not `/dev/null`, not `<`."""
    text = _text(redirect, data)
    op = next((c for c in redirect.children if not c.is_named), None)
    operator = _text(op, data) if op is not None else ""
    if "<" in operator or (">" not in operator and ">" not in text):
        return False
    dest = redirect.child_by_field_name("destination")
    target = _text(dest, data) if dest is not None else ""
    if (operator in (">&", "&>") and target.isdigit()) or (operator.endswith("&") and target in ("-",)):
        return False
    if target.isdigit() and operator.endswith(">&"):
        return False
    return target.strip("'\"") != "/dev/null"


def _destination(redirect: Node, data: bytes) -> list[str]:
    dest = redirect.child_by_field_name("destination")
    if dest is None:
        return []
    value = _unquote(dest, data)
    return [value if value is not None else _text(dest, data)]


def _has_substitution(node: Node) -> bool:
    stack = [node]
    while stack:
        n = stack.pop()
        if n.type in ("command_substitution", "process_substitution"):
            return True
        stack.extend(n.children)
    return False


def _unquote(node: Node, data: bytes) -> str | None:
    """A word's value with its quotes removed (None when it holds an expansion)."""
    kind = node.type
    text = _text(node, data)
    if kind == "raw_string":
        return text[1:-1]
    if kind == "string":
        inner = [c for c in node.named_children if c.type != "string_content"]
        if inner:
            return None
        return text[1:-1].replace('\\"', '"').replace("\\\\", "\\").replace("\\$", "$")
    if kind in ("word", "number", "command_name"):
        if kind == "command_name" and node.named_children:
            return _unquote(node.named_children[0], data)
        return re.sub(r"\\(.)", r"\1", text)
    if kind == "concatenation":
        pieces = [_unquote(c, data) for c in node.named_children]
        return None if any(p is None for p in pieces) else "".join(p for p in pieces if p is not None)
    return None


def _command(node: Node, data: bytes) -> Part:
    text = _text(node, data).strip()
    argv: list[str] = []
    opaque = None
    if _has_substitution(node):
        opaque = "a command substitution"
    for child in node.named_children:
        if child.type == "variable_assignment":
            argv.append(_text(child, data))
            continue
        if child.type in ("file_redirect", "heredoc_redirect", "herestring_redirect"):
            continue
        value = _unquote(child, data)
        argv.append(value if value is not None else _text(child, data))
    stripped = strip_wrappers(tuple(argv))
    if opaque is None and stripped and stripped[0] in SHELLS and any(
            a.startswith("-") and "c" in a[1:] for a in stripped[1:2]):
        opaque = f"a shell run with -c ({stripped[0]} -c)"
    if opaque is None and stripped and stripped[0] == "eval":
        opaque = "eval"
    glob = any(c.type in ("word", "concatenation") and re.search(r"(?<!\\)[*?\[]", _text(c, data))
               for c in node.named_children if c.type != "command_name")
    expands = _has_kind(node, ("simple_expansion", "expansion"))
    return Part(text, tuple(argv), None, opaque, candidates(text, tuple(argv)), glob, expands)


def _has_kind(node: Node, kinds: tuple[str, ...]) -> bool:
    stack = list(node.children)
    while stack:
        n = stack.pop()
        if n.type in kinds:
            return True
        stack.extend(n.children)
    return False


def strip_wrappers(argv: tuple[str, ...], assignments: bool = True) -> tuple[str, ...]:
    """`argv` without the wrappers Claude strips (`timeout 5`, `nice -n 5`, `nohup`, `time`,
    `stdbuf -oL`, `command`) and, with `assignments`, leading `VAR=x` words and `env VAR=x`."""
    words = list(argv)
    changed = True
    while words and changed:
        changed = False
        while assignments and words and _ASSIGNMENT.match(words[0]):
            words.pop(0)
            changed = True
        if not words:
            break
        name = words[0]
        if name == "env" and assignments:
            words.pop(0)
            while words and (_ASSIGNMENT.match(words[0]) or words[0] in ("-i", "-")):
                words.pop(0)
            changed = True
            continue
        if name not in WRAPPERS:
            continue
        words.pop(0)
        changed = True
        if name == "timeout":
            while words and words[0].startswith("-"):
                flag = words.pop(0)
                if flag in ("-s", "-k", "--signal", "--kill-after") and words:
                    words.pop(0)
            if words and re.fullmatch(r"[0-9.]+[smhd]?", words[0]):
                words.pop(0)
        elif name == "nice":
            if words and words[0] == "-n" and len(words) > 1:
                del words[:2]
            elif words and re.fullmatch(r"-[0-9]+|--adjustment=.*", words[0]):
                words.pop(0)
        elif name in ("stdbuf", "time"):
            while words and words[0].startswith("-"):
                words.pop(0)
    return tuple(words)


def _join(argv: tuple[str, ...]) -> str:
    return " ".join(argv)


#: variables whose leading assignment does not stop an allow rule from matching (`CI=1 npm test` is
#: `npm test`); recorded for CI, NODE_ENV, RUST_LOG, RUST_BACKTRACE, NO_COLOR, FORCE_COLOR, LANG, LC_ALL,
#: TZ, TERM, PYTHONUNBUFFERED, GOOS (safe-env-prefixes), the rest is the binary's list. FOO, PATH,
#: HOME, LD_PRELOAD, NODE_OPTIONS and DEBUG are not safe: the allow rule no longer matches (ask).
SAFE_ENV = frozenset({
    "GOEXPERIMENT", "GOOS", "GOARCH", "CGO_ENABLED", "GO111MODULE", "RUST_BACKTRACE", "RUST_LOG", "NODE_ENV",
    "PYTHONUNBUFFERED", "PYTHONDONTWRITEBYTECODE", "PYTEST_DISABLE_PLUGIN_AUTOLOAD", "PYTEST_DEBUG",
    "ANTHROPIC_API_KEY", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "LC_TIME", "CHARSET", "TERM", "COLORTERM",
    "NO_COLOR", "FORCE_COLOR", "TZ", "LS_COLORS", "LSCOLORS", "GREP_COLOR", "GREP_COLORS", "GCC_COLORS",
    "TIME_STYLE", "BLOCK_SIZE", "BLOCKSIZE", "COLUMNS", "LINES", "CLICOLOR", "CLICOLOR_FORCE", "CI",
    "DEBIAN_FRONTEND", "GIT_TERMINAL_PROMPT",
})
_LOCALE = re.compile(r"(C|POSIX|UTF-?8|[\w-]+\.UTF-?8(@\w+)?)", re.IGNORECASE)
_PATHLIKE = re.compile(r"^[.~]*/|//|:[/.]|(?:^|/)\.\.(?:/|$)")


def safe_assignment(word: str) -> bool:
    """A `NAME=value` Claude ignores before matching allow rules: a safe name, a value that names
    no path (and, for LANG / LC_ALL / LC_CTYPE, a locale)."""
    name, eq, value = word.partition("=")
    if not eq or name not in SAFE_ENV:
        return False
    if name in ("LANG", "LC_ALL", "LC_CTYPE") and value and not _LOCALE.fullmatch(value):
        return False
    return not _PATHLIKE.search(value.replace('"', "").replace("'", ""))


def unsafe_free(argv: tuple[str, ...]) -> tuple[str, ...] | None:
    """`argv` without its leading safe assignments, or None when there are none or an unsafe one."""
    n = 0
    while n < len(argv) and _ASSIGNMENT.match(argv[n]):
        if not safe_assignment(argv[n]):
            return None
        n += 1
    return argv[n:] if 0 < n < len(argv) else None


#: the wrappers Claude's read-only set sees through, and those acceptEdits' file commands do
#: (generated corpus: `timeout 5 ls` runs, `nice ls`, `time cat x`, `nohup head x` ask;
#: under acceptEdits `nice mv`, `time cp`, `nohup rm`, `timeout 5 mv` run)
READ_ONLY_WRAPPERS = frozenset({"timeout", "command"})
EDIT_WRAPPERS = frozenset({"timeout", "command", "nice", "time", "nohup"})


def builtin_argv(argv: tuple[str, ...], through: frozenset[str] = READ_ONLY_WRAPPERS
                 ) -> tuple[str, ...] | None:
    """The words Claude's own allowances (its read-only set, acceptEdits' file commands) look at:
    `argv` without leading safe assignments and the wrappers in `through`; None when an unsafe
    assignment (`FOO=1 pwd`, `env X=1 ls`) or another wrapper leads: those ask."""
    words = argv
    n = 0
    while n < len(words) and _ASSIGNMENT.match(words[n]):
        if not safe_assignment(words[n]):
            return None
        n += 1
    words = words[n:]
    while words and words[0] in WRAPPERS:
        rest = strip_wrappers(words, assignments=False)  # this wrapper and any right after it
        if rest == words or any(w in WRAPPERS and w not in through for w in words[:len(words) - len(rest)]):
            return None
        words = rest
    return words


def candidates(text: str, argv: tuple[str, ...]) -> tuple[str, ...]:
    """The texts Claude matches a subcommand against its allow rules: as written, with its
    wrappers removed, and with leading safe assignments removed (not other `VAR=x`, nor `env`)."""
    found = [text, _BLANKS.sub(" ", text)]  # exact rules compare the first only (`decide._match`)
    stripped = strip_wrappers(argv, assignments=False)
    if stripped and stripped != argv:
        found.append(_join(stripped))
    safe = unsafe_free(argv)
    if safe:
        found.append(_join(safe))
        found.append(_join(strip_wrappers(safe, assignments=False)))
    return tuple(dict.fromkeys(t for t in found if t))


#: commands that run the rest of their words as root: deny and ask rules see through them (recorded,
#: deny-through-sudo-*: `sudo -u root rm x`, `doas rm x`); an allow rule must name them
PRIVILEGE = frozenset({"sudo", "doas"})
#: their options that take a value
_PRIVILEGE_VALUED = frozenset({"-u", "-g", "-h", "-p", "-C", "-D", "-R", "-T", "-U", "--user", "--group",
                               "--host", "--prompt", "--chdir", "--chroot", "--other-user", "-a"})
#: watch's options that take a value (`watch -n 1 cmd`)
_WATCH_VALUED = frozenset({"-n", "--interval", "-d", "--differences", "-q", "--equexit"})


def unprivileged(argv: tuple[str, ...]) -> tuple[str, ...]:
    """`argv` without leading `sudo` / `doas` and their options (`sudo -u root rm x` is `rm x`)."""
    words = list(argv)
    while words and words[0].rsplit("/", 1)[-1] in PRIVILEGE:
        words.pop(0)
        while words and words[0].startswith("-"):
            flag = words.pop(0)
            if flag == "--":
                break
            if flag in _PRIVILEGE_VALUED and words:
                words.pop(0)
    return tuple(words)


def watched(argv: tuple[str, ...]) -> tuple[str, ...] | None:
    """The command `watch [options] cmd...` runs again and again, or None when `argv` is no watch."""
    if not argv or argv[0] != "watch":
        return None
    words = list(argv[1:])
    while words and words[0].startswith("-"):
        flag = words.pop(0)
        if flag in ("-n", "--interval") and words:
            words.pop(0)
    return tuple(words)


def deny_candidates(part: Part) -> tuple[str, ...]:
    """The texts Claude matches a subcommand against its deny and ask rules: the allow texts, and
    runs of blanks as one space, quotes removed, `VAR=x` and `env` removed, and the program's path
    reduced to its name (`/usr/bin/git push` is `git push`)."""
    found = [*part.candidates, _BLANKS.sub(" ", part.text)]
    if part.argv:
        found.append(_join(part.argv))
        stripped = strip_wrappers(part.argv[1:] if part.argv[0] == "exec" else part.argv)
        forms = [stripped]
        plain = strip_wrappers(unprivileged(stripped))
        inner = watched(plain)
        for form in (plain, inner, strip_wrappers(unprivileged(inner)) if inner else None):
            if form and form not in forms:
                forms.append(form)
        for form in forms:
            if not form:
                continue
            found.append(_join(form))
            if "/" in form[0]:
                found.append(_join((form[0].rsplit("/", 1)[-1], *form[1:])))
    return tuple(dict.fromkeys(t for t in found if t))
