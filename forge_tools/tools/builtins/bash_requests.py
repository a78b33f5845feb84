"""Which permissions a bash command line needs (SPEC 4.4): `bash`'s `permission_requests`, apart from
running it, so that a decision without running anything (`forge-tools hook`) needs neither pydantic
nor the runner. `args` is anything with `command` and `workdir` attributes (`BashArgs` in bash.py).
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from forge_tools.lazy_re import lazy
from forge_tools.permission.calls import PermissionRequest
from forge_tools.tools.builtins._common import (
    edit_requests,
    external_request,
    posix,
    real_path,
    resolve_path,
)

if TYPE_CHECKING:
    from forge_tools.tools.context import ToolContext
    from forge_tools.tools.shell import CommandLine

# Commands whose plain arguments are paths: a target outside the project root is checked as
# `external_directory` too (`rm -rf /etc/x`, `cat ~/.ssh/id_rsa`). The value is how many leading
# non-option arguments are not paths (the mode of chmod, the owner of chown).
PATH_COMMANDS: dict[str, int] = {
    "cd": 0, "pushd": 0, "rm": 0, "rmdir": 0, "cp": 0, "mv": 0, "mkdir": 0, "touch": 0, "ln": 0,
    "cat": 0, "tee": 0, "truncate": 0, "shred": 0, "chmod": 1, "chown": 1, "chgrp": 1, "install": 0,
    "head": 0, "tail": 0, "less": 0, "more": 0, "cut": 0, "sort": 0, "wc": 0, "diff": 0, "stat": 0,
    "file": 0, "ls": 0, "find": 0, "du": 0, "tar": 0, "zip": 0, "unzip": 0, "dd": 0, "rsync": 0,
    "scp": 0, "source": 0, ".": 0,
}
# Of those, the ones that change the files they name: a path into the agent config is always asked.
WRITE_COMMANDS = frozenset({"rm", "rmdir", "cp", "mv", "mkdir", "touch", "ln", "tee", "truncate", "shred",
                            "chmod", "chown", "chgrp", "install", "dd", "rsync", "tar", "unzip"})
# Files every shell writes to or reads from as a matter of course; never "outside the project".
HARMLESS_FILES = frozenset({"/dev/null", "/dev/stdin", "/dev/stdout", "/dev/stderr", "/dev/tty",
                            "/dev/zero", "/dev/random", "/dev/urandom"})
_HOME_WORD = lazy(r"^(?:\$HOME|\$\{HOME\})(?=/|$)")


def permission_requests(args: Any, ctx: ToolContext) -> list[PermissionRequest]:
    """`external_directory` for a workdir, a path argument or a redirect outside the root, `edit` for
    each file a redirect writes, then `bash` with each simple command of the line (SPEC 4.4). A path
    this cannot pin down (`> $F`, `cd -`, `cat $X/y`) is an opaque pattern: never allowed optimistically."""
    from forge_tools.tools.shell import MAX_LINE, always_pattern, split_command_line

    split = split_command_line(args.command)
    cwd = resolve_path(args.workdir, ctx)
    requests: list[PermissionRequest] = []
    if args.workdir:
        requests += external_request(cwd, ctx, is_dir=True)
    if len(args.command) > MAX_LINE:  # not analysed: asked (denied by a rule that denies it), one line why
        from forge_tools.permission.calls import OVERSIZED

        whole = split.commands
        return [*requests, PermissionRequest("bash", whole, (), {"command": args.command, "ask": list(whole),
                                                                 OVERSIZED: True})]
    paths = _Paths(split, cwd, cdpath="CDPATH" in args.command or bool(os.environ.get("CDPATH")))
    if _makes_links(split):  # every path may lead through a link the line makes: where is known only then
        paths.unknown += [t for t in split.redirects if not os.path.isabs(os.path.expanduser(t))]
        paths.unknown += [posix(p) for p in paths.arguments if p not in paths.bases[:1]]
    for target in [*paths.arguments, *_harmless_less(split.redirects, paths.bases)]:
        requests += external_request(target, ctx, is_dir=target.is_dir())
    if paths.unknown:
        unknown = tuple(dict.fromkeys(paths.unknown))
        requests.append(PermissionRequest("external_directory", unknown, unknown,
                                          {"opaque": list(unknown), "paths": list(unknown)}))
    linked = _makes_links(split)
    for target in _harmless_less(split.writes, paths.bases):
        requests += _edit_request(target, ctx, always_ask=linked)
    for target in paths.written:
        if linked or is_agent_config(target, ctx):
            requests += _edit_request(target, ctx, always_ask=True)
    for target in _config_mentions(split, paths.bases, ctx):
        requests += _edit_request(target, ctx)  # `sed -i .. opencode.json`, `python3 -c 'open("opencode..`
    # `~+/x` ($PWD), `~-/x` ($OLDPWD), `~user/x`: bash expands them when it runs; where is not known here.
    tilde = [t for t in split.redirects if t.startswith("~") and t != "~" and not t.startswith("~/")]
    dynamic = tuple(dict.fromkeys([*split.dynamic_targets, *tilde]))
    if dynamic:  # `> $F`, `> vic*`: where it writes is known only at run time, inside or outside
        requests.append(PermissionRequest("external_directory", dynamic, dynamic, {"opaque": list(dynamic)}))
        requests.append(PermissionRequest("edit", dynamic, dynamic, {"opaque": list(dynamic)}))
    requests = list({(r.permission, r.patterns): r for r in requests}.values())
    patterns = split.commands
    always = tuple(dict.fromkeys(always_pattern(p) for p in patterns))
    metadata: dict[str, Any] = {"command": args.command}
    if split.opaque:
        metadata["opaque"] = list(split.opaque)  # the gate asks (or denies) these: permission.calls
    if split.readings:
        metadata["readings"] = {p: list(r) for p, r in split.readings}  # read past options: permission.calls
    requests.append(PermissionRequest("bash", patterns, always, metadata))
    return requests


def _edit_request(target: Path, ctx: ToolContext, always_ask: bool = False) -> list[PermissionRequest]:
    """`edit` of a file a command writes (relative to the root); always asked for the agent config (and
    when the same line makes links, since the name may then lead anywhere, the config included)."""
    requests = edit_requests(target, ctx)
    if always_ask or is_agent_config(target, ctx):
        edit = requests[-1]
        requests[-1] = PermissionRequest(edit.permission, edit.patterns, edit.always,
                                         {**edit.metadata, "ask": list(edit.patterns)})
    return requests


# Commands that read the files they name and write none: naming the agent config is harmless for them.
READ_ONLY_COMMANDS = frozenset({"cat", "head", "tail", "less", "more", "grep", "egrep", "fgrep", "rg", "ls",
                                "stat", "file", "wc", "diff", "cmp", "jq", "echo", "printf", "test", "[",
                                "realpath", "readlink", "basename", "dirname", "md5sum", "sha1sum",
                                "sha256sum", "cd", "pushd", "which", "type", "true", ":", "du", "tree"})
_PATH_TOKEN = lazy(r"[^\s'\"(),;=<>|&`{}\[\]]+")
def _makes_links(split: CommandLine) -> bool:
    """The line makes links when it runs (`ln`, `link`, `cp -s`/`-l`, `mount`): a later path on the same
    line may lead through one to anywhere, which no check made before the line runs can see."""
    for words in split.argv:
        name = words[0].rsplit("/", 1)[-1] if words and words[0] is not None else None
        if name in ("ln", "link", "mount", "bindfs"):
            return True
        if name == "cp" and any((w is not None and w.startswith("-") and not w.startswith("--")
                                 and ("s" in w or "l" in w)) or w in ("--symbolic-link", "--link")
                                for w in words[1:]):
            return True
    return False


def _config_mentions(split: CommandLine, bases: list[Path], ctx: ToolContext) -> list[Path]:
    """Agent config files or folders named anywhere in the words of a command that may write (any
    program but the read-only ones): `sed -i .. opencode.json`, `cp x .opencode/agent/a.md`,
    `python3 -c 'open("forge.json", "w")'`. Each is an `edit` always asked (issue 18)."""
    found: list[Path] = []
    seen: set[Path] = set()  # a line repeats words (every command start after a wrapper): ask once each
    targets = config_targets(ctx)
    for words, texts in zip(split.argv, split.texts or split.argv, strict=False):
        name = words[0].rsplit("/", 1)[-1] if words and words[0] is not None else None
        if name in READ_ONLY_COMMANDS:
            continue
        for word, text in zip(words[1:], texts[1:], strict=False):
            for token in _PATH_TOKEN().findall(word if word is not None else text or ""):
                for path in _absolute(token, bases):
                    if path not in seen:
                        seen.add(path)
                        if is_agent_config(path, ctx, targets):
                            found.append(path)
    return found


def config_targets(ctx: ToolContext) -> list[Path]:
    """The agent config outside the project: the global config folders (opencode's and forge-tools')
    and the files and folders named by OPENCODE_CONFIG, FORGE_CONFIG, OPENCODE_CONFIG_DIR and
    FORGE_CONFIG_DIR. A write into any of them changes the rules as much as one into opencode.json."""
    from forge_tools.paths import global_config_dir, opencode_global_dir

    found = [opencode_global_dir(), global_config_dir()]
    for name in ("OPENCODE_CONFIG", "FORGE_CONFIG", "OPENCODE_CONFIG_DIR", "FORGE_CONFIG_DIR"):
        if os.environ.get(name):
            found.append(Path(os.environ[name]) if os.path.isabs(os.environ[name])
                         else Path(ctx.project_root) / os.environ[name])
    return [Path(os.path.normpath(p.absolute())) for p in found]


AGENT_CONFIG_DIRS = frozenset({".forge", ".opencode"})
AGENT_CONFIG_STEMS = frozenset({"forge", "opencode"})


def is_agent_config(path: Path, ctx: ToolContext, targets: list[Path] | None = None) -> bool:
    """`forge.*`, `opencode.*` at the root, or anything in `.forge/` or `.opencode/` (by name or target):
    a write there would change the rules that decide this very call. (`targets`: `config_targets(ctx)`,
    when the caller asks about many paths.)"""
    root = Path(os.path.normpath(Path(ctx.project_root).absolute()))
    targets = config_targets(ctx) if targets is None else targets
    for candidate in (path, real_path(path)):
        for config in targets:
            if candidate == config or config in candidate.parents:
                return True
        try:
            parts = candidate.relative_to(root).parts
        except ValueError:
            with contextlib.suppress(ValueError, OSError):
                parts = candidate.relative_to(root.resolve()).parts
                if parts and (parts[0] in AGENT_CONFIG_DIRS or (
                        len(parts) == 1 and parts[0].split(".", 1)[0] in AGENT_CONFIG_STEMS)):
                    return True
            continue
        if parts and (parts[0] in AGENT_CONFIG_DIRS or (
                len(parts) == 1 and parts[0].split(".", 1)[0] in AGENT_CONFIG_STEMS and "." in parts[0])):
            return True
    return False


def _harmless_less(targets: tuple[str, ...], bases: list[Path]) -> list[Path]:
    """Redirect files (`> ~/.bashrc`, `< /etc/shadow`) made absolute, less /dev/null and friends."""
    found: list[Path] = []
    for word in targets:
        for path in _absolute(word, bases):
            if posix(path) in HARMLESS_FILES or posix(path).startswith("/dev/fd/"):
                continue
            found.append(path)
    return found


def _absolute(word: str, bases: list[Path]) -> list[Path]:
    """`word` as an absolute path: `~` expanded; a relative one against every directory the line may be
    in (the working directory, and each `cd` target: checking more places is only stricter)."""
    path = Path(os.path.expanduser(word))
    if path.is_absolute():
        return [Path(os.path.normpath(path))]
    return [Path(os.path.normpath(base / path)) for base in bases]


class _Paths:
    """The path arguments of file commands, the directories `cd` may move to, and the paths that are
    only known at run time (`cd -`, `cat $X`, `cd` with CDPATH), from one split line."""

    def __init__(self, split: CommandLine, cwd: Path, cdpath: bool) -> None:
        self.cdpath = cdpath
        self.bases: list[Path] = [cwd]
        self.arguments: list[Path] = []
        self.written: list[Path] = []
        self.unknown: list[str] = []
        pending: list[tuple[str, bool]] = []
        for words, texts in zip(split.argv, split.texts or split.argv, strict=False):
            if not words:
                continue
            name = words[0].rsplit("/", 1)[-1] if words[0] is not None else None
            for word, text in zip(words[1:], texts[1:], strict=False):
                home = _HOME_WORD().sub(os.environ.get("HOME", "~").replace("\\", "/"), text or "")
                if word is None and home != text and _static_text(home):
                    pending.append((home, False))  # `$HOME/x` in any command: a path outside the root
                elif word is not None and (word == "~" or word.startswith("~/")) \
                        and name not in PATH_COMMANDS:
                    pending.append((word, False))  # `vim ~/.bashrc`: so is `~/x`
            if name in ("cd", "pushd", "popd"):
                self._cd(name, words, texts)
                continue
            skip = PATH_COMMANDS.get(name or "")
            if skip is None:
                continue
            options_done = False
            for index, (word, text) in enumerate(zip(words[1:], texts[1:], strict=False), start=1):
                if name == "find" and word is not None and word[:1] in ("-", "(", "!", ")"):
                    break  # find's paths come before its expression (`-name x -exec cmd {} +`)
                if word is None:
                    if text and not text.startswith("-"):
                        self.unknown.append(text)  # `cat $X/y`: which directory is known only at run time
                    continue
                if not options_done and word == "--":
                    options_done = True
                    continue
                if not options_done and word.startswith("-") and word != "-":
                    value = _option_path(name or "", word, words, index)
                    if value is not None:
                        pending.append((value, name in WRITE_COMMANDS))
                    continue
                if skip:
                    skip -= 1
                    continue
                if name == "dd" and word.startswith(("if=", "of=")):
                    word = word[3:]
                if word.startswith("~") and word != "~" and not word.startswith("~/"):
                    self.unknown.append(text or word)  # `~+/..`, `~-/x`, `~user/x`: expanded at run time
                    continue
                pending.append((word, name in WRITE_COMMANDS))
        cd_unknown = any(text.startswith("cd") or text.startswith(("pushd", "popd")) for text in self.unknown)
        for word, writes in pending:
            if cd_unknown and not os.path.isabs(os.path.expanduser(word)):
                self.unknown.append(word)  # after a `cd` to somewhere unknown a relative path is too
            paths = _absolute(word, self.bases)
            self.arguments += paths
            if writes:
                self.written += paths

    def _cd(self, name: str, words: tuple[str | None, ...], texts: tuple[str | None, ...]) -> None:
        operands = [(w, t) for w, t in zip(words[1:], texts[1:], strict=False)
                    if not (w is not None and w.startswith("-") and w not in ("-", "--"))]
        operands = [(w, t) for w, t in operands if w != "--"]
        whole = " ".join(t or "" for t in texts)
        if name == "popd" or not operands:
            self.unknown.append(whole)  # `cd` alone is $HOME; popd goes back to a directory stacked earlier
            return
        word = operands[0][0]
        if word is None or word == "-" or word.startswith("~"):
            self.unknown.append(whole)  # `cd $X`, `cd -` (OLDPWD), `cd ~user`: known only at run time
            return
        if not word.startswith(("/", "./", "../")) and word not in (".", "..") and self.cdpath:
            self.unknown.append(whole)  # CDPATH may pick another directory of that name
            return
        for path in _absolute(word, self.bases):
            self.arguments.append(path)
            self.bases.append(path)


def _option_path(name: str, word: str, words: tuple[str | None, ...], index: int) -> str | None:
    """The path in `--target-directory=DIR` / `-t DIR` (cp, mv, ln, install) and in any `--opt=/abs`."""
    if word.startswith("--") and "=" in word:
        key, value = word[2:].split("=", 1)
        if key in ("target-directory", "directory") or value.startswith(("/", "~")):
            return value
    if name in ("cp", "mv", "ln", "install") and word in ("-t", "--target-directory"):
        return words[index + 1] if index + 1 < len(words) else None
    if name in ("cp", "mv", "ln", "install") and word.startswith("-t") and len(word) > 2:
        return word[2:]
    return None


def _static_text(text: str) -> bool:
    return not any(c in text for c in "$`\\'\"*?[")
