"""Gemini CLI 0.61's policy rules: what a TOML `[[rule]]` and a settings entry compile to.

A rule has a tool name (exact, `*`, `mcp_*`, `mcp_<server>_*`), an optional `mcpName`, an optional
`argsPattern` (a JavaScript regular expression tested against the call's stable JSON: keys sorted,
no spaces, each top-level `"key":value` between NUL characters), a decision (`allow`, `deny`,
`ask_user`) and a priority: its tier (default 1, extension 2, workspace 3, user 4, admin 5) plus the
TOML priority / 1000. `commandPrefix = "git push"` becomes the argsPattern `"command":"git\\ push`
followed by blank, `"` or `\\"`, so it needs a word boundary (`git pushx` is not matched, nor is
`npm run test:unit` by `npm run test`); `commandRegex = "re"` becomes `"command":"re`.

Settings entries compile into the user tier at fixed priorities (Gemini's `config.ts`):
`mcp.excluded` 4.9 deny, `tools.exclude` 4.4 deny, `tools.confirmationRequired` 4.35 ask,
`tools.allowed` 4.3 allow (a shell entry with arguments adds a deny of every other shell call at
4.29), `tools.core` 4.25 allow with a deny of every other tool at 4.24 (not in plan mode),
`mcpServers.<name>.trust` 4.2 allow, `mcp.allowed` 4.1 allow.

JavaScript's regular expressions are not Python's (`\\d`, `$`, lookbehind, `\\u0000`, `[^]`...): the
`regress` package (a JavaScript-compatible regex engine) matches argsPatterns as Gemini does.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from forge_tools.lazy_re import lazy

if TYPE_CHECKING:
    import regress

    from forge_tools.origin import Origin

DECISIONS = ("allow", "deny", "ask_user")
MODES = ("default", "autoEdit", "plan", "yolo")
DEFAULT_TIER, EXTENSION_TIER, WORKSPACE_TIER, USER_TIER, ADMIN_TIER = 1, 2, 3, 4, 5
TIER_NAMES = {1: "default", 2: "extension", 3: "workspace", 4: "user", 5: "admin"}
MCP_PREFIX = "mcp_"
SHELL_TOOLS = ("run_shell_command", "ShellTool")
SHELL = "run_shell_command"
NON_PLAN_MODES = ("default", "autoEdit", "yolo")

MCP_EXCLUDED_PRIORITY = USER_TIER + 0.9
EXCLUDE_PRIORITY = USER_TIER + 0.4
CONFIRMATION_PRIORITY = USER_TIER + 0.35
ALLOWED_PRIORITY = USER_TIER + 0.3
CORE_PRIORITY = USER_TIER + 0.25
TRUSTED_MCP_PRIORITY = USER_TIER + 0.2
ALLOWED_MCP_PRIORITY = USER_TIER + 0.1


@dataclass(frozen=True)
class GeminiRule:
    """One rule of Gemini's policy engine, with where it was written."""

    tool_name: str
    decision: str
    priority: float
    source: str  # Gemini's own label: "User: team.toml", "Settings (Tools Allowed)"
    mcp_name: str | None = None
    args_pattern: str | None = None
    modes: tuple[str, ...] | None = None
    interactive: bool | None = None
    allow_redirection: bool | None = None
    tool_annotations: dict[str, Any] | None = field(default=None, hash=False, compare=False)
    deny_message: str | None = None
    subagent: str | None = None
    origin: Origin | None = field(default=None, hash=False, compare=False)
    text: str = ""  # how the rule was written, for messages (`commandPrefix = "git push"`)
    command_prefix: tuple[str, ...] | None = None  # the prefix the argsPattern was built from

    @property
    def tier(self) -> int:
        return math.floor(self.priority)

    def describe(self) -> str:
        where = f" at {self.origin}" if self.origin is not None else ""
        said = f"{self.decision}, priority {fmt_priority(self.priority)}, {self.source}"
        return f"{self.text or self.tool_name} ({said}){where}"

    def to_json(self) -> dict[str, Any]:
        return {"toolName": self.tool_name, "mcpName": self.mcp_name, "decision": self.decision,
                "priority": self.priority, "source": self.source, "argsPattern": self.args_pattern,
                "modes": list(self.modes) if self.modes is not None else None,
                "interactive": self.interactive, "allowRedirection": self.allow_redirection,
                "text": self.text, "location": self.origin.to_json() if self.origin is not None else None}


def fmt_priority(priority: float) -> str:
    """`4.25`, `1.05`: a priority as Gemini's `/policies list` prints it."""
    return f"{priority:.3f}".rstrip("0").rstrip(".") if priority < 1e15 else "max"


@lru_cache(maxsize=512)
def js_regex(pattern: str) -> regress.Regex | None:
    """`new RegExp(pattern)` (None: JavaScript refuses it)."""
    import regress

    try:
        return regress.Regex(pattern)
    except Exception:
        return None


def js_test(pattern: str, text: str) -> bool:
    """`new RegExp(pattern).test(text)`."""
    compiled = js_regex(pattern)
    return compiled is not None and compiled.find(text) is not None


_NESTED_QUANTIFIER = lazy(r"\([^)]*[*+?{].*\)[*+?{]")


def safe_regex(pattern: str) -> bool:
    """Gemini's `isSafeRegExp`: compiles, at most 2048 characters, no nested quantifier."""
    return js_regex(pattern) is not None and len(pattern) <= 2048 and not _NESTED_QUANTIFIER().search(pattern)


def js_string(value: str) -> str:
    """`JSON.stringify(value)` for a string."""
    return json.dumps(value, ensure_ascii=False)


def js_json(value: Any) -> str:
    """`JSON.stringify` of a plain value (integral floats print without `.0`, as in JavaScript)."""
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e21:
        return str(int(value))
    if isinstance(value, (int, float)):
        return json.dumps(value)
    if isinstance(value, str):
        return js_string(value)
    if isinstance(value, list):
        return "[" + ",".join("null" if v is None else js_json(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ",".join(f"{js_string(k)}:{js_json(v)}" for k, v in sorted(value.items())) + "}"
    return "null"


def stable_stringify(args: dict[str, Any]) -> str:
    """Gemini's `stableStringify` of a call's args: keys sorted, each top-level pair between NULs."""
    pairs = [f"\0{js_string(k)}:{js_json(v)}\0" for k, v in sorted(args.items())]
    return "{" + ",".join(pairs) + "}"


_ESCAPE = lazy(r"[-\[\]{}()*+?.,\\^$|#\s\"]")


def escape_regex(text: str) -> str:
    return _ESCAPE().sub(lambda m: "\\" + m.group(0), text)


def args_patterns(args_pattern: str | None, command_prefix: str | list[str] | None,
                  command_regex: str | None) -> list[str | None]:
    """Gemini's `buildArgsPatterns`: one argsPattern per prefix, or the regex's, or the pattern."""
    if command_prefix:
        prefixes = command_prefix if isinstance(command_prefix, list) else [command_prefix]
        return [escape_regex('"command":' + js_string(p)[:-1]) + r'(?:[\s"]|\\")' for p in prefixes]
    if command_regex:
        return ['"command":"' + command_regex]
    return [args_pattern]


def mcp_tool_name(server: str, tool: str | None) -> str:
    """Gemini's `formatMcpToolName`: `mcp_server_tool`, `mcp_server_*`, `mcp_*`, `mcp_*_tool`."""
    if server == "*" and tool in (None, "*"):
        return f"{MCP_PREFIX}*"
    if server == "*":
        return f"{MCP_PREFIX}*_{tool}"
    if tool in (None, "*"):
        return f"{MCP_PREFIX}{server}_*"
    return f"{MCP_PREFIX}{server}_{tool}"


def parse_mcp_name(name: str) -> tuple[str, str] | None:
    """(server, tool) of `mcp_server_tool`, split at the first `_` after `mcp_` (so a server named
    `my_srv` cannot be told apart from server `my` with tool `srv_...`)."""
    if not name.startswith(MCP_PREFIX):
        return None
    m = re.fullmatch(r"([^_]+)_(.+)", name[len(MCP_PREFIX):], re.DOTALL)
    return (m.group(1), m.group(2)) if m else None
