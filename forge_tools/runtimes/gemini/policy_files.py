"""Gemini CLI 0.61's policy TOML files: every `*.toml` of a policy directory (in name order), parsed and
validated as Gemini validates them (a file that does not parse, or whose rules break the schema, is
skipped whole; a rule whose argsPattern JavaScript refuses or finds unsafe is dropped), each rule with
its file:line:col (the line of its `[[rule]]` header, or of the key a problem is about)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from forge_tools.lazy_re import lazy
from forge_tools.origin import Origin
from forge_tools.runtimes.gemini.policy import (
    DECISIONS,
    MODES,
    SHELL,
    TIER_NAMES,
    GeminiRule,
    args_patterns,
    js_regex,
    mcp_tool_name,
    safe_regex,
)

_HEADER = lazy(r"^[ \t]*\[\[[ \t]*rule[ \t]*\]\]", re.MULTILINE)
_OPTIONAL_STR = ("subagent", "mcpName", "argsPattern", "commandRegex", "denyMessage", "deny_message")
_OPTIONAL_BOOL = ("interactive", "allowRedirection", "allow_redirection")


@dataclass
class PolicyFile:
    """One policy file: its tier, whether Gemini loads it and why not, its rules."""

    path: Path
    tier: int
    loaded: bool = True
    why_not: str | None = None
    rules: list[GeminiRule] = field(default_factory=list)
    by_directory: bool = False  # not loaded because of its directory (tier disabled, insecure, replaced)


@dataclass
class Problem:
    """Something Gemini reports about a policy file or rule (it prints it at start-up)."""

    origin: Origin
    message: str
    severity: str = "error"  # error: not loaded; warning: loaded as written
    kind: str = "policy"


def _positions(text: str) -> list[int]:
    """The 1-based line of each `[[rule]]` header, in order."""
    return [text.count("\n", 0, m.start()) + 1 for m in _HEADER().finditer(text)]


def _key_line(text: str, header_line: int, key: str) -> int:
    """The line of `key = ...` in the rule whose header is at `header_line` (the header's if not found)."""
    lines = text.splitlines()
    for number in range(header_line, len(lines)):
        line = lines[number]
        if _HEADER().match(line) or line.lstrip().startswith("["):
            break
        if re.match(rf"[ \t]*{re.escape(key)}[ \t]*=", line):
            return number + 1
    return header_line


def _schema_error(rule: Any, index: int) -> str | None:
    """What Gemini's schema (zod) refuses in one `[[rule]]` (None: valid)."""
    where = f"rule #{index + 1}"
    if not isinstance(rule, dict):
        return f"{where} is not a table"
    name = rule.get("toolName")
    if not (isinstance(name, str) or (isinstance(name, list) and all(isinstance(n, str) for n in name))):
        return f"{where}: toolName is required (a string or a list of strings)"
    if rule.get("decision") not in DECISIONS:
        return f"{where}: decision must be one of allow, deny, ask_user"
    priority = rule.get("priority")
    if priority is None:
        return f"{where}: priority is required"
    if isinstance(priority, bool) or not isinstance(priority, (int, float)):
        return f"{where}: priority must be a number"
    if isinstance(priority, float) and not priority.is_integer():
        return f"{where}: priority must be an integer"
    if not 0 <= priority <= 999:
        return f"{where}: priority must be between 0 and 999 (1000 would jump to the next tier)"
    for key in _OPTIONAL_STR:
        if key in rule and not isinstance(rule[key], str):
            return f"{where}: {key} must be a string"
    for key in _OPTIONAL_BOOL:
        if key in rule and not isinstance(rule[key], bool):
            return f"{where}: {key} must be true or false"
    prefix = rule.get("commandPrefix")
    if prefix is not None and not (isinstance(prefix, str) or (
            isinstance(prefix, list) and all(isinstance(p, str) for p in prefix))):
        return f"{where}: commandPrefix must be a string or a list of strings"
    modes = rule.get("modes")
    if modes is not None and not (isinstance(modes, list) and all(m in MODES for m in modes)):
        return f"{where}: modes must list default, autoEdit, plan or yolo"
    if "toolAnnotations" in rule and not isinstance(rule["toolAnnotations"], dict):
        return f"{where}: toolAnnotations must be a table"
    return None


def _shell_syntax_error(rule: dict[str, Any], index: int) -> tuple[str, str] | None:
    """Gemini's `validateShellCommandSyntax`: reported, yet the rule is still loaded."""
    prefix, regex, pattern = "commandPrefix" in rule, "commandRegex" in rule, "argsPattern" in rule
    if not (prefix or regex):
        return None
    key = "commandPrefix" if prefix else "commandRegex"
    if rule.get("toolName") != SHELL:
        return key, (f"rule #{index + 1}: {key} is only for toolName = \"{SHELL}\" (not "
                     f"{rule.get('toolName')!r}); Gemini still loads the rule, as an argsPattern over the "
                     "call's `command` argument, which the tool does not have")
    if pattern:
        return key, (f"rule #{index + 1}: {key} and argsPattern together; Gemini uses {key} and "
                     "ignores argsPattern")
    if prefix and regex:
        return key, f"rule #{index + 1}: commandPrefix and commandRegex together; Gemini uses commandPrefix"
    return None


def read_policy_file(path: Path, tier: int, problems: list[Problem]) -> PolicyFile:
    """One file's rules as Gemini loads them into `tier`."""
    import tomllib  # here, not at import: most projects have no policy file

    found = PolicyFile(path, tier)
    base = Origin("file", str(path))
    try:
        text = path.read_text(encoding="utf-8")
        data = tomllib.loads(text)
    except (OSError, UnicodeDecodeError) as exc:
        return _skipped(found, problems, base, f"cannot read it ({exc.__class__.__name__})")
    except tomllib.TOMLDecodeError as exc:
        line = re.search(r"line (\d+), column (\d+)", str(exc))
        where = Origin("file", str(path), int(line.group(1)), int(line.group(2))) if line else base
        return _skipped(found, problems, where, f"TOML parsing failed ({exc})")
    lines = _positions(text)
    rules = data.get("rule", [])
    if not isinstance(rules, list):
        return _skipped(found, problems, base, "`rule` must be an array of tables ([[rule]])")
    for index, rule in enumerate(rules):
        error = _schema_error(rule, index)
        if error is not None:
            at = Origin("file", str(path), lines[index] if index < len(lines) else None, 1)
            return _skipped(found, problems, at, f"schema validation failed: {error}")
    tier_label = TIER_NAMES[tier].capitalize()
    for index, rule in enumerate(rules):
        header = lines[index] if index < len(lines) else 1
        syntax = _shell_syntax_error(rule, index)
        if syntax is not None:
            key, message = syntax
            problems.append(Problem(Origin("file", str(path), _key_line(text, header, key), 1), message,
                                    "warning", "shell-syntax"))
        found.rules.extend(_compile(rule, tier, f"{tier_label}: {path.name}", path, text, header, problems))
    return found


def _skipped(found: PolicyFile, problems: list[Problem], where: Origin, why: str) -> PolicyFile:
    found.loaded, found.why_not = False, why
    problems.append(Problem(where, f"{why}; Gemini CLI skips the whole file"))
    return found


def _rule_text(rule: dict[str, Any]) -> str:
    parts = [f"toolName = {rule['toolName']!r}"]
    for key in ("mcpName", "commandPrefix", "commandRegex", "argsPattern"):
        if key in rule:
            parts.append(f"{key} = {rule[key]!r}")
    return ", ".join(parts).replace("'", '"')


def _compile(rule: dict[str, Any], tier: int, source: str, path: Path, text: str, header: int,
             problems: list[Problem]) -> list[GeminiRule]:
    """The engine rules of one `[[rule]]`: one per tool name and per command prefix."""
    names = rule["toolName"] if isinstance(rule["toolName"], list) else [rule["toolName"]]
    prefix = rule.get("commandPrefix")
    patterns = args_patterns(rule.get("argsPattern"), prefix, rule.get("commandRegex"))
    origin = Origin("file", str(path), header, 1)
    modes = rule.get("modes")
    out: list[GeminiRule] = []
    prefixes = tuple(prefix if isinstance(prefix, list) else [prefix]) if prefix else None
    for pattern in patterns:
        if pattern is not None:
            keys = ("commandPrefix", "commandRegex", "argsPattern")
            key = next((k for k in keys if k in rule), "argsPattern")
            at = Origin("file", str(path), _key_line(text, header, key), 1)
            if js_regex(pattern) is None:
                problems.append(Problem(at, f"invalid regular expression {pattern!r}; "
                                            "Gemini CLI drops the rule"))
                continue
            if not safe_regex(pattern):
                problems.append(Problem(at, f"unsafe regular expression {pattern!r} (nested quantifier or "
                                            "over 2048 characters); Gemini CLI drops the rule"))
                continue
        for name in names:
            mcp = rule.get("mcpName")
            out.append(GeminiRule(
                tool_name=mcp_tool_name(mcp, name) if mcp else name, decision=rule["decision"],
                priority=tier + rule["priority"] / 1000, source=source, mcp_name=mcp, args_pattern=pattern,
                modes=tuple(modes) if modes is not None else None, interactive=rule.get("interactive"),
                allow_redirection=rule.get("allowRedirection", rule.get("allow_redirection")),
                tool_annotations=rule.get("toolAnnotations"),
                deny_message=rule.get("denyMessage", rule.get("deny_message")), subagent=rule.get("subagent"),
                origin=origin, text=_rule_text(rule), command_prefix=prefixes))
    return out
