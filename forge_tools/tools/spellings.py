"""The other ways to write a bash command that run the same program: a path-qualified name, a wrapper
(`command`, `env`, `time`, ...), a nested `sh -c`/`bash -c`/`eval`, quoting or a backslash in the name
(or before it: `\\rm x`), `$(...)` as the name, an assignment or a redirection before it, a doubled
space, quotes inside an argument (`echo sec"ret"`), options before a subcommand (each one opencode
1.18.33 runs past a rule written for the plain command: tests/compat). Asked by the deny-strength findings of
every runtime (FT116 for opencode's and forge-tools' lowering, FT307 for Claude Code's) and by the
agents-disagree probes (FT118); nothing here decides or runs anything.
"""

from __future__ import annotations

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


def other_spellings(command: str) -> list[str]:
    """The same command written the known ways that run the same program."""
    words = command.split(" ")
    prog, rest = words[0], " ".join(words[1:])
    tail = f" {rest}" if rest else ""
    forms = [f"/bin/{command}", f"/usr/bin/{command}"]
    forms += [f"{w} {command}" for w in WRAPPERS]
    if prog in BUILTINS:
        forms.append(f"builtin {command}")
    forms.append(f"echo {words[-1]} | xargs {' '.join(words[:-1])}" if len(words) > 1
                 else f"echo | xargs {prog}")
    if "'" not in command:
        forms += [f"sh -c '{command}'", f"bash -c '{command}'", f"eval '{command}'"]
    forms += [f"'{prog}'{tail}", f'"{prog}"{tail}']
    if len(prog) > 1:
        forms.append(f"{prog[0]}\\{prog[1:]}{tail}")
    forms += [f"$(echo {prog}){tail}", f"FOO=1 {command}", f"\\{command}", f"time {command}",
              f"2>/dev/null {command}"]
    if rest:
        forms.append(f"{prog}  {rest}")  # a doubled space: the text no longer matches `prog rest*`
        last = words[-1]
        if len(last) > 1 and not any(ch in last for ch in "'\"\\$*?["):
            cut = (len(last) + 1) // 2
            forms.append(" ".join([*words[:-1], f'{last[:cut]}"{last[cut:]}"']))
    if prog in LEADING_OPTIONS and len(words) > 1 and not words[1].startswith("-"):
        forms.append(f"{prog} {LEADING_OPTIONS[prog]}{tail}")
    return forms
