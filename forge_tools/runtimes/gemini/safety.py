"""Gemini CLI 0.61's shell heuristics for a rule without `argsPattern` (and for no rule at all): a
`git` command in an untrusted folder asks, a dangerous command (`rm -rf`, `find -delete`, `ln -s`,
`git -c`) asks, a known-safe one (`ls`, `cat README.md`, `git status`, `sed -n 1p f`: read-only, no
path outside the workspace) turns an ask into an allow. The words are shell-quote's (`shell.words`).
"""

from __future__ import annotations

import os
from pathlib import Path

_SAFE = frozenset({"__read", "__write", "cat", "cd", "cut", "echo", "expr", "false", "grep", "head", "id",
                   "ls", "nl", "paste", "pwd", "rev", "seq", "stat", "tail", "tr", "true", "uname", "uniq",
                   "wc", "which", "whoami", "numfmt", "tac"})
_FILE_READING = frozenset({"cat", "head", "tail", "tac", "nl", "stat", "wc", "cut", "paste", "rev", "uniq",
                           "numfmt", "ls", "__read"})
_FIND_UNSAFE = frozenset({"-exec", "-execdir", "-ok", "-okdir", "-delete", "-fls", "-fprint", "-fprint0",
                          "-fprintf"})
_GIT_READ = ("status", "log", "diff", "show", "branch")
_GIT_VALUE_OPTS = frozenset({"-C", "-c", "--config-env", "--exec-path", "--git-dir", "--namespace",
                             "--super-prefix", "--work-tree"})
_GIT_PREDECESSORS = frozenset({"sudo", "env", "time", "&&", "||", ";", "|", "&", "(", "\\n"})


def _inside(root: Path, path: Path) -> bool:
    return path == root or root in path.parents


def _resolve(base: Path, arg: str) -> Path:
    return Path(os.path.normpath(base / arg))


def escapes(arg: str, workspace: Path, cwd: Path) -> bool:
    """A path argument that names something outside the workspace (or a `$`/backquote, unknowable)."""
    if not arg:
        return False
    if "$" in arg or "`" in arg:
        return True
    if arg == "~" or arg.startswith(("~/", "~\\")):
        target = _resolve(Path.home(), arg[2:])
    elif arg.startswith("~"):
        return True
    else:
        target = _resolve(cwd, arg)
    if not _inside(workspace, target):
        return True
    current = target
    while _inside(workspace, current) and current != current.parent:
        if current.is_symlink() and not _inside(workspace, Path(os.path.realpath(current))):
            return True
        current = current.parent
    return False


def _path_args_escape(args: list[str], workspace: Path, cwd: Path, file_opts: bool) -> bool:
    """The argument walk shared by the file-reading commands and grep (`file_opts`: `-f FILE`)."""
    dashdash = False
    i = 1
    while i < len(args):
        arg = args[i]
        i += 1
        if not dashdash:
            if arg == "--":
                dashdash = True
                continue
            if arg == "-":
                continue
            if file_opts and arg.startswith(("-f", "--file")):
                if arg.startswith("--file="):
                    value: str | None = arg[7:]
                elif arg == "--file" or len(arg) <= 2:
                    value = args[i] if i < len(args) else None
                    i += 1
                else:
                    value = arg[2:]
                if value and escapes(value, workspace, cwd):
                    return True
                continue
            if arg.startswith("-"):
                if "=" in arg:
                    if escapes(arg[arg.index("=") + 1:], workspace, cwd):
                        return True
                    continue
                if not os.path.lexists(cwd / arg):
                    continue
        if escapes(arg, workspace, cwd):
            return True
    return False


def _git_subcommand(args: list[str]) -> tuple[int, str | None]:
    skip = False
    for idx in range(1, len(args)):
        if skip:
            skip = False
            continue
        arg = args[idx]
        if arg.startswith(("--config-env=", "--exec-path=", "--git-dir=", "--namespace=", "--super-prefix=",
                           "--work-tree=")) or (arg.startswith(("-C", "-c")) and len(arg) > 2):
            continue
        if arg in _GIT_VALUE_OPTS:
            skip = True
            continue
        if arg == "--" or arg.startswith("-"):
            continue
        return (idx, arg) if arg in _GIT_READ else (-1, None)
    return -1, None


def _git_config_override(args: list[str]) -> bool:
    return any(a in ("-c", "--config-env") or (a.startswith("-c") and len(a) > 2)
               or a.startswith("--config-env=") for a in args)


def _git_read_only_args(args: list[str]) -> bool:
    unsafe = {"--output", "--ext-diff", "--textconv", "--exec", "--paginate"}
    return not any(a in unsafe or a.startswith(("--output=", "--exec=")) for a in args)


def _git_branch_read_only(args: list[str]) -> bool:
    flags = {"--list", "-l", "--show-current", "-a", "--all", "-r", "--remotes", "-v", "-vv", "--verbose"}
    if not args:
        return True
    return all(a in flags or a.startswith("--format=") for a in args)


def _git_read(args: list[str]) -> bool | None:
    """A git read command (status, log, diff, show, branch) and read-only: True; one with a writing
    option (`--output`, `branch -D`): False; another subcommand: None. `git -c` is never a read."""
    idx, sub = _git_subcommand(args)
    if sub is None:
        return None
    rest = args[idx + 1:]
    return _git_read_only_args(rest) and (sub != "branch" or _git_branch_read_only(rest))


def _git_safe(args: list[str]) -> bool:
    return not _git_config_override(args) and bool(_git_read(args))


def _sed_n(arg: str | None) -> bool:
    if not arg or not arg.endswith("p"):
        return False
    parts = arg[:-1].split(",")
    return 1 <= len(parts) <= 2 and all(p.isdigit() and p.isascii() for p in parts)


def _safe_exec(args: list[str], cwd: Path, workspace: Path) -> bool:
    if not args:
        return False
    workspace, cwd = Path(os.path.realpath(workspace)), Path(os.path.realpath(cwd))
    if not _inside(workspace, cwd):
        return False
    cmd = args[0]
    if cmd in _SAFE:
        if cmd == "cd":
            paths = [a for a in args[1:] if not a.startswith("-")]
            return not any(escapes(a, workspace, cwd) for a in (paths or ["~"]))
        if cmd in _FILE_READING or cmd == "grep":
            return not _path_args_escape(args, workspace, cwd, file_opts=cmd == "grep")
        return True
    if cmd == "base64":
        if any(a in ("-o", "--output") or a.startswith("--output=") or (a.startswith("-o") and a != "-o")
               for a in args[1:]):
            return False
        return not any(escapes(a, workspace, cwd) for a in args[1:] if not a.startswith("-"))
    if cmd == "find":
        if any(a in _FIND_UNSAFE for a in args):
            return False
        return not any(escapes(a, workspace, cwd) for a in args[1:] if not a.startswith("-"))
    if cmd == "git":
        return _git_safe(args)
    if cmd == "sed":
        if len(args) <= 4 and len(args) > 2 and args[1] == "-n" and _sed_n(args[2]):
            return not (len(args) > 3 and args[3] and escapes(args[3], workspace, cwd))
        return False
    # rg: only a trusted system path's rg is safe; not modelled here (asks)
    return False


def is_known_safe(args: list[str], cwd: Path, workspace: Path) -> bool:
    """Gemini's `isKnownSafeCommand` (POSIX): the words of a read-only command inside the workspace,
    or `bash -c` of such commands only."""
    from forge_tools.runtimes.gemini.shell import split_commands, words

    if not args:
        return False
    args = ["bash" if a == "zsh" else a for a in args]
    if _safe_exec(args, cwd, workspace):
        return True
    if len(args) == 3 and args[0] == "bash" and args[1] in ("-lc", "-c"):
        script = args[2]
        if any(c in script for c in "()<>"):
            return False
        commands = split_commands(script)
        if not commands:
            return False
        return all(not c.strip() or not words(c.strip()) or _safe_exec(words(c.strip()), cwd, workspace)
                   for c in commands)
    return False


def is_dangerous(args: list[str]) -> bool:
    """Gemini's `isDangerousCommand`: `rm -f/-rf/-fr`, `ln -s`, `find -exec/-delete`, `rg --pre`, `git -c`
    or a git read command with `--output`/`--exec`, `base64 -o`, and `sudo` of any of them."""
    if not args:
        return False
    cmd = args[0]
    if cmd == "ln" and any(a in ("-s", "--symbolic")
                           or (a.startswith("-") and not a.startswith("--") and "s" in a)
                           for a in args):
        return True
    if cmd == "rm":
        return len(args) > 1 and args[1] in ("-f", "-rf", "-fr")
    if cmd == "sudo":
        return is_dangerous(args[1:])
    if cmd == "find":
        return any(a in _FIND_UNSAFE for a in args)
    if os.path.basename(cmd) in ("rg", "rg.exe"):
        return any(a in ("--search-zip", "-z") or a in ("--pre", "--hostname-bin")
                   or a.startswith(("--pre=", "--hostname-bin=")) for a in args)
    if cmd == "git":
        return _git_config_override(args) or _git_read(args) is False
    if cmd == "base64":
        return any(a in ("-o", "--output") or a.startswith("--output=") or (a.startswith("-o") and a != "-o")
                   for a in args[1:])
    return False


def contains_git(args: list[str]) -> bool:
    """A `git` word at a command's start (after `sudo`, `env`, `time`, an operator or `VAR=x`)."""
    import re

    for index, arg in enumerate(args):
        word = arg.strip()
        if not word or os.path.basename(word).lower() not in ("git", "git.exe"):
            continue
        prev = index - 1
        while prev >= 0 and re.match(r"[a-zA-Z_][a-zA-Z0-9_]*=", args[prev]):
            prev -= 1
        if prev >= 0 and args[prev].lower() not in _GIT_PREDECESSORS:
            continue
        return True
    return False
