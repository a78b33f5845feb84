"""Claude Code 2.1.332's permission rule strings: how one is read and what it matches.

A rule is `Tool` or `Tool(content)` (the content runs from the first `(` to a `)` that ends the
string; `\\(` and `\\)` in it are literal). `Tool(*)` and `Tool()` are the bare tool. Legacy tool
names are renamed as Claude renames them (`Task` is `Agent`, `KillShell` is `TaskStop`, ...).

What a content matches depends on the tool (learned from the binary, verified by tests/compat/claude):

- `Bash`: `cmd:*` at the very end is a prefix (the command, or the command and a space and more;
  `:*` anywhere else is literal); a content with an unescaped `*` is a wildcard (`*` matches
  anything, spaces included; a single trailing ` *` may also match nothing, so `ls *` matches `ls`);
  else the whole command, exactly. Runs of blanks are one space for prefixes.
- `Read`, `Edit` (and `Write`, `NotebookEdit`, `Glob`): a gitignore pattern (matched by `pathspec`)
  below an anchor: `//x` from the filesystem root, `~/x` from the home directory, `/x` from the
  settings file's project directory, `./x` and `x` from the working directory.
- `WebFetch(domain:host)`: the URL's host, exactly; `domain:*.host` any subdomain.
- `mcp__server` and `mcp__server__*`: every tool of the server; `mcp__server__tool`: that tool.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from forge_tools.named_tuple import NamedTuple

if TYPE_CHECKING:
    from pathspec import PathSpec

#: Claude's legacy tool names and the names it reads them as
ALIASES: dict[str, str] = {
    "Task": "Agent", "KillShell": "TaskStop", "KillBash": "TaskStop", "ListPeers": "ListAgents",
    "Brief": "SendUserMessage", "ListMcpResources": "ListMcpResourcesTool",
    "ReadMcpResource": "ReadMcpResourceTool", "ReadMcpResourceDir": "ReadMcpResourceDirTool",
    "ProposeGoal": "SetGoal",
}
#: tools whose rule content is a path (Claude's file-pattern tools)
PATH_TOOLS = frozenset({"Read", "Write", "Edit", "Glob", "NotebookRead", "NotebookEdit", "Cd"})
#: the tools an `Edit(...)` rule decides (Claude's file-writing tools)
EDIT_TOOLS = frozenset({"Edit", "Write", "NotebookEdit", "MultiEdit"})
#: the tools a `Read(...)` rule decides
READ_TOOLS = frozenset({"Read", "Glob", "Grep", "NotebookRead", "LS"})


class Spec(NamedTuple):
    """A rule string read as Claude reads it: the tool and its content (None: the bare tool)."""

    tool: str
    content: str | None
    problem: str | None = None  # why Claude rejects the rule as written (it is not loaded)


def parse_rule(text: str, behavior: str) -> Spec:
    """Claude's reading of one rule string of `permissions.<behavior>`."""
    if not text.strip():
        return Spec("", None, "a permission rule cannot be empty")
    has_paren = "(" in text or ")" in text
    if not has_paren:
        return _checked(Spec(ALIASES.get(text, text), None), behavior)
    open_at = _unescaped(text, "(")
    close_at = _unescaped(text, ")", last=True)
    if open_at == -1 and close_at == -1:
        return _checked(Spec(ALIASES.get(text, text), None), behavior)
    name = text[:open_at] if open_at != -1 else text
    if open_at == -1 or close_at <= open_at or close_at != len(text) - 1 or re.search(r"[()]", name):
        return Spec(name, None, 'malformed Tool(content) rule: it must end at the closing ")"')
    raw = text[open_at + 1:close_at]
    if not name:
        return Spec("", None, "empty tool name before the parentheses")
    tool = ALIASES.get(name, name)
    if raw in ("", "*"):
        if raw == "" and not tool.startswith("mcp__"):
            return Spec(tool, None, f'empty parentheses: write "{tool}" without them')
        return _checked(Spec(tool, None), behavior)
    if tool.startswith("mcp__"):
        return Spec(tool, None, "MCP rules do not take a pattern in parentheses")
    content = raw.replace("\\(", "(").replace("\\)", ")").replace("\\\\", "\\")
    return _checked(Spec(tool, content), behavior)


def _unescaped(text: str, char: str, last: bool = False) -> int:
    """The index of the first (or last) `char` not preceded by an odd run of backslashes."""
    indices = range(len(text) - 1, -1, -1) if last else range(len(text))
    for i in indices:
        if text[i] == char and not _escaped(text, i):
            return i
    return -1


def _escaped(text: str, index: int) -> bool:
    count, j = 0, index - 1
    while j >= 0 and text[j] == "\\":
        count, j = count + 1, j - 1
    return count % 2 == 1


def _checked(spec: Spec, behavior: str) -> Spec:
    tool = spec.tool
    if not tool:
        return spec._replace(problem="the tool name is empty")
    if tool.startswith("mcp__"):
        return spec
    if "_" not in tool and tool[0] != tool[0].upper():
        upper = tool[0].upper() + tool[1:]
        return spec._replace(problem=f"tool names start with an uppercase letter: {upper!r}")
    if behavior == "allow" and "*" in tool:
        return spec._replace(problem=f"a wildcard tool name ({tool!r}) is not allowed in an allow rule")
    content = spec.content
    if content is None:
        return spec
    if tool == "WebFetch":
        if "://" in content or content.startswith("http"):
            return spec._replace(problem="WebFetch rules name a domain (domain:host), not a URL")
        if not content.startswith("domain:"):
            return spec._replace(problem='WebFetch rules take the form "domain:host"')
    if tool == "WebSearch" and ("*" in content or "?" in content):
        return spec._replace(problem="WebSearch rules do not take wildcards")
    if tool == "Bash" and content == ":*":
        return spec._replace(problem="the prefix before :* is empty")
    return spec


# ------------------------------------------------------------------------------------------ Bash


class BashPattern(NamedTuple):
    kind: str  # "exact", "prefix", "wildcard"
    text: str


def bash_pattern(content: str) -> BashPattern:
    """Claude's kind of a `Bash(...)` content: a trailing `:*` prefix, a wildcard, or exact."""
    m = re.fullmatch(r"(.+):\*", content, re.DOTALL)
    if m is not None:
        return BashPattern("prefix", m.group(1))
    if any(ch == "*" and not _escaped(content, i) for i, ch in enumerate(content)):
        return BashPattern("wildcard", content)
    return BashPattern("exact", content)


def colon_star_inside(content: str) -> bool:
    """A `:*` that is not the content's end: Claude reads it as the two literal characters."""
    at = content.find(":*")
    return at != -1 and at != len(content) - 2


_BLANKS = re.compile(r"[ \t]+")


@lru_cache(maxsize=4096)
def wildcard_regex(pattern: str) -> re.Pattern[str]:
    """A Bash wildcard content as Claude's regular expression (anchored, `*` spans anything)."""
    text = pattern.strip()
    out: list[str] = []
    stars = 0
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "\\" and i + 1 < len(text) and text[i + 1] in "*\\":
            out.append(re.escape(text[i + 1]))
            i += 2
            continue
        if ch == "*":
            stars += 1
            out.append("\x00")
        else:
            out.append(re.escape(ch))
        i += 1
    body = "".join(out)
    body = re.sub(r"/(?:\x00\x00/)+", "\x01", body)  # `/**/`: any run of directories
    body = body.replace("\x00", ".*").replace("\x01", "/(?:.*/)?")
    if body.endswith(r"\ .*") and stars == 1:
        body = body[: -len(r"\ .*")] + r"(\ .*)?"
    elif body.endswith(" .*") and stars == 1:
        body = body[:-3] + "( .*)?"
    return re.compile(f"^{body}$", re.DOTALL)


def bash_matches(content: str, command: str) -> bool:
    """Whether the `Bash(content)` rule matches one command text."""
    kind, text = bash_pattern(content)
    if kind == "exact":
        return text == command
    if kind == "prefix":
        prefix, cmd = _BLANKS.sub(" ", text), _BLANKS.sub(" ", command)
        if cmd == prefix or cmd.startswith(prefix + " "):
            return True
        xargs = "xargs " + prefix
        return cmd == xargs or cmd.startswith(xargs + " ")
    return wildcard_regex(text).match(command) is not None


# ----------------------------------------------------------------------------------------- paths


class PathRule(NamedTuple):
    """A path content split into its anchor and its gitignore pattern."""

    anchor: str  # "root" (//), "home" (~/), "settings" (/), "cwd" (./ or bare)
    pattern: str


def path_rule(content: str) -> PathRule:
    """The anchor and gitignore pattern of a path content. Below `//`, `~/` and `/` the pattern is
    anchored there (`Read(/notes.txt)` is not `src/notes.txt`); below the working directory a name
    without a `/` matches at any depth, as in a .gitignore (`Read(./.env)` covers `config/.env`)."""
    if content.startswith("//"):
        return PathRule("root", "/" + content.lstrip("/"))
    if content.startswith("~/"):
        return PathRule("home", "/" + content[2:].lstrip("/"))
    if content == "~":
        return PathRule("home", "**")
    if content.startswith("/"):
        return PathRule("settings", "/" + content.lstrip("/"))
    if content.startswith("./"):
        return PathRule("cwd", content[2:])
    return PathRule("cwd", content)


@lru_cache(maxsize=4096)
def _spec(pattern: str) -> PathSpec:
    import pathspec

    return pathspec.PathSpec.from_lines("gitignore", [pattern])


def gitignore_matches(pattern: str, relative: str) -> bool:
    """Whether the gitignore `pattern` matches the path `relative` (or one of its directories)."""
    if pattern in ("", "**"):
        return True
    spec = _spec(pattern)
    if spec.match_file(relative):
        return True
    parts = relative.split("/")
    return any(spec.match_file("/".join(parts[:i]) + "/") for i in range(1, len(parts)))


# -------------------------------------------------------------------------------------- WebFetch


def domain_matches(content: str, url: str) -> bool:
    """`WebFetch(domain:host)` against a URL: the same host, or any subdomain for `*.host`."""
    want = content[len("domain:"):].lower() if content.startswith("domain:") else content.lower()
    try:
        host = (urlsplit(url).hostname or "").lower()
    except ValueError:
        return False
    if want.startswith("*."):
        return host.endswith(want[1:])
    return host == want


# ------------------------------------------------------------------------------------------- MCP


def mcp_parts(name: str) -> tuple[str, str | None] | None:
    """(server, tool or None) of an `mcp__server[__tool]` name, else None."""
    if not name.startswith("mcp__"):
        return None
    rest = name[len("mcp__"):]
    server, sep, tool = rest.partition("__")
    if not server:
        return None
    return server, (tool if sep else None)


def tool_rule_matches(rule_tool: str, tool: str) -> bool:
    """Whether a bare rule naming `rule_tool` covers the tool `tool` (MCP server rules cover their
    tools; `mcp__s__*` and `mcp__s__get_*` are globs in the tool position)."""
    if rule_tool == tool:
        return True
    rule = mcp_parts(rule_tool)
    called = mcp_parts(tool)
    if rule is None or called is None or rule[0] != called[0]:
        if rule is not None and called is not None and "*" in rule[0]:
            return re.fullmatch(re.escape(rule_tool).replace(r"\*", ".*"), tool) is not None
        return False
    if rule[1] is None or rule[1] == "*":
        return True
    if "*" in rule[1] and called[1] is not None:
        return re.fullmatch(re.escape(rule[1]).replace(r"\*", ".*"), called[1]) is not None
    return False
