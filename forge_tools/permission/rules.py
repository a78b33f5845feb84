"""Turn a located `permission` / `tools` config node into ordered rules (SPEC 4.2).

Order is meaning (the last match wins), so rules come out in file order, with the legacy `tools`
booleans of a level placed before that level's explicit `permission` keys (an explicit key replaces
the converted one of the same name). Each rule keeps the origin
of the key that wrote it, so `rules` and `explain` can point at file:line:col.
"""

from __future__ import annotations

from pathlib import Path
from typing import cast

from forge_tools.errors import ConfigError, ConfigProblem
from forge_tools.names import permission_name
from forge_tools.origin import Node, Origin, format_key_path
from forge_tools.rule import ACTIONS, Action, Rule


def expand_home(pattern: str, home: Path | str) -> str:
    """`~`, `~/x`, `$HOME`, `$HOME/x`, `$HOME*` -> the home directory (as opencode expands them).

    `~user` is another user's home and `$HOMEDIR` another variable, so both stay literal.
    """
    home_s = str(home).replace("\\", "/").rstrip("/") or "/"
    if pattern == "~" or pattern == "$HOME":
        return home_s
    for prefix in ("~/", "$HOME/"):
        if pattern.startswith(prefix):
            rest = pattern[len(prefix):]
            return home_s + "/" + rest if home_s != "/" else "/" + rest
    if pattern.startswith("$HOME") and not (pattern[5].isalnum() or pattern[5] == "_"):
        return home_s + pattern[5:]  # `$HOME*`, `$HOME.bak`
    return pattern


def _where(node: Node) -> Origin:
    return node.key_origin or node.origin


def _action(node: Node) -> Action:
    value = node.value
    if isinstance(value, str) and value in ACTIONS:
        return cast(Action, value)
    from difflib import get_close_matches

    close = get_close_matches(str(value), ACTIONS, n=1) if isinstance(value, str) else []
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    raise ConfigError(f"unknown action {value!r}{hint}; use allow, ask or deny", node.origin,
                      code=ConfigProblem.ACTION)


def _tools_rules(tools: Node) -> list[Rule]:
    if not tools.is_map:
        raise ConfigError("`tools` must map tool names to true or false", tools.origin,
                          code=ConfigProblem.TYPE)
    rules: list[Rule] = []
    for name, node in tools.items():
        if not isinstance(node.value, bool):
            where = format_key_path(("tools", name))
            raise ConfigError(f"{where} must be true or false, not {node.value!r}", node.origin,
                              code=ConfigProblem.TYPE)
        action: Action = "allow" if node.value else "deny"
        rules.append(Rule(permission_name(name), "*", action, _where(node)))
    return rules


def _permission_rules(permission: Node, home: Path | str) -> list[Rule]:
    if not permission.is_map:
        if permission.is_list or not isinstance(permission.value, str):
            raise ConfigError("`permission` must be an action or a map of permission names",
                              permission.origin, code=ConfigProblem.TYPE)
        return [Rule("*", "*", _action(permission), permission.origin)]
    rules: list[Rule] = []
    for name, node in permission.items():
        if node.is_map:
            for pattern, leaf in node.items():
                rules.append(Rule(name, expand_home(pattern, home), _action(leaf), _where(leaf)))
        elif isinstance(node.value, str):
            rules.append(Rule(name, "*", _action(node), _where(node)))
        else:
            raise ConfigError(
                f"permission {name!r} must be an action or a map of pattern to action, not {node.value!r}",
                node.origin, code=ConfigProblem.TYPE,
            )
    return rules


def rules_from_config(permission: Node | None, tools: Node | None, home: Path | str) -> list[Rule]:
    """Rules of one config level: converted legacy `tools` booleans, then the `permission` keys.

    The two maps merge key by key, as opencode 1.18.33 does (an object spread of the converted
    `tools` map, then `permission`): a permission name both maps set keeps the converted key's
    place but only the explicit `permission` rules, and a tool that folds twice keeps its last value.
    """
    by_key: dict[str, list[Rule]] = {}
    if tools is not None and tools.value is not None:
        for rule in _tools_rules(tools):
            by_key[rule.permission] = [rule]
    if permission is not None and permission.value is not None:
        explicit: dict[str, list[Rule]] = {}
        for rule in _permission_rules(permission, home):
            explicit.setdefault(rule.permission, []).append(rule)
        by_key.update(explicit)
    return [rule for rules in by_key.values() for rule in rules]
