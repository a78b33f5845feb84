"""YAML (`.yaml`, `.yml`, and the frontmatter of Markdown agents): parse with a position for every key
and value through PyYAML's safe composer, write snippets and dump."""

from __future__ import annotations

import datetime
from typing import Any, ClassVar

from forge_tools.config.formats.base import (
    MAX_DEPTH,
    ConfigFormat,
    at,
    check_depth,
    clean_text,
    first_at,
    position_of,
    too_many_digits,
)
from forge_tools.errors import ConfigError, ConfigProblem
from forge_tools.origin import Node, Origin

MERGE_TAG = "tag:yaml.org,2002:merge"


class YamlFormat(ConfigFormat):
    name: ClassVar[str] = "yaml"
    suffixes: ClassVar[tuple[str, ...]] = (".yaml", ".yml")
    label: ClassVar[str] = "YAML"

    def lexer(self) -> Any:
        from pygments.lexers import YamlLexer

        return YamlLexer()

    def parse(self, text: str, base: Origin) -> Node:
        return parse_yaml(text, base)

    def dump(self, data: Any) -> str:
        import yaml

        if data == {}:
            return "{}\n"
        return str(yaml.safe_dump(data, sort_keys=False, allow_unicode=True, default_flow_style=False))

    def key(self, key: str) -> str:
        from forge_tools.config.formats.base import bare_or_quoted

        return bare_or_quoted(key)

    def string(self, value: str) -> str:
        return value if value.isidentifier() else super().string(value)


FORMAT = YamlFormat()



def parse_yaml(text: str, base: Origin) -> Node:
    """YAML through the safe composer: marks give positions, the safe constructor gives scalar types.

    libyaml's loader (when PyYAML has it) composes about ten times faster with the same marks; any
    error is reported by the pure-Python loader, whose messages and positions are the reference.
    """
    import yaml

    fast = getattr(yaml, "CSafeLoader", None)
    if fast is not None:
        try:
            return parse_yaml_with(text, base, fast)
        except ConfigError:
            pass
    return parse_yaml_with(text, base, yaml.SafeLoader)


def parse_yaml_with(text: str, base: Origin, loader_class: Any) -> Node:
    """`parse_yaml` with a given PyYAML safe loader class."""
    import yaml
    from yaml import nodes as yn

    try:
        loader = loader_class(text)  # the pure-Python reader checks every character here
    except yaml.reader.ReaderError as exc:
        raise _unreadable(exc, text, base) from None
    try:
        try:
            root = loader.get_single_node()
        except yaml.reader.ReaderError as exc:
            raise _unreadable(exc, text, base) from None
        except yaml.MarkedYAMLError as exc:
            mark = exc.problem_mark or exc.context_mark
            problem = exc.problem or exc.context or "syntax error"
            if exc.context == "while scanning an alias" or problem.startswith("found undefined alias"):
                # `*: ask` is the most common rule and an alias to YAML: say how to write it
                mark = exc.context_mark or mark
                problem = (f"{problem} (YAML reads a leading * as an alias: quote the pattern, "
                           'e.g. "*": ask)')
            line, col = (mark.line + 1, mark.column + 1) if mark is not None else (1, 1)
            raise ConfigError(f"invalid YAML: {problem}", at(base, line, col, ()),
                              code=ConfigProblem.SYNTAX) from None
        except yaml.YAMLError as exc:
            raise ConfigError(f"invalid YAML: {exc}", at(base, 1, 1, ()), code=ConfigProblem.SYNTAX) from None
        except RecursionError:
            raise ConfigError(f"invalid YAML: nested more than {MAX_DEPTH} levels deep",
                              at(base, 1, 1, ()), code=ConfigProblem.SYNTAX) from None
        if root is None:
            return Node({}, at(base, 1, 1, ()))

        def mark_of(node: yn.Node) -> tuple[int, int]:
            return node.start_mark.line + 1, node.start_mark.column + 1

        def scalar(node: yn.ScalarNode, here: Origin) -> Any:
            try:
                value = loader.construct_object(node, deep=True)
            except yaml.YAMLError as exc:
                raise ConfigError(f"invalid YAML value: {getattr(exc, 'problem', exc)}", here,
                                  code=ConfigProblem.SYNTAX) from None
            except ValueError:  # an integer with more digits than Python converts
                digits = sum(c.isdigit() for c in str(node.value))
                raise too_many_digits(digits, here, "YAML") from None
            if isinstance(value, datetime.date | datetime.datetime):
                return node.value  # keep dates as written; the schema has no date values
            if isinstance(value, bytes):
                raise ConfigError("binary values are not supported", here, code=ConfigProblem.TYPE)
            return clean_text(value, here) if isinstance(value, str) else value

        # Aliases share nodes, so a small file can stand for billions of values ("billion laughs");
        # a real config has fewer values than characters, so more than that (plus slack) is refused.
        budget = [len(text) + 10_000]

        def mapping(node: yn.MappingNode, keys: tuple[str, ...], active: tuple[int, ...]) -> dict[str, Node]:
            """A mapping's keys in document order, merge keys (`<<`) expanded where they are written.

            Order is meaning in a permission map, so a merge key cannot just add its keys at the end
            (PyYAML puts them first): a merged key takes the place of the `<<` that brings it, unless
            the mapping writes that key itself, which then wins in value and keeps its own place. In
            `<<: [*a, *b]` an earlier mapping wins (YAML 1.1), and keys come in the order of the list,
            each at its place in the mapping that gives its value. Two `<<` keys in one mapping would
            leave that order to taste, so they are a duplicate key like any other.
            """
            explicit = {str(k.value) for k, _ in node.value
                        if k.tag != MERGE_TAG and isinstance(k, yn.ScalarNode)}
            out: dict[str, Node] = {}
            merge_at: Origin | None = None
            for key_node, value_node in node.value:
                key_mark = mark_of(key_node)
                if key_node.tag == MERGE_TAG:
                    where = at(base, *key_mark, keys)
                    if merge_at is not None:
                        raise ConfigError(f"duplicate merge key '<<' (first at line {merge_at.line}); "
                                          "merge several mappings with one key: <<: [*a, *b]", where,
                                          code=ConfigProblem.DUPLICATE_KEY)
                    merge_at = where
                    is_seq = isinstance(value_node, yn.SequenceNode)
                    for src in value_node.value if is_seq else [value_node]:
                        if not isinstance(src, yn.MappingNode):
                            raise ConfigError("a YAML merge key (<<) needs a mapping or a list of "
                                              "mappings", at(base, *mark_of(src), keys),
                                              code=ConfigProblem.SYNTAX)
                        for k, v in convert(src, keys, None, active).items():
                            if k not in explicit and k not in out:
                                out[k] = v
                    continue
                if not isinstance(key_node, yn.ScalarNode):
                    raise ConfigError("a key must be a plain string, not a list or mapping",
                                      at(base, *key_mark, keys), code=ConfigProblem.SYNTAX)
                name = clean_text(str(key_node.value), at(base, *key_mark, keys))
                k_origin = at(base, *key_mark, (*keys, name))
                if name in out:
                    raise ConfigError(f"duplicate key {name!r}{first_at(out[name])}", k_origin,
                                      code=ConfigProblem.DUPLICATE_KEY)
                out[name] = convert(value_node, (*keys, name), k_origin, active)
            return out

        def convert(node: yn.Node, keys: tuple[str, ...], key_origin: Origin | None,
                    active: tuple[int, ...] = ()) -> Node:
            here = at(base, *mark_of(node), keys)
            if id(node) in active:
                raise ConfigError("recursive YAML alias", here, code=ConfigProblem.SYNTAX)
            check_depth(keys, here)
            budget[0] -= 1
            if budget[0] < 0:
                raise ConfigError("YAML aliases expand to far more values than the file holds; write the "
                                  "values out or use fewer aliases", here, code=ConfigProblem.SYNTAX)
            active = (*active, id(node))
            if isinstance(node, yn.MappingNode):
                return Node(mapping(node, keys, active), here, key_origin)
            if isinstance(node, yn.SequenceNode):
                return Node([convert(v, (*keys, str(i)), None, active) for i, v in enumerate(node.value)],
                            here, key_origin)
            assert isinstance(node, yn.ScalarNode)
            return Node(scalar(node, here), here, key_origin)

        try:
            return convert(root, (), None)
        finally:
            # they refer to each other: a cycle that kept the document alive while commands run with
            # cycle collection paused; unbinding the names breaks it
            convert = mapping = None  # type: ignore[assignment]
    finally:
        loader.dispose()




def _unreadable(exc: Any, text: str, base: Origin) -> ConfigError:
    """PyYAML's "unacceptable character" (a NUL byte or another control character YAML forbids) at
    the character itself."""
    position = getattr(exc, "position", None)
    char = getattr(exc, "character", None)
    where = position_of(text, position) if isinstance(position, int) and 0 <= position <= len(text) \
        else (1, 1)
    if isinstance(char, int):
        code = f"U+{char:04X}"
        escape = f"\\x{char:02x}" if char <= 0xFF else f"\\u{char:04x}"
        message = (f"invalid YAML: a {'NUL byte' if char == 0 else 'control character'} ({code}), which "
                   f"YAML does not allow in a file; remove it, or write it as {escape} inside a "
                   "double-quoted string")
    else:
        message = f"invalid YAML: {getattr(exc, 'reason', None) or exc}"
    return ConfigError(message, at(base, *where, ()), code=ConfigProblem.SYNTAX)
