"""The commands Claude Code 2.1.332 runs without asking when no rule decides them: its read-only set.

Reproduced (read from the binary, verified where tests/compat/claude records a call):

- the plain read-only programs below (`cat`, `head`, `wc`, `stat`, `diff`, `sleep`, ...,
  `docker ps`, `docker images`) when the rest of the command holds none of `<>()$`|{}&;` or a
  newline;
- `echo` with plain, single-quoted or double-quoted words (no `$`); `pwd`, `whoami`, `alias` alone;
  `ls` with plain arguments; `cd` with at most one plain argument; `find` without `-exec`, `-delete`,
  `-ok` or `-fprint`-style actions.

Modelled (Claude checks each option of these against a table of safe flags; forge-tools keeps the
common read-only forms, and asks for the rest): `git` status, log, diff, show, blame, branch
(listing), rev-parse, ls-files, remote, describe, shortlog, reflog, tag (listing), config --get;
`grep`, `egrep`, `fgrep`, `rg`, `head`, `tail`, `sort` (without `-o`), `uniq`, `jq` (a filter and
files), `file`, `tree`, `which`, `sha256sum`-style sums. Anything else asks. A program (or git
subcommand) a record ran unasked, with no option the record did not use, is reproduced (`RECORDED`:
`git log -1`, `git remote -v`, `grep -r`, `sort`, `jq`, ...); `whereis` asks (recorded).
"""

from __future__ import annotations

import re

PLAIN = (
    "docker ps", "docker images", "cal", "uptime", "cat", "head", "tail", "wc", "stat", "strings",
    "hexdump", "od", "nl", "id", "uname", "free", "df", "du", "locale", "groups", "nproc", "basename",
    "dirname", "realpath", "cut", "paste", "tr", "column", "tac", "rev", "fold", "expand", "unexpand",
    "fmt", "comm", "cmp", "numfmt", "readlink", "diff", "true", "false", "sleep", "type", "expr", "seq",
    "tsort", "pr",
)
_PLAIN = [re.compile(rf"^{re.escape(p)}(?:\s|$)[^<>()$`|{{}}&;\n\r]*$") for p in PLAIN]
_ECHO = re.compile(r"""^echo(?:\s+(?:'[^']*'|"[^"$<>\n\r]*"|[^|;&`$(){}><#\\!"'\s]+))*(?:\s+2>&1)?\s*$""")
_LS = re.compile(r"^ls(?:\s+[^<>()$`|{}&;\n\r]*)?$")
_CD = re.compile(r"""^cd(?:\s+(?:'[^']*'|"[^"]*"|[^\s;|&`$(){}><#\\]+))?$""")
_FIND_ACTIONS = ("-delete", "-rm", "-exec", "-execdir", "-ok", "-okdir", "-fprint", "-fprint0", "-fls",
                 "-fprintf", "-files0-from")
_SAFE_ARGS = re.compile(r"^[^<>()$`|{}&;\n\r]*$")
#: modelled (see the module docstring)
GIT_READ = frozenset({"status", "log", "diff", "show", "blame", "branch", "rev-parse", "ls-files",
                      "remote", "describe", "shortlog", "reflog", "tag", "config"})
_GIT_UNSAFE = ("-c", "--exec-path", "--output", "-o", "--ext-diff", "--textconv", "-d", "-D", "-m",
               "-M", "--delete", "--move", "--set-upstream-to", "-u", "--unset", "--add", "--replace-all")
MODELLED = frozenset({"grep", "egrep", "fgrep", "rg", "sort", "jq", "file", "tree", "which", "date",
                      "test", "sha256sum", "sha1sum", "md5sum"})
#: the modelled programs (and git subcommands) a record shows run unasked, with the options it used:
#: a command of one of them with no other option is reproduced (`readonly-modelled-*`); `whereis`
#: asks (recorded), so it is in no set
RECORDED: dict[str, frozenset[str]] = {
    **{f"git {sub}": frozenset() for sub in ("diff", "show", "blame", "branch", "rev-parse", "ls-files",
                                             "tag", "describe", "reflog", "status")},
    "git log": frozenset({"-1"}), "git remote": frozenset({"-v"}), "git config": frozenset({"--get"}),
    "grep": frozenset({"-r"}), "test": frozenset({"-f"}), "sed": frozenset({"-n"}),
    **{name: frozenset() for name in ("egrep", "fgrep", "rg", "sort", "jq", "file", "tree", "which",
                                      "date", "sha256sum", "md5sum")},
}
#: exact commands Claude runs unasked
EXACT = frozenset({("claude", "-h"), ("claude", "--help"), ("node", "-v"), ("node", "--version"),
                   ("python", "--version"), ("python3", "--version"), ("ip", "addr")})
_UNIQ = re.compile(r"^uniq(?:\s+(?:-[a-zA-Z]+|--[a-zA-Z-]+(?:=\S+)?|-[fsw]\s+\d+))*(?:\s|$)\s*$")
_SED_PRINT = re.compile(r"^(?:\d+|\$)(?:,(?:\d+|\$))?p$")


def _seen(argv: tuple[str, ...]) -> str:
    """"reproduced" when a record ran this program (git: subcommand) unasked with no other option,
    else "modelled"."""
    key, rest = (f"git {argv[1]}", argv[2:]) if argv[0] == "git" and len(argv) > 1 else (argv[0], argv[1:])
    options = RECORDED.get(key)
    if options is None or any(a.startswith("-") and a not in options for a in rest):
        return "modelled"
    return "reproduced"


def read_only(text: str, argv: tuple[str, ...]) -> str | None:
    """Why Claude runs this subcommand unasked ("reproduced"/"modelled" in the words), or None."""
    text = text.strip()
    if not argv:
        return None
    name = argv[0]
    if name in ("pwd", "whoami", "alias"):
        return "reproduced" if len(argv) == 1 else None
    if tuple(argv) in EXACT:
        return "reproduced"
    if name == "uniq":
        return "reproduced" if _UNIQ.match(text) else None
    if name == "sed":  # modelled: `sed -n Np FILE` prints; anything else may write or run code
        args = list(argv[1:])
        if "-n" in args and not any(a.startswith(("-i", "--in-place")) for a in args):
            scripts = [a for a in args if not a.startswith("-")]
            if scripts and _SED_PRINT.match(scripts[0]) and _SAFE_ARGS.match(text):
                return _seen(argv)
        return None
    if any(p.match(text) for p in _PLAIN):
        return "reproduced"
    if name == "echo":
        return "reproduced" if _ECHO.match(text) else None
    if name == "ls":
        return "reproduced" if _LS.match(text) else None
    if name == "cd":
        return "reproduced" if _CD.match(text) else None
    if name == "find":
        if not _SAFE_ARGS.match(text.replace("\\(", "").replace("\\)", "")):
            return None
        return None if any(a in _FIND_ACTIONS for a in argv[1:]) else "reproduced"
    if not _SAFE_ARGS.match(text):
        return None
    if name == "git":
        return _git(argv)
    if name in MODELLED:
        if name == "sort" and any(a == "-o" or a.startswith(("--output", "-o")) for a in argv[1:]):
            return None
        return _seen(argv)
    return None


def _git(argv: tuple[str, ...]) -> str | None:
    args = list(argv[1:])
    if not args or args[0].startswith("-"):
        return None  # options before the subcommand (`git -C . status`): Claude's table has no entry
    sub, rest = args[0], args[1:]
    if sub not in GIT_READ:
        return None
    if any(a in _GIT_UNSAFE or a.startswith(("--output=", "--exec-path")) for a in rest):
        return None
    if sub == "config" and (not rest or rest[0] not in ("--get", "--list", "-l", "--get-all")):
        return None
    if sub in ("branch", "tag") and any(not a.startswith("-") for a in rest):
        return None  # creating a branch or a tag
    if sub == "remote" and any(a not in ("-v", "--verbose") for a in rest):
        return None
    return _seen(argv)
