"""The other ways to write a bash command that run the same program: a path-qualified name, a wrapper
(`command`, `env`, `time`, ...), a nested `sh -c`/`bash -c`/`eval`, quoting or a backslash in the name
(or before it: `\\rm x`), `$(...)` as the name, an assignment or a redirection before it, a doubled
space, quotes inside an argument (`echo sec"ret"`), options before a subcommand (each one opencode
1.18.33 runs past a rule written for the plain command: tests/compat). Asked by the deny-strength findings of
every runtime (FT116 for opencode's and forge-tools' lowering, FT307 for Claude Code's) and by the
agents-disagree probes (FT118); nothing here decides or runs anything.
"""

from __future__ import annotations

from functools import lru_cache

from forge_tools.permission.wildcard import has_wildcard

#: wrappers that run their arguments as a command (no options needed)
WRAPPERS = ("command", "exec", "env", "nice", "nohup", "timeout 10")
#: bash builtins `builtin NAME` reaches (for any other name `builtin` fails, so it is no bypass)
BUILTINS = frozenset({"cd", "echo", "eval", "exec", "export", "kill", "printf", "pwd", "read", "source",
                      "test", "trap", "type", "ulimit", "umask", "unset", "wait"})
#: options a program takes before its subcommand without changing what the subcommand does
LEADING_OPTIONS = {"git": "-C .", "docker": "--log-level info", "kubectl": "-n default",
                   "npm": "--prefix .", "cargo": "--color never", "helm": "--debug"}

def example_command(pattern: str) -> str | None:
    """A command the rule matches (`rm *` -> `rm x`), or None when its program is not a plain name."""
    words = pattern.split()
    if not words or has_wildcard(words[0]) or "/" in words[0]:
        return None
    text = pattern[:-2] + " x" if pattern.endswith(" *") else pattern
    return " ".join(text.replace("*", "x").replace("?", "x").split())


#: how many pieces cut from the words follow them in `spelling_templates`' parts
PIECES = 4


def other_spellings(command: str) -> list[str]:
    """The same command written the known ways that run the same program."""
    templates, parts = spelling_templates(command)
    return [template.format(*parts) for template in templates]


def spelling_templates(command: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """`other_spellings(command)` as `str.format` templates and the parts they are filled with: the
    command's words (split at each space) as fields `{0}` to `{n-1}`, then four pieces cut from them
    (`{n}`, `{n+1}`: the program's first character and the rest; `{n+2}`, `{n+3}`: the last word's
    halves). The templates are one object for every command of the same family (as many words, the
    same program when it has a spelling of its own, the same cut of the last word), so a caller may
    work out what a template does once for all of them."""
    words = command.split(" ")
    prog, last = words[0], words[-1]
    cut = ((len(last) + 1) // 2 if len(words) > 1 and len(last) > 1
           and not any(ch in last for ch in "'\"\\$*?[") else 0)
    leading = (LEADING_OPTIONS.get(prog, "") if len(words) > 1 and not words[1].startswith("-") else "")
    templates = _templates(len(words), bool(" ".join(words[1:])), prog in BUILTINS, len(prog) > 1,
                           "'" not in command, cut > 0, leading)
    return templates, (*words, prog[:1], prog[1:], last[:cut], last[cut:])


@lru_cache(maxsize=512)
def _templates(count: int, has_rest: bool, builtin: bool, cut_name: bool, unquoted: bool,
               cut_last: bool, leading: str) -> tuple[str, ...]:
    """The spellings of a command of `count` words (see `spelling_templates`; `has_rest`: the words
    after the program are not all empty)."""
    words = [f"{{{i}}}" for i in range(count)]
    head, tail, last_cut = f"{{{count}}}", f"{{{count + 1}}}", (f"{{{count + 2}}}", f"{{{count + 3}}}")
    command, prog = " ".join(words), words[0]
    rest = " ".join(words[1:]) if has_rest else ""
    after = f" {rest}" if rest else ""
    forms = [f"/bin/{command}", f"/usr/bin/{command}"]
    forms += [f"{w} {command}" for w in WRAPPERS]
    if builtin:
        forms.append(f"builtin {command}")
    forms.append(f"echo {words[-1]} | xargs {' '.join(words[:-1])}" if count > 1
                 else f"echo | xargs {prog}")
    if unquoted:
        forms += [f"sh -c '{command}'", f"bash -c '{command}'", f"eval '{command}'"]
    forms += [f"'{prog}'{after}", f'"{prog}"{after}']
    if cut_name:
        forms.append(f"{head}\\{tail}{after}")
    forms += [f"$(echo {prog}){after}", f"FOO=1 {command}", f"\\{command}", f"time {command}",
              f"2>/dev/null {command}"]
    if rest:
        forms.append(f"{prog}  {rest}")  # a doubled space: the text no longer matches `prog rest*`
        if cut_last:
            forms.append(" ".join([*words[:-1], f'{last_cut[0]}"{last_cut[1]}"']))
    if leading:
        forms.append(f"{prog} {leading}{after}")
    return tuple(forms)
