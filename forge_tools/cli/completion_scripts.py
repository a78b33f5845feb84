"""Render static completion scripts from the typer app's command tree (commands, options, choices)."""

from __future__ import annotations

from typing import Any

from forge_tools.named_tuple import NamedTuple
from forge_tools.runtimes import RUNTIMES
from forge_tools.tools.builtins import ALL_BUILTINS
from forge_tools.tools.sandbox import SETTINGS

FILE_NAMES = {"bash": "forge-tools.bash", "zsh": "_forge-tools", "fish": "forge-tools.fish"}


class OptionSpec(NamedTuple):
    """An option as completion offers it: its names, help, whether it takes a value and which ones."""

    names: tuple[str, ...]
    help: str
    takes_value: bool
    choices: tuple[str, ...]
    dynamic: str = ""  # also names asked at completion time: "agents", "tools", "codes" or "outputs"


class CommandSpec(NamedTuple):
    """A command; a nested one is named by its path (`outputs list`). A group lists its subcommands."""

    name: str
    help: str
    options: tuple[OptionSpec, ...]
    subcommands: tuple[str, ...] = ()
    arguments: tuple[str, ...] = ()  # fixed values of the first positional argument
    dynamic: str = ""  # the first positional argument also takes "agents", "tools" or "codes" names


# Values of options that take a name from a known set (the CLI validates them; completion offers them).
FLAGS = ("lsp", "plan", "exa", "parallel", "question")
CLIENTS = ("cli", "app", "desktop")
AGENTS = ("build", "plan", "general", "explore")
FORMATS = ("text", "concise", "json", "yaml", "toml", "github", "sarif", "junit", "gitlab", "markdown",
           "auto")
SHELL_NAMES = ("bash", "zsh", "fish")
#: builtin tool ids (SPEC 2), offered where a command takes a tool; the project's own tools and agents
#: come from `forge-tools __complete tools|agents` when completing (it never runs project code)
TOOL_IDS = tuple(i for i in ALL_BUILTINS if i != "invalid")  # `invalid` is not for direct use
#: `--runtime` takes every runtime of the registry (and `all` where the help says so); `--sandbox` the
#: sandbox settings of `run`
RUNTIME_NAMES = tuple(RUNTIMES)
RUNTIME_ALL = ("layers", "explain")  # the commands whose --runtime also takes `all`
VALUE_HINTS = {"--flag": FLAGS, "--client": CLIENTS, "--agent": AGENTS, "--runtime": RUNTIME_NAMES,
               "--sandbox": SETTINGS}
#: options before the command that take a value (the value is not the command's name)
GLOBAL_VALUE_OPTIONS = ("--agent", "-f", "--format", "-c", "--config", "--project")


def _first_line(text: str | None) -> str:
    """The first sentence of a help text, whatever its line breaks (shells show one line)."""
    flat = " ".join((text or "").split())
    end = flat.find(". ")
    return flat[: end + 1] if end >= 0 else flat


def _choices(param: Any) -> tuple[str, ...]:
    """Fixed values an option takes (Enum or Literal annotations, or a click Choice)."""
    import enum
    import typing

    click_type = getattr(param, "type", None)
    if click_type is not None and getattr(click_type, "choices", None):
        return tuple(str(c) for c in click_type.choices)
    descriptor = getattr(param, "type_descriptor", None)
    annotation = getattr(descriptor, "annotation", None)
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        return tuple(str(m.value) for m in annotation)
    if typing.get_origin(annotation) is typing.Literal:
        return tuple(str(a) for a in typing.get_args(annotation))
    return ()


def _option_values(param: Any, names: tuple[str, ...], help_text: str, path: str = "") -> tuple[str, ...]:
    choices = _choices(param)
    if choices:
        return choices
    for name in names:
        if name == "--runtime" and path.split(" ")[0] == "hook":
            from forge_tools.runtimes.hooks import AGENTS as HOOK_AGENTS

            return HOOK_AGENTS  # the agents whose hook forge-tools can be
        if name == "--runtime" and path in RUNTIME_ALL:
            return (*RUNTIME_NAMES, "all")
        if name in VALUE_HINTS:
            return VALUE_HINTS[name]
    if "--format" in names:  # the help names the accepted formats ("text, json, github, sarif, or auto")
        import re

        words = set(re.findall(r"[a-z]+", help_text))
        return tuple(f for f in FORMATS if f in words)
    return ()


def _spec(path: str, cmd: Any) -> CommandSpec:
    options: list[OptionSpec] = []
    for param in cmd.params:
        if getattr(param, "param_type_name", "") != "option":
            continue
        names = tuple(param.opts) + tuple(getattr(param, "secondary_opts", ()))
        help_text = " ".join((getattr(param, "help", "") or "").split())
        options.append(OptionSpec(
            names=names,
            help=_first_line(help_text),
            takes_value=not getattr(param, "is_flag", False),
            choices=_option_values(param, names, help_text, path),
            dynamic="agents" if "--agent" in names
            else "codes" if {"--select", "--extend-select", "--ignore"} & set(names) else "",
        ))
    options.append(OptionSpec(("--help", "-h"), "Show help and exit.", False, ()))
    subcommands = tuple(sorted(getattr(cmd, "commands", {}) or {}))
    arguments = SHELL_NAMES if path == "completions" else TOOL_IDS if path in ("explain", "run") else ()
    dynamic = ("tools" if path in ("explain", "run") else "codes" if path == "rule"
               else "outputs" if path == "outputs show" else "")
    return CommandSpec(path, _first_line(cmd.help or cmd.short_help), tuple(options), subcommands, arguments,
                       dynamic)


def _asked(kind: str, shell: str) -> str:
    """The shell's command substitution that asks forge-tools for the names (silently), for the
    project a `--project DIR` already on the line names (each script sets it from the line)."""
    if not kind:
        return ""
    if shell == "fish":
        return f" (forge-tools __complete {kind} (__forge_tools_project) 2>/dev/null)"
    return f' $(forge-tools __complete {kind} ${{project:+--project "$project"}} 2>/dev/null)'


def command_tree() -> list[CommandSpec]:
    """Commands of the CLI, sorted by name, each with its options; a group's subcommands follow it."""
    import typer.main

    from forge_tools.cli.app import app

    group: Any = typer.main.get_command(app)
    specs: list[CommandSpec] = []
    for name in sorted(group.commands):
        cmd = group.commands[name]
        if getattr(cmd, "hidden", False):
            continue
        specs.append(_spec(name, cmd))
        for sub in sorted(getattr(cmd, "commands", {}) or {}):
            specs.append(_spec(f"{name} {sub}", cmd.commands[sub]))
    return specs


def _quote_single(text: str) -> str:
    return text.replace("'", "'\\''")


def _top(tree: list[CommandSpec]) -> list[CommandSpec]:
    return [c for c in tree if " " not in c.name]


def _groups(tree: list[CommandSpec]) -> list[CommandSpec]:
    return [c for c in tree if c.subcommands]


def render_bash(tree: list[CommandSpec]) -> str:
    groups = " ".join(c.name for c in _groups(tree))
    lines = [
        "# bash completion for forge-tools (generated by `forge-tools completions --write completions`)",
        "_forge_tools_words() {  # the words of $1 that start with $2, each once, in order",
        "  compgen -W \"$1\" -- \"$2\" | awk '!seen[$0]++'",
        "}",
        "_forge_tools() {",
        "  local cur prev cmd sub key i project",
        '  cur="${COMP_WORDS[COMP_CWORD]}"',
        '  prev="${COMP_WORDS[COMP_CWORD-1]}"',
        '  cmd=""',
        '  sub=""',
        '  project=""',
        "  for ((i=1; i<COMP_CWORD; i++)); do",
        '    [[ "${COMP_WORDS[i]}" == --project ]] && project="${COMP_WORDS[i+1]}"',
        "  done",
        "  for ((i=1; i<COMP_CWORD; i++)); do",
        '    case "${COMP_WORDS[i]}" in',
        f"      {'|'.join(GLOBAL_VALUE_OPTIONS)}) ((i++)) ;;",
        "      -*) ;;",
        '      *) if [[ -z "$cmd" ]]; then cmd="${COMP_WORDS[i]}"; else sub="${COMP_WORDS[i]}"; break; fi ;;',
        "    esac",
        "  done",
        f'  [[ " {groups} " == *" $cmd "* ]] || sub=""',
        '  key="$cmd${sub:+ $sub}"',
        '  case "$key" in',
        f'    "") COMPREPLY=($(_forge_tools_words "{" ".join(c.name for c in _top(tree))} --help --version"'
        ' "$cur")); return ;;',
    ]
    for c in tree:
        words = " ".join(dict.fromkeys(n for o in c.options for n in o.names))
        positional = " ".join(dict.fromkeys(c.subcommands or c.arguments)) + _asked(c.dynamic, "bash")
        lines.append(f'    "{c.name}")')
        choice_cases = [
            f'        {"|".join(o.names)}) COMPREPLY=($(_forge_tools_words "{" ".join(o.choices)}'
            f'{_asked(o.dynamic, "bash")}" "$cur"));'
            " return ;;"
            for o in c.options
            if o.choices or o.dynamic
        ]
        # any other option that takes a value: its value is a path or free text, never a positional name
        free = [n for o in c.options if o.takes_value and not (o.choices or o.dynamic) for n in o.names]
        if free:
            choice_cases.append(f'        {"|".join(free)}) COMPREPLY=(); return ;;')
        if choice_cases:
            lines.append('      case "$prev" in')
            lines.extend(choice_cases)
            lines.append("      esac")
        lines.append(f'      if [[ "$cur" == -* ]]; then COMPREPLY=($(_forge_tools_words "{words}" "$cur"));')
        if positional:
            lines.append(f'      else COMPREPLY=($(_forge_tools_words "{positional}" "$cur"));')
        lines.append("      fi")
        lines.append("      ;;")
    lines += ["  esac", "}", "complete -o default -F _forge_tools forge-tools", ""]
    return "\n".join(lines)


def _zsh_escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("'", "'\\''").replace("[", "\\[").replace(
        "]", "\\]").replace(":", "\\:")


def _zsh_arguments(c: CommandSpec, indent: str) -> list[str]:
    lines = [f"{indent}_arguments \\"]
    for o in c.options:
        value = ""
        if o.takes_value:
            value = f":value:({' '.join(o.choices)})" if o.choices else ":value:_files"
            if o.dynamic:
                value = f":value:{{compadd -- {' '.join(o.choices)}{_asked(o.dynamic, 'zsh')}}}"
        for n in o.names:
            lines.append(f"{indent}  '{n}[{_zsh_escape(o.help)}]{value}' \\")
    positional = c.subcommands or c.arguments
    if c.dynamic:
        words = " ".join(positional) + _asked(c.dynamic, "zsh")
        lines.append(f"{indent}  '1:argument:{{compadd -- {words}}}' \\")
    else:
        lines.append(f"{indent}  '1:argument:({' '.join(positional)})' \\" if positional else
                     f"{indent}  '1:argument:_files' \\")
    lines.append(f"{indent}  '*:file:_files'")
    return lines


def render_zsh(tree: list[CommandSpec]) -> str:
    lines = [
        "#compdef forge-tools",
        "# zsh completion for forge-tools (generated by `forge-tools completions --write completions`)",
        "_forge_tools() {",
        "  local -a commands",
        "  local key",
        "  commands=(",
    ]
    lines += [f"    '{c.name}:{_zsh_escape(c.help)}'" for c in _top(tree)]
    groups = " ".join(c.name for c in _groups(tree))
    lines += [
        "  )",
        "  if (( CURRENT == 2 )); then",
        "    _describe -t commands 'forge-tools command' commands",
        "    return",
        "  fi",
        "  key=${words[2]}",
        f'  if [[ " {groups} " == *" $key "* ]] && (( CURRENT > 3 )); then key="$key ${{words[3]}}"; fi',
        "  shift words",
        "  (( CURRENT-- ))",
        "  local project=${words[${words[(i)--project]}+1]}",
        '  case "$key" in',
    ]
    for c in tree:
        lines.append(f'    "{c.name}")')
        lines.extend(_zsh_arguments(c, "      "))
        lines.append("      ;;")
    lines += ["  esac", "}", '_forge_tools "$@"', ""]
    return "\n".join(lines)


def render_fish(tree: list[CommandSpec]) -> str:
    lines = [
        "# fish completion for forge-tools (generated by `forge-tools completions --write completions`)",
    ]
    lines += [
        "function __forge_tools_project  # --project DIR already on the line, for __complete",
        "    set -l words (commandline -opc)",
        "    set -l i (contains -i -- --project $words); and set -q words[(math $i + 1)]; and "
        "printf '%s\\n' --project $words[(math $i + 1)]",
        "end",
    ]
    lines.append("complete -c forge-tools -n '__fish_use_subcommand' -f")
    for c in _top(tree):
        lines.append(
            f"complete -c forge-tools -n '__fish_use_subcommand' -a '{c.name}' -d '{_quote_single(c.help)}'"
        )
    for c in tree:
        if " " in c.name:
            group, sub = c.name.split(" ", 1)
            condition = f"__fish_seen_subcommand_from {group}; and __fish_seen_subcommand_from {sub}"
        else:
            condition = f"__fish_seen_subcommand_from {c.name}"
        if c.subcommands:
            subs = " ".join(c.subcommands)
            lines.append(f"complete -c forge-tools -n '{condition}; and not "
                         f"__fish_seen_subcommand_from {subs}' -f -a '{subs}'")
        if c.arguments or c.dynamic:
            lines.append(f"complete -c forge-tools -n '{condition}' -f -a '{' '.join(c.arguments)}"
                         f"{_asked(c.dynamic, 'fish')}'")
        for o in c.options:
            parts = [f"complete -c forge-tools -n '{condition}'"]
            for n in o.names:
                if n.startswith("--"):
                    parts.append(f"-l {n[2:]}")
                elif n.startswith("-"):
                    parts.append(f"-s {n[1:]}")
            if o.takes_value:
                parts.append(f"-xa '{' '.join(o.choices)}{_asked(o.dynamic, 'fish')}'"
                             if o.choices or o.dynamic else "-r -F")
            parts.append(f"-d '{_quote_single(o.help)}'")
            lines.append(" ".join(parts))
    lines.append("")
    return "\n".join(lines)


def render(shell: str) -> str:
    tree = command_tree()
    return {"bash": render_bash, "zsh": render_zsh, "fish": render_fish}[shell](tree)
