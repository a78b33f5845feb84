"""Codex's exec-policy files (`rules/*.rules`), read with a Starlark parser (tree-sitter-starlark)
and checked as Codex checks them when it loads them.

A rules file is a Starlark program whose top-level calls declare rules: `prefix_rule(pattern=[...],
decision=..., justification=..., match=[...], not_match=[...])`, `host_executable(name=...,
paths=[...])` and `network_rule(...)`. forge-tools evaluates the literal part of Starlark that such
files are written in: strings, lists, names bound to them at the top level, and `+` of lists. A file
that needs more (a loop, a function) is reported as not read by forge-tools, never guessed.
Codex refuses a whole file (and, inside Codex, every rule of every layer) when one rule is invalid or
one of its examples does not hold; `RulesFile.error` says why, at the rule or example.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from forge_tools.origin import Origin

if TYPE_CHECKING:
    from tree_sitter import Node

Decision = Literal["allow", "prompt", "forbidden"]
DECISIONS: tuple[Decision, ...] = ("allow", "prompt", "forbidden")
SEVERITY = {"allow": 0, "prompt": 1, "forbidden": 2}
_ARGS = {
    "prefix_rule": ("pattern", "decision", "justification", "match", "not_match"),
    "host_executable": ("name", "paths"),
    "network_rule": ("host", "protocol", "decision", "justification"),
}


class NotLiteral(Exception):
    """An expression forge-tools does not evaluate (a call, a comprehension, ...)."""

    def __init__(self, node: Node) -> None:
        super().__init__(node.type)
        self.node = node


class RuleError(Exception):
    """What Codex refuses the file for, at a node."""

    def __init__(self, message: str, node: Node) -> None:
        super().__init__(message)
        self.node = node


@dataclass(frozen=True)
class Example:
    """A `match` or `not_match` example: its tokens (a string is split as a shell would) and where."""

    tokens: tuple[str, ...]
    origin: Origin


@dataclass(frozen=True)
class PrefixRule:
    """One `prefix_rule`: each pattern element is the alternatives one token may be."""

    pattern: tuple[tuple[str, ...], ...]
    decision: Decision
    origin: Origin
    justification: str | None = None
    match: tuple[Example, ...] = ()
    not_match: tuple[Example, ...] = ()
    decision_written: bool = True

    def matches(self, argv: list[str] | tuple[str, ...], program: str | None = None) -> bool:
        """The rule's pattern is a prefix of `argv`, token by token, exact strings (`program`: the
        first token to compare instead, a resolved host executable's name)."""
        if len(argv) < len(self.pattern):
            return False
        tokens = [program if program is not None else argv[0], *argv[1:len(self.pattern)]]
        return all(tok in alts for tok, alts in zip(tokens, self.pattern, strict=True))

    def matched_prefix(self, argv: list[str] | tuple[str, ...]) -> list[str]:
        return list(argv[:len(self.pattern)])

    def text(self) -> str:
        """`["git", ["status", "log"]]`: the pattern as written."""
        import json

        return json.dumps([alts[0] if len(alts) == 1 else list(alts) for alts in self.pattern])


@dataclass(frozen=True)
class HostExecutable:
    """A `host_executable(name, paths)` of a rules file: where the program `name` may be."""

    name: str
    paths: tuple[str, ...]
    origin: Origin


@dataclass
class RulesFile:
    """One `.rules` file as read: its rules, or why Codex does not load it."""

    path: Path
    rules: list[PrefixRule] = field(default_factory=list)
    hosts: list[HostExecutable] = field(default_factory=list)
    error: str | None = None  # Codex refuses the file (and forge-tools says where)
    error_origin: Origin | None = None
    unread: str | None = None  # forge-tools could not evaluate it (Codex may well load it)

    @property
    def loads(self) -> bool:
        return self.error is None and self.unread is None


def _parser() -> Any:
    from tree_sitter import Parser

    from forge_tools.grammars import language

    return Parser(language("tree_sitter_starlark"))


def _origin(path: Path, node: Node) -> Origin:
    return Origin("file", str(path), node.start_point[0] + 1, node.start_point[1] + 1)


def _string(node: Node) -> str:
    text = node.text.decode() if node.text is not None else ""
    if len(text) >= 2 and text[0] in "\"'" and text[-1] == text[0] and not any(
            c in text[1:-1] for c in (text[0], "\\", "\n", "\r", "\0")):
        return text[1:-1]  # no escape, no inner quote: its own text (`ast` is not imported for it)
    import ast

    value = ast.literal_eval(text)  # a Starlark string literal is a Python one (no f-strings here)
    if not isinstance(value, str):
        raise NotLiteral(node)
    return value


class _Evaluator:
    def __init__(self) -> None:
        self.names: dict[str, Any] = {}

    def value(self, node: Node) -> Any:
        kind = node.type
        if kind == "string":
            return _string(node)
        if kind == "concatenated_string":
            return "".join(_string(c) for c in node.named_children)
        if kind in ("list", "tuple"):
            return [self.value(c) for c in node.named_children if c.type != "comment"]
        if kind == "parenthesized_expression":
            inner = [c for c in node.named_children if c.type != "comment"]
            if len(inner) == 1:
                return self.value(inner[0])
        if kind == "identifier":
            name = node.text.decode() if node.text is not None else ""
            if name in self.names:
                return self.names[name]
            if name in ("True", "False", "None"):
                return {"True": True, "False": False, "None": None}[name]
        if kind == "true":
            return True
        if kind == "false":
            return False
        if kind == "none":
            return None
        if kind == "binary_operator":
            left, op, right = node.child_by_field_name("left"), node.child_by_field_name("operator"), \
                node.child_by_field_name("right")
            if left is not None and right is not None and op is not None and op.type == "+":
                a, b = self.value(left), self.value(right)
                if type(a) is type(b) and isinstance(a, list | str):
                    return a + b
        raise NotLiteral(node)


def _tokens(value: Any, node: Node) -> tuple[str, ...]:
    import shlex  # here, not at import (`forge-tools hook` reads rules without examples)

    if isinstance(value, str):
        return tuple(shlex.split(value))
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(value)
    raise RuleError("an example is a string or a list of strings", node)


def _pattern(value: Any, node: Node) -> tuple[tuple[str, ...], ...]:
    if not isinstance(value, list):
        raise RuleError(f"Type of parameter `pattern` doesn't match, expected `list`, actual "
                        f"`{type(value).__name__}`", node)
    if not value:
        raise RuleError("invalid pattern element: pattern cannot be empty", node)
    out = []
    for item in value:
        if isinstance(item, str):
            out.append((item,))
        elif isinstance(item, list) and item and all(isinstance(i, str) for i in item):
            out.append(tuple(item))
        else:
            raise RuleError("invalid pattern element: a token is a string or a non-empty list of strings",
                            node)
    return tuple(out)


def _examples(value: Any, node: Node, path: Path) -> tuple[Example, ...]:
    if not isinstance(value, list):
        raise RuleError("examples are a list", node)
    items = [c for c in node.named_children if c.type != "comment"] if node.type == "list" else []
    return tuple(Example(_tokens(v, items[i] if i < len(items) else node),
                         _origin(path, items[i] if i < len(items) else node))
                 for i, v in enumerate(value))


def _call(ev: _Evaluator, call: Node, path: Path, out: RulesFile) -> None:
    fn = call.child_by_field_name("function")
    args = call.child_by_field_name("arguments")
    name = fn.text.decode() if fn is not None and fn.text is not None else ""
    if name not in _ARGS or args is None:
        raise NotLiteral(call)
    given: dict[str, tuple[Any, Node]] = {}
    for arg in args.named_children:
        if arg.type == "comment":
            continue
        if arg.type != "keyword_argument":
            raise RuleError(f"{name} takes keyword arguments only", arg)
        key = arg.child_by_field_name("name")
        value = arg.child_by_field_name("value")
        if key is None or value is None or key.text is None:
            raise NotLiteral(arg)
        keyword = key.text.decode()
        if keyword not in _ARGS[name]:
            raise RuleError(f"Found `{keyword}` extra named parameter(s) for call to {name}", arg)
        given[keyword] = (ev.value(value), value)
    if name == "host_executable":
        hname, paths = given.get("name", (None, call))[0], given.get("paths", ([], call))[0]
        if not isinstance(hname, str) or not isinstance(paths, list):
            raise RuleError("host_executable takes name (a string) and paths (a list)", call)
        out.hosts.append(HostExecutable(hname, tuple(str(p) for p in paths), _origin(path, call)))
        return
    if name == "network_rule":
        return
    if "pattern" not in given:
        raise RuleError("Missing parameter `pattern` for call to prefix_rule", call)
    pattern = _pattern(*given["pattern"])
    decision = given.get("decision", ("allow", call))[0]
    if decision not in DECISIONS:
        raise RuleError(f"invalid decision: {decision}", call)
    justification = given.get("justification", (None, call))[0]
    rule = PrefixRule(pattern, decision, _origin(path, call),
                      justification if isinstance(justification, str) else None,
                      _examples(*given["match"], path) if "match" in given else (),
                      _examples(*given["not_match"], path) if "not_match" in given else (),
                      "decision" in given)
    for example in rule.not_match:
        if rule.matches(example.tokens):
            import shlex

            raise ExampleError(f"expected example to not match rule {rule.text()}: "
                               f"{shlex.join(example.tokens)}", example.origin)
    out.rules.append(rule)


class ExampleError(Exception):
    def __init__(self, message: str, origin: Origin) -> None:
        super().__init__(message)
        self.origin = origin


def read_rules(path: Path, text: str | None = None) -> RulesFile:
    """One rules file, read and checked as Codex checks it at load."""
    out = RulesFile(path)
    try:
        source = text if text is not None else path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        out.error = f"cannot read: {exc}"
        return out
    tree = _parser().parse(source.encode())
    if tree.root_node.has_error:
        bad = _first_error(tree.root_node)
        out.error, out.error_origin = "Starlark syntax error", _origin(path, bad)
        return out
    ev = _Evaluator()
    try:
        for stmt in tree.root_node.named_children:
            if stmt.type == "comment":
                continue
            inner = stmt.named_children[0] if stmt.type == "expression_statement" and stmt.named_children \
                else None
            if inner is not None and inner.type == "call":
                _call(ev, inner, path, out)
            elif inner is not None and inner.type == "assignment":
                left, right = inner.child_by_field_name("left"), inner.child_by_field_name("right")
                if left is None or right is None or left.type != "identifier" or left.text is None:
                    raise NotLiteral(inner)
                ev.names[left.text.decode()] = ev.value(right)
            else:
                raise NotLiteral(stmt)
        _check_matches(out)
    except RuleError as exc:
        out.rules, out.error, out.error_origin = [], str(exc), _origin(path, exc.node)
    except ExampleError as exc:
        out.rules, out.error, out.error_origin = [], str(exc), exc.origin
    except NotLiteral as exc:
        out.rules, out.unread = [], f"forge-tools evaluates literal rules only (a {exc.node.type} here)"
        out.error_origin = _origin(path, exc.node)
    return out


def _check_matches(out: RulesFile) -> None:
    """Every `match` example must be matched by its own rule (Codex: "expected every example to
    match at least one rule")."""
    for rule in out.rules:
        for example in rule.match:
            if not rule.matches(example.tokens):
                import shlex

                raise ExampleError(f"expected every example to match at least one rule: "
                                   f"{shlex.join(example.tokens)} is not matched by {rule.text()}",
                                   example.origin)


def _first_error(node: Node) -> Node:
    for child in node.children:
        if child.type == "ERROR" or child.is_missing:
            return child
        if child.has_error:
            return _first_error(child)
    return node
