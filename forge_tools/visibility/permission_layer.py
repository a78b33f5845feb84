"""Layer three (SPEC 3.3): the permission rules, then the per-request tool booleans.

The ruleset of a turn is the agent's rules, then the session overlay, then the request booleans. A
tool is hidden only when the last rule for its permission name (whatever that rule's pattern) is
exactly `* deny`. Two verdicts are reported so a person can tell who hid a tool:

- `permission`: the configured rules (agent + session overlay) alone;
- `request`: whether the request booleans drop the tool: `name: false` for exactly this tool, or a
  request rule that is the last rule for its permission. A `name: true` after a hiding rule
  re-allows the tool (the permission verdict still shows the rule that would have hidden it).

Rules are indexed once per turn (exact permission names in a dict, wildcard names by their literal
head in a `WildcardIndex`), so each tool costs a few look-ups whatever the number of rules.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from forge_tools.named_tuple import NamedTuple
from forge_tools.names import permission_name
from forge_tools.origin import Origin
from forge_tools.permission.wildcard import WildcardIndex, has_wildcard, normalize
from forge_tools.rule import Rule


class PermissionVerdicts(NamedTuple):
    """Both layer-three verdicts for one tool, and the layer-three outcome."""

    permission_kept: bool
    permission_reason: str
    permission_rule: Rule | None  # the last rule for the tool's permission name (decides hiding)
    request_kept: bool
    request_reason: str
    request_rule: Rule | None
    hidden_at: str | None  # "permission", "request" or None when layer three keeps the tool

    @property
    def kept(self) -> bool:
        return self.hidden_at is None


class LastRuleIndex:
    """The last rule whose permission name matches a tool's, whatever its pattern (SPEC 3.3).

    Exact names are a dict lookup. Wildcard names are indexed by their literal head (`plugin_*` under
    `plugin_`), so a look-up tries only the wildcard names that could match, not all of them.
    """

    def __init__(self, rules: Sequence[Rule]) -> None:
        self.rules = tuple(rules)
        self._exact: dict[str, int] = {}
        wild: list[int] = []
        for i, rule in enumerate(self.rules):
            name = normalize(rule.permission)
            if has_wildcard(name):
                wild.append(i)
            else:
                self._exact[name] = i
        self._wild = wild
        self._wild_index = WildcardIndex(self.rules[i].permission for i in wild) if wild else None

    def last(self, permission: str) -> Rule | None:
        name = normalize(permission)
        best = self._exact.get(name, -1)
        if self._wild_index is not None:
            found = self._wild_index.last(name)
            if found >= 0:
                best = max(best, self._wild[found])
        return self.rules[best] if best >= 0 else None


def request_rules(tool_booleans: Mapping[str, bool], origin: Origin) -> list[Rule]:
    """Per-request `{name: bool}`: false -> `name * deny`, true -> `name * allow`, in the given order.

    The name is kept as given (not folded into `edit`); the layer also drops exactly the tools set to
    false.
    """
    return [
        Rule(name, "*", "allow" if enabled else "deny", origin.at(name))
        for name, enabled in tool_booleans.items()
    ]


def hides(rule: Rule | None) -> bool:
    """SPEC 3.3: only a last rule of exactly `* deny` hides a tool."""
    return rule is not None and rule.pattern == "*" and rule.action == "deny"


def _quote(rule: Rule) -> str:
    return f"`{rule.permission} {rule.pattern} {rule.action}` ({rule.origin})"


def _configured_reason(tool_id: str, perm: str, rule: Rule | None) -> str:
    name = f"permission {perm!r}" + (f" (tool {tool_id!r} folds into it)" if perm != tool_id else "")
    if rule is None:
        return f"no rule names {name}; calls will ask"
    if hides(rule):
        return f"hidden: the last rule for {name} is {_quote(rule)}"
    if rule.action == "deny":
        return (f"kept: the last rule for {name} is {_quote(rule)}; a deny with a specific pattern "
                "rejects matching calls but does not hide the tool")
    if rule.action == "ask":
        return f"kept: the last rule for {name} is {_quote(rule)}; ask never hides a tool"
    return f"kept: the last rule for {name} is {_quote(rule)}"


class PermissionLayer:
    """Layer three for one turn: index the rules once, then judge any number of tools."""

    def __init__(self, configured: Sequence[Rule], request_rules: Sequence[Rule],
                 tool_overrides: Mapping[str, bool]) -> None:
        self.configured = LastRuleIndex(configured)
        self.request_rules = tuple(request_rules)
        self.requested = LastRuleIndex(self.request_rules)
        self.overrides = dict(tool_overrides)
        self._request_rule_by_name = {r.permission: r for r in self.request_rules}

    def hiding_rule(self, tool_id: str) -> Rule | None:
        """The configured `* deny` that hides `tool_id` (None: the configured rules keep it)."""
        rule = self.configured.last(permission_name(tool_id))
        return rule if hides(rule) else None

    def judge(self, tool_id: str) -> PermissionVerdicts:
        perm = permission_name(tool_id)
        rule = self.configured.last(perm)
        configured_hidden = hides(rule)
        permission_reason = _configured_reason(tool_id, perm, rule)
        at = "permission" if configured_hidden else None
        if not self.overrides:
            return PermissionVerdicts(not configured_hidden, permission_reason, rule,
                                      True, "no per-request tool booleans", None, at)
        if self.overrides.get(tool_id) is False:
            req_rule = self._request_rule_by_name.get(tool_id)
            return PermissionVerdicts(
                not configured_hidden, permission_reason, rule,
                False, f"dropped: the request sets {tool_id!r} to false (--tools)", req_rule,
                at or "request",
            )
        full = self.requested.last(perm)
        if full is None:
            return PermissionVerdicts(not configured_hidden, permission_reason, rule, True,
                                      "the request booleans do not name this tool's permission", None, at)
        if hides(full):
            reason = (f"hidden: the request's {full.permission!r}: false becomes "
                      f"`{full.permission} * deny`, the last rule for permission {perm!r}")
            return PermissionVerdicts(not configured_hidden, permission_reason, rule, False, reason, full,
                                      at or "request")
        if configured_hidden:
            reason = (f"re-allowed: the request's {full.permission!r}: true becomes "
                      f"`{full.permission} * {full.action}`, after the rule that hid it")
            return PermissionVerdicts(False, permission_reason, rule, True, reason, full, None)
        return PermissionVerdicts(True, permission_reason, rule, True,
                                  f"kept: the request sets {full.permission!r} to true", full, None)


def hiding_rule(tool_id: str, configured: Sequence[Rule]) -> Rule | None:
    """The `* deny` rule of `configured` that hides `tool_id`, or None (one tool, one ruleset; build a
    `PermissionLayer` to judge many)."""
    return PermissionLayer(configured, (), {}).hiding_rule(tool_id)


def permission_layer(tool_ids: Iterable[str], configured: Sequence[Rule], request_rules: Sequence[Rule],
                     tool_overrides: Mapping[str, bool]) -> dict[str, PermissionVerdicts]:
    """Layer three for every candidate (pure)."""
    layer = PermissionLayer(configured, request_rules, tool_overrides)
    return {tool_id: layer.judge(tool_id) for tool_id in tool_ids}
