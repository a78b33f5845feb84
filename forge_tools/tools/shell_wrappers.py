"""The option grammars of the commands that run another command (`sudo`, `env`, `timeout`, ...).

The bash splitter checks a wrapper as itself and as the command it runs, so it must find where that
command starts exactly as the wrapper does. Each grammar below lists every option the wrapper accepts,
which of them take a value (separate, attached or, for long options, after `=`), and what comes before
the command (positional arguments, `NAME=value` assignments). Long options may be abbreviated to any
unique prefix, as getopt_long allows. A word the grammar does not know (an unknown option, an option
whose value is only known at run time) makes the wrapper opaque: the splitter cannot say what it runs.
"""

from __future__ import annotations

import re

from forge_tools.lazy_re import lazy
from forge_tools.named_tuple import NamedTuple

_ASSIGNMENT = lazy(r"[A-Za-z_][A-Za-z0-9_]*=")


class Grammar(NamedTuple):
    """One wrapper's options. Short options are letters; long options are names without `--`."""

    flags: str = ""  # short options without a value
    values: str = ""  # short options with a value (attached `-uroot` or the next word)
    optional: str = ""  # short options whose value can only be attached (`xargs -i{}`)
    long_flags: frozenset[str] = frozenset()
    long_values: frozenset[str] = frozenset()
    long_optional: frozenset[str] = frozenset()  # value only after `=`
    positional: int = 0  # operands before the command (`timeout DURATION CMD`)
    assignments: bool = False  # `NAME=value` words before the command (`env`, `sudo`)
    numeric: bool = False  # `-N` is an option (`nice -10 CMD`)
    dash_alone: bool = False  # `-` is an option (`env -` = `env -i`)
    command_required: bool = True  # without a command the wrapper runs something unknown (a shell)


def _longs(text: str) -> frozenset[str]:
    return frozenset(text.split())


GRAMMARS: dict[str, Grammar] = {
    "env": Grammar("i0v", "uCS", "",
                   _longs("ignore-environment null debug help version list-signal-handling"),
                   _longs("unset chdir split-string"), _longs("default-signal ignore-signal block-signal"),
                   assignments=True, dash_alone=True, command_required=False),
    "sudo": Grammar("AbEeHiKklnPSsVvBN", "CDghpRrtTUu", "",
                    _longs("askpass background bell edit set-home help login remove-timestamp "
                           "reset-timestamp list non-interactive preserve-groups stdin shell version "
                           "validate"),
                    _longs("close-from chdir group host prompt chroot role type command-timeout other-user "
                           "user"),
                    _longs("preserve-env"), assignments=True, command_required=False),
    "doas": Grammar("Lns", "Cu", command_required=False),
    "nice": Grammar("", "n", "", _longs("help version"), _longs("adjustment"), numeric=True,
                    command_required=False),
    "nohup": Grammar("", "", "", _longs("help version")),
    "time": Grammar("apqvV", "fo", "", _longs("append portability verbose quiet help version"),
                    _longs("format output")),
    "timeout": Grammar("v", "sk", "", _longs("preserve-status foreground verbose help version"),
                       _longs("kill-after signal"), positional=1),
    "command": Grammar("pvV"),
    "exec": Grammar("cl", "a", command_required=False),
    "builtin": Grammar(),
    "xargs": Grammar("0oprtx", "adEILnPs", "eil",
                     _longs("null interactive no-run-if-empty show-limits verbose exit open-tty help "
                            "version"),
                     _longs("arg-file delimiter max-args max-procs process-slot-var max-chars"),
                     _longs("eof replace max-lines"), command_required=False),
    "stdbuf": Grammar("", "ioe", "", _longs("help version"), _longs("input output error")),
    "ionice": Grammar("tu", "cnpP", "", _longs("ignore help version"),
                      _longs("class classdata pid pgid uid"), command_required=False),
    "setsid": Grammar("cfw", "", "", _longs("ctty fork wait help version")),
    "flock": Grammar("sexunoFV", "wEc", "",
                     _longs("shared exclusive unlock nonblock nb close no-fork verbose help version"),
                     _longs("timeout wait conflict-exit-code command"), positional=1, command_required=False),
    "chrt": Grammar("abdfiomrRvpe", "TPD", "",
                    _longs("all-tasks batch deadline fifo idle other max rr reset-on-fork verbose pid help "
                           "version ext"), _longs("sched-runtime sched-period sched-deadline"),
                    positional=1),
    "taskset": Grammar("acp", "", "", _longs("all-tasks cpu-list pid help version"), positional=1),
    "watch": Grammar("bcCegptwqrx", "n", "d",
                     _longs("beep color no-color errexit chgexit precise no-title no-wrap no-rerun exec help "
                            "version"), _longs("interval equexit shotsdir"), _longs("differences")),
    "unshare": Grammar("muinpUCTfrcW", "SGRwl", "",
                       _longs("fork map-root-user map-current-user map-auto keep-caps help version"),
                       _longs("map-user map-users map-group map-groups propagation setgroups setuid setgid "
                              "root wd monotonic boottime load-interp"),
                       _longs("mount uts ipc net pid user cgroup time kill-child mount-proc mount-binfmt")),
    "su": Grammar("flmpPhV", "cgGsw", "",
                  _longs("fast login preserve-environment pty help version"),
                  _longs("command session-command group supp-group shell whitelist-environment"),
                  dash_alone=True, command_required=False),
    "runuser": Grammar("flmpPhV", "cgGswu", "",
                       _longs("fast login preserve-environment pty help version"),
                       _longs("command session-command group supp-group shell whitelist-environment user"),
                       dash_alone=True, command_required=False),
    "script": Grammar("aefqhVE", "cIOBTom", "t",
                      _longs("append return flush force quiet help version"),
                      _longs("command echo log-in log-out log-io log-timing logging-format output-limit"),
                      _longs("timing"), command_required=False),
    # No options known: a word starting with `-` makes them opaque; the command is the first operand.
    **{name: Grammar() for name in ("chronic", "unbuffer", "catchsegv", "caffeinate", "busybox")},
    "chroot": Grammar(positional=1),
}
# Wrappers whose grammar is too large to model: always opaque.
OPAQUE_WRAPPERS = frozenset({"strace", "ltrace", "nsenter", "firejail", "proot", "parallel"})


class Parsed:
    """Where a wrapper's command starts, and the options given (letter or long name -> values).

    A plain class with the methods `@dataclass` would write (equality, repr, unhashable as it is
    mutable): a dataclass compiles its methods at import, about 3 M instructions, a sixtieth of one
    `forge-tools hook` decision, which imports this module (issue 32 item 6)."""

    __slots__ = ("options", "start")
    __hash__ = None  # type: ignore[assignment]

    def __init__(self, start: int, options: dict[str, list[str]] | None = None) -> None:
        self.start = start  # index into the words (0 is the wrapper itself); == len(words) when there is none
        self.options: dict[str, list[str]] = {} if options is None else options

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        assert isinstance(other, Parsed)
        return (self.start, self.options) == (other.start, other.options)

    def __repr__(self) -> str:
        return f"Parsed(start={self.start!r}, options={self.options!r})"


def _long(name: str, known: frozenset[str]) -> str | None:
    if name in known:
        return name
    matches = [k for k in known if k.startswith(name)]
    return matches[0] if len(matches) == 1 else None


def parse(base: str, words: list[str | None]) -> Parsed | None:
    """Parse the options of wrapper `base` in `words` (the wrapper's own name first); None = opaque."""
    grammar = GRAMMARS.get(base)
    if grammar is None:
        return None
    g = grammar
    every_long = g.long_flags | g.long_values | g.long_optional
    options: dict[str, list[str]] = {}
    i = 1
    while i < len(words):
        word = words[i]
        if word is None:
            return None
        if word == "--":
            i += 1
            break
        if word == "-" and g.dash_alone:
            options.setdefault("-", []).append("")
            i += 1
            continue
        if g.numeric and re.fullmatch(r"-\d+", word):
            options.setdefault("n", []).append(word[1:])
            i += 1
            continue
        if word.startswith("--"):
            name, eq, value = word[2:].partition("=")
            full = _long(name, every_long)
            if full is None:
                return None
            if full in g.long_values and not eq:
                if i + 1 >= len(words) or words[i + 1] is None:
                    return None
                value = words[i + 1] or ""
                i += 1
            elif full in g.long_flags and eq:
                return None
            options.setdefault(full, []).append(value)
            i += 1
            continue
        if word.startswith("-") and len(word) > 1:
            j = 1
            while j < len(word):
                letter = word[j]
                if letter in g.flags:
                    options.setdefault(letter, []).append("")
                    j += 1
                    continue
                if letter in g.optional:
                    options.setdefault(letter, []).append(word[j + 1:])
                    break
                if letter in g.values:
                    if j + 1 < len(word):
                        options.setdefault(letter, []).append(word[j + 1:])
                    else:
                        if i + 1 >= len(words) or words[i + 1] is None:
                            return None
                        options.setdefault(letter, []).append(words[i + 1] or "")
                        i += 1
                    break
                return None  # an option this grammar does not know
            i += 1
            continue
        break
    if g.assignments:
        while i < len(words):
            word = words[i]
            if word is None:
                return None
            if not _ASSIGNMENT().match(word):
                break
            i += 1
    for _ in range(g.positional):
        if i >= len(words) or words[i] is None:
            return None
        i += 1
    return Parsed(i, options)
